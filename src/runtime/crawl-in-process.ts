/**
 * A crawl in this process (`--processes 1`): one Crawler on the embedded backend, a progress line
 * on a TTY, and signal handling (first signal: graceful stop; second: abandon in-flight requests).
 */
import type { CrawlOptions } from '../config/crawl-options.js';
import { Crawler } from '../engine/crawler.js';
import { DISK_FULL_EXIT_CODE, diskFullLine, diskFullPath, isDiskFull } from '../sinks/disk-full.js';
import { CrawlSource } from '../sources/crawl.js';
import { onStopSignals } from '../supervision/signals.js';
import { embeddedBackend } from './backend.js';
import { openWorkerLog } from './logger.js';
import { ProgressLine } from './progress-line.js';
import { summaryLine } from './summary-line.js';

/**
 * Crawl `seeds` to the end or to a signal, in this process (`<out>` already prepared and locked).
 * @returns exit code: 0 completed or stopped, 1 runtime failure, {@link DISK_FULL_EXIT_CODE} when a
 *   full disk stopped it.
 */
export async function runInProcess(opts: CrawlOptions, seeds: string[]): Promise<number> {
  const workerId = 'crawl-0';
  const { log, close: closeLog } = openWorkerLog(opts.out, workerId);
  const crawler = new Crawler(opts, {
    workerId,
    source: new CrawlSource(),
    log,
    backend: embeddedBackend(opts),
  });
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
  const offSignals = onStopSignals(
    (sig) => {
      log.info({ sig }, 'stopping');
      crawler.stop();
    },
    (sig) => {
      log.info({ sig }, 'abandoning in-flight requests');
      crawler.abort();
    },
  );
  let failed: unknown = null;
  try {
    await crawler.start(seeds);
    progress?.start();
    const completed = await crawler.run();
    log.info({ completed, ...crawler.stats }, completed ? 'frontier empty' : 'stopped');
  } catch (e) {
    log.error({ err: e }, 'crawl failed');
    failed = e;
  } finally {
    progress?.stop();
    await crawler.close().catch((e) => {
      failed ??= e;
    });
    offSignals();
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
    process.stderr.write(summaryLine(opts, { ...crawler.stats, queued: crawler.frontier.queued }));
  }
  return 0;
}
