/**
 * `collector size [--data DIR] [--every 100MB] [--target 1GB]`: for cron; silent unless the data
 * passed the next milestone since the last report, then one line (also sent to notify:).
 */
import { type Command, Option } from 'commander';
import { dataDirFlag, sizeFlag } from './ops-flags.js';

/** Register the `size` command. */
export function registerSize(program: Command): void {
  program
    .command('size')
    .description('for cron: one line each time the collected data passes the next milestone, else silent')
    .option('--data <dir>', 'data directory (--out of a crawl, data: of a config)', './data')
    .addOption(
      new Option('--every <size>', 'milestone step (100MB, 1G)')
        .argParser(sizeFlag)
        .default(100 * 1024 * 1024, '100MB'),
    )
    .option('--target <size>', 'target size: adds the share reached and an ETA', sizeFlag)
    .option(
      '-c, --config <file>',
      'config with notify: settings (default: the one the collector was started with)',
    )
    .action(async (o: { data: string; every: number; target?: number; config?: string }) => {
      const dataDir = dataDirFlag(o.data);
      const { checkSize } = await import('../ops/size-milestones.js');
      const { notify } = await import('../ops/notify.js');
      const { notifySettingsFor } = await import('../ops/notify-settings.js');
      const fs = await import('node:fs');
      const { UsageError } = await import('../config/usage-error.js');
      if (!fs.existsSync(dataDir))
        throw new UsageError(`--data ${o.data}: not found; give the data directory of a collector`);
      const line = await checkSize({ dataDir, every: o.every, target: o.target });
      if (line !== null)
        await notify(line, await notifySettingsFor(dataDir, o.config), { kind: 'size', dataDir });
    });
}
