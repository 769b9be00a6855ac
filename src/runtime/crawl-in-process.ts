/**
 * A crawl in this process (`--processes 1`): one Crawler, a progress line on a TTY, and signal
 * handling (first signal: graceful stop; second: abandon in-flight requests).
 */
import type { CrawlOptions } from '../config/crawl-options.js';
import { CrawlSource } from '../sources/crawl.js';
import type { LaunchRecord } from '../supervision/launch-record.js';
import { CounterSet } from '../supervision/worker-counters.js';
import { summary } from './crawl-job.js';
import { Crawler } from './crawler.js';
import { InProcessStatus } from './in-process-status.js';
import { openWorkerLog } from './logger.js';
import { startOpsServer } from './ops-server.js';
import { ProgressLine } from './progress-line.js';

/**
 * Crawl `seeds` to the end or to a signal, in this process (`<out>` already prepared and locked).
 * @returns exit code: 0 finished or stopped, 1 runtime failure.
 */
export async function runInProcess(
  opts: CrawlOptions,
  seeds: string[],
  launch: LaunchRecord,
  memoryLimitBytes: number,
): Promise<number> {
  const workerId = 'crawl-0';
  const { log, close: closeLog } = openWorkerLog(opts.out, workerId);
  const counters = new CounterSet();
  let status: InProcessStatus | null = null;
  // Before the crawler (and its threads) exist: a metrics address that cannot be used stops here.
  const metrics = await startOpsServer(opts.metrics, opts.out, () => (status as InProcessStatus).status());
  const crawler = new Crawler(opts, {
    workerId,
    source: new CrawlSource(),
    log,
    onItem: (item) => {
      counters.item(item);
      if (status) status.lastProgressAt = Date.now();
    },
    onFetch: (ms) => counters.fetch(ms),
    onRateLimitWait: (ms) => counters.rateLimitWait(ms),
  });
  status = new InProcessStatus(workerId, crawler, counters, opts, launch, memoryLimitBytes);
  const inProcess = status;
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
    inProcess.stopping();
    if (signals === 1) crawler.stop();
    else crawler.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let code = 0;
  let finished = false;
  try {
    // Before the state is loaded (long for a big resume): a watchdog must see this process alive.
    inProcess.start();
    await crawler.start(seeds);
    progress?.start();
    finished = await crawler.run();
    log.info({ finished, ...crawler.stats }, finished ? 'frontier empty' : 'stopped');
  } catch (e) {
    log.error({ err: e }, 'crawl failed');
    process.stderr.write(`collector: crawl failed: ${(e as Error).message}\n`);
    code = 1;
  } finally {
    progress?.stop();
    await crawler.close().catch((e) => {
      process.stderr.write(`collector: closing state failed: ${(e as Error).message}\n`);
      code = 1;
    });
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await inProcess.end(finished && code === 0);
    await metrics?.close();
    await closeLog();
  }
  if (!opts.quiet) {
    const s = crawler.stats;
    process.stderr.write(
      summary(opts, s.itemsThisRun, s.items, s.errors, crawler.frontier.queued, s.skipped),
    );
  }
  return code;
}
