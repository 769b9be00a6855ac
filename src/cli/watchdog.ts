/**
 * `collector watchdog [--data DIR] [--min-workers N] [--stall 10m]`: for cron. Silent and exit 0
 * while healthy; otherwise restarts the collector as recorded and prints one line (exit 1), or
 * says why it could not (exit 3).
 */
import { type Command, Option } from 'commander';
import { countFlag, dataDirFlag, durationFlag } from './ops-flags.js';

/** Register the `watchdog` command. */
export function registerWatchdog(program: Command): void {
  program
    .command('watchdog')
    .description(
      'for cron: silent while healthy; restarts a dead, hung or stalled collector and says so in one line',
    )
    .option('--data <dir>', 'data directory (--out of a crawl, data: of a config)', './data')
    .option(
      '--min-workers <n>',
      'fewer live workers than this is unhealthy (default: all planned)',
      countFlag,
    )
    .addOption(
      new Option('--stall <duration>', 'no new item for this long with work pending is a stall')
        .argParser(durationFlag)
        .default(600_000, '10m'),
    )
    .option('--max-restarts <n>', 'restarts within an hour before giving up', countFlag, 3)
    .addOption(
      new Option('--settle <duration>', 'time a restarted collector gets to become healthy')
        .argParser(durationFlag)
        .default(60_000, '60s'),
    )
    .option(
      '-c, --config <file>',
      'config with notify: settings (default: the one the collector was started with)',
    )
    .action(
      async (o: {
        data: string;
        minWorkers?: number;
        stall: number;
        maxRestarts: number;
        settle: number;
        config?: string;
      }) => {
        const dataDir = dataDirFlag(o.data);
        const { runWatchdog } = await import('../ops/watchdog.js');
        const { notify } = await import('../ops/notify.js');
        const { notifySettingsFor } = await import('../ops/notify-settings.js');
        const settings = await notifySettingsFor(dataDir, o.config);
        const r = await runWatchdog({
          dataDir,
          minWorkers: o.minWorkers,
          stallMs: o.stall,
          maxRestarts: o.maxRestarts,
          settleMs: o.settle,
        });
        if (r.line !== null) await notify(r.line, settings, { kind: 'watchdog', dataDir });
        process.exitCode = r.exitCode;
      },
    );
}
