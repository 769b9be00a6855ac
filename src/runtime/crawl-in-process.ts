/**
 * A crawl in this process (`--processes 1`): one Crawler, a progress line on a TTY, and signal
 * handling (first signal: graceful stop; second: abandon in-flight requests).
 */
import type { CrawlOptions } from '../config/crawl-options.js';
import { DISK_FULL_EXIT_CODE, diskFullLine, diskFullPath, isDiskFull } from '../sinks/disk-full.js';
import { CrawlSource } from '../sources/crawl.js';
import { summary } from './crawl-job.js';
import { Crawler } from './crawler.js';
import { openWorkerLog } from './logger.js';
import { ProgressLine } from './progress-line.js';

/**
 * Crawl `seeds` to the end or to a signal, in this process (`<out>` already prepared and locked).
 * @returns exit code: 0 finished or stopped, 1 runtime failure, {@link DISK_FULL_EXIT_CODE} when a
 *   full disk stopped it.
 */
export async function runInProcess(opts: CrawlOptions, seeds: string[]): Promise<number> {
  const workerId = 'crawl-0';
  const { log, close: closeLog } = openWorkerLog(opts.out, workerId);
  const crawler = new Crawler(opts, { workerId, source: new CrawlSource(), log });
  const progress =
    !opts.quiet && process.stderr.isTTY
      ? new ProgressLine(() => ({
          items: crawler.stats.items,
          errors: crawler.stats.errors,
          bytes: crawler.stats.bytes,
          queued: crawler.frontier.queued,
          stopping: crawler.isStopping,
        }))
      : null;
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    log.info({ sig }, signals === 1 ? 'stopping' : 'abandoning in-flight requests');
    if (signals === 1) crawler.stop();
    else crawler.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let failed: unknown = null;
  try {
    await crawler.start(seeds);
    progress?.start();
    const finished = await crawler.run();
    log.info({ finished, ...crawler.stats }, finished ? 'frontier empty' : 'stopped');
  } catch (e) {
    log.error({ err: e }, 'crawl failed');
    failed = e;
  } finally {
    progress?.stop();
    await crawler.close().catch((e) => {
      failed ??= e;
    });
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await closeLog();
  }
  // A full disk stops the crawl with its own line and exit code; any other failure is exit 1.
  failed = crawler.writeError ?? failed;
  if (failed !== null) {
    if (isDiskFull(failed)) {
      process.stderr.write(`collector: ${diskFullLine(diskFullPath(failed, opts.out))}\n`);
      return DISK_FULL_EXIT_CODE;
    }
    process.stderr.write(`collector: crawl failed: ${(failed as Error).message}\n`);
    return 1;
  }
  if (!opts.quiet) {
    const s = crawler.stats;
    process.stderr.write(
      summary(opts, s.itemsThisRun, s.items, s.errors, crawler.frontier.queued, s.skipped),
    );
  }
  return 0;
}
