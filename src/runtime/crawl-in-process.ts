/**
 * A crawl in this process (`--processes 1`): one Crawler on the embedded backend, a progress line
 * on a TTY, signal handling (first signal: graceful stop; second: abandon in-flight requests),
 * and status.json (and the metrics server, when asked for) as its own supervisor.
 */
import type { CrawlOptions } from '../config/crawl-options.js';
import { Crawler } from '../engine/crawler.js';
import { DISK_FULL_EXIT_CODE, diskFullLine, diskFullPath, isDiskFull } from '../sinks/disk-full.js';
import { CrawlSource } from '../sources/crawl.js';
import type { LaunchRecord } from '../supervision/launch-record.js';
import { onStopSignals } from '../supervision/signals.js';
import { CounterSet } from '../supervision/worker-counters.js';
import { embeddedBackend } from './backend.js';
import { InProcessStatus } from './in-process-status.js';
import { openWorkerLog } from './logger.js';
import { startOpsServer } from './ops-server.js';
import { ProgressLine } from './progress-line.js';
import { summaryLine } from './summary-line.js';

/**
 * Crawl `seeds` to the end or to a signal, in this process (`<out>` already prepared and locked).
 * @param launch how this process was started (status.json, for the watchdog).
 * @param memoryLimitBytes the memory limit the plan was checked against (status.json).
 * @returns exit code: 0 completed or stopped, 1 runtime failure, {@link DISK_FULL_EXIT_CODE} when a
 *   full disk stopped it.
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
    backend: embeddedBackend(opts),
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
  const offSignals = onStopSignals(
    (sig) => {
      log.info({ sig }, 'stopping');
      inProcess.stopping();
      crawler.stop();
    },
    (sig) => {
      log.info({ sig }, 'abandoning in-flight requests');
      crawler.abort();
    },
  );
  let failed: unknown = null;
  let completed = false;
  try {
    // Before the state is loaded (long for a big resume): a watchdog must see this process alive.
    inProcess.start();
    await crawler.start(seeds);
    progress?.start();
    completed = await crawler.run();
    log.info({ completed, ...crawler.stats }, completed ? 'frontier empty' : 'stopped');
  } catch (e) {
    log.error({ err: e }, 'crawl failed');
    failed = e;
  } finally {
    progress?.stop();
    await crawler.close().catch((e) => {
      failed ??= e;
    });
    // A full disk stops the crawl with its own line and exit code; any other failure is exit 1.
    failed = crawler.writeError ?? failed;
    offSignals();
    await inProcess.end(completed && failed === null);
    await metrics?.close();
    await closeLog();
  }
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
