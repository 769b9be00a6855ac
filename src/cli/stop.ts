/**
 * `collector stop --backend redis://… --crawl-id NAME`: stop every machine of a crawl shared
 * through Redis gracefully (each finishes or gives back the URLs it leased; the crawl can be
 * continued by starting collectors with the same id). A crawl on one machine stops with
 * SIGTERM/Ctrl-C.
 */
import type { Command } from 'commander';

/** Register the `stop` command. */
export function registerStop(program: Command): void {
  program
    .command('stop')
    .description('stop every collector of a crawl shared through Redis (graceful)')
    .requiredOption('--backend <url>', 'the shared backend (redis://host:port/db)')
    .requiredOption('--crawl-id <name>', 'the shared crawl')
    .action(async (o: { backend: string; crawlId: string }) => {
      const { clusterStop } = await import('./cluster-commands.js');
      process.exitCode = await clusterStop(o.backend, o.crawlId);
    });
}
