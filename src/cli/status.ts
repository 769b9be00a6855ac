/**
 * `collector status [--data DIR] [--json]`: how the collector on a data dir is doing, from its
 * status.json and the process table. Exit 0 healthy, 1 degraded, 3 not running. With `--backend
 * redis://… --crawl-id NAME`: every machine of a shared crawl, from Redis.
 */
import type { Command } from 'commander';
import { dataDirFlag, durationFlag } from './ops-flags.js';

/** Register the `status` command. */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('show workers, rates, errors and data size; exit 0 healthy, 1 degraded, 3 not running')
    .option('--data <dir>', 'data directory (--out of a crawl, data: of a config)', './data')
    .option(
      '--json',
      'print the versioned JSON document (docs/operating.md: "collector status --json")',
      false,
    )
    .option(
      '--stall <duration>',
      'no new item for this long with work pending is a stall (default: 10m)',
      durationFlag,
    )
    .option('--backend <url>', 'a crawl shared through Redis (redis://host:port/db): show every machine')
    .option('--crawl-id <name>', 'with --backend: the shared crawl')
    .action(
      async (o: { data: string; json: boolean; stall?: number; backend?: string; crawlId?: string }) => {
        if (o.backend !== undefined && o.backend !== 'embedded') {
          const { clusterStatus } = await import('./cluster-commands.js');
          process.exitCode = await clusterStatus(o.backend, o.crawlId, o.json);
          return;
        }
        const dataDir = dataDirFlag(o.data);
        const { readStatusFile } = await import('../supervision/status-format.js');
        const { measureDataSize } = await import('../ops/data-size.js');
        const { buildStatusReport, renderStatusReport } = await import('../ops/status-report.js');
        const [status, size] = await Promise.all([readStatusFile(dataDir), measureDataSize(dataDir)]);
        const report = buildStatusReport(dataDir, status, size, { stallMs: o.stall });
        process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : renderStatusReport(report));
        process.exitCode = report.exitCode;
      },
    );
}
