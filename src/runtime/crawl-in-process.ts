/**
 * A crawl in this process (`--processes 1`): one Crawler on its backend, a progress line
 * on a TTY, status.json (and the metrics server, when asked for) as its own supervisor, and
 * stopping: by SIGINT/SIGTERM for the command line (first signal: graceful stop; second: abandon
 * in-flight requests), by an AbortSignal for the library.
 */
import { faultExitCode, type SharedCrawlFault } from '../backends/redis/redis-faults.js';
import type { CrawlOptions } from '../config/crawl-options.js';
import { Crawler } from '../engine/crawler.js';
import { DISK_FULL_EXIT_CODE, diskFullLine, diskFullPath, isDiskFull } from '../sinks/disk-full.js';
import type { LaunchRecord } from '../supervision/launch-record.js';
import { onStopSignals } from '../supervision/signals.js';
import { CounterSet } from '../supervision/worker-counters.js';
import { embeddedBackend } from './backend.js';
import type { CrawlEnd, StopControl } from './crawl-end-report.js';
import {
  collectedNothing,
  NOTHING_COLLECTED_EXIT_CODE,
  nothingCollectedLine,
  SOURCE_STOPPED_EXIT_CODE,
  sourceStoppedLine,
} from './exit-codes.js';
import { InProcessStatus } from './in-process-status.js';
import { openWorkerLog } from './logger.js';
import { startOpsServer } from './ops-server.js';
import { ProgressLine, printLine } from './progress-line.js';
import type { SharedBackend } from './shared-backend.js';
import type { SourceSetup } from './source-setup.js';

/** How a crawl in this process is set up beyond its options. */
export interface InProcessSetup {
  /** The configured seeds (canonical): `ctx.seeds`, and the first round without `seeds()`. */
  seeds: string[];
  source: SourceSetup;
  /** How this process was started (status.json, for the watchdog). */
  launch: LaunchRecord;
  /** The memory limit the plan was checked against (status.json). */
  memoryLimitBytes: number;
  /** With a shared backend (`opts.backend` not embedded): the crawl's id. */
  crawlId?: string;
}

/**
 * Crawl in this process to the end or to a stop (`<out>` already prepared and locked).
 * @returns the exit code (0 completed or stopped, 1 runtime failure or Redis out of memory past
 *   its bound, {@link DISK_FULL_EXIT_CODE} when a full disk stopped it,
 *   {@link SOURCE_STOPPED_EXIT_CODE} when the source stopped it (a credential refused),
 *   {@link NOTHING_COLLECTED_EXIT_CODE} when every seed failed, {@link CRAWL_LOST_EXIT_CODE} when
 *   the shared crawl's state in Redis was lost), the
 *   failure's line, and the counts.
 */
export async function runInProcess(
  opts: CrawlOptions,
  setup: InProcessSetup,
  control: StopControl,
): Promise<CrawlEnd> {
  const workerId = 'crawl-0';
  const { log, close: closeLog } = openWorkerLog(opts.out, workerId);
  const counters = new CounterSet();
  let status: InProcessStatus | null = null;
  // Before the crawler (and its threads) exist: a metrics address that cannot be used stops here.
  const metrics = await startOpsServer(opts.metrics, opts.out, () => (status as InProcessStatus).status());
  // The crawler, once made (the shared backend's heartbeat reads its counters).
  const live: { crawler?: Crawler } = {};
  // A fault of the shared crawl that stopped this machine (Redis out of memory, the state lost).
  const faulted: { fault: SharedCrawlFault | null } = { fault: null };
  const shared: SharedBackend | null =
    opts.backend === 'embedded'
      ? null
      : (await import('./shared-backend.js')).redisBackend(opts, setup.crawlId ?? 'default', {
          log,
          onStop: () => stop('stop asked through the shared backend'),
          // Said even with --quiet: the crawl is paused or stopping, and why.
          say: (line) => printLine(progress, line),
          onFatal: (f) => {
            faulted.fault ??= f;
            stop(f.message);
          },
          status: () => ({
            items: live.crawler?.stats.itemsThisRun ?? 0,
            errors: live.crawler?.stats.errors ?? 0,
            state: live.crawler?.isStopping ? 'stopping' : 'running',
          }),
        });
  const crawler = new Crawler(opts, {
    workerId,
    source: { ...setup.source, seeds: setup.seeds },
    log,
    backend: shared?.backend ?? embeddedBackend(opts),
    // With a shared backend, a source's rate budgets are the crawl's, in Redis.
    ...(shared === null ? {} : { rateBudgets: shared.rateBudgets }),
    onItem: (item) => {
      counters.item(item);
      if (status) status.lastProgressAt = Date.now();
    },
    onFetch: (ms) => counters.fetch(ms),
    onRateLimitWait: (ms) => counters.rateLimitWait(ms),
    onBudget: (event) => counters.budget(event),
    onSourceLog: (level) => counters.sourceLog(level),
    onWarning: (line) => {
      if (!opts.quiet) printLine(progress, line);
    },
  });
  live.crawler = crawler;
  status = new InProcessStatus(workerId, crawler, counters, opts, setup.launch, setup.memoryLimitBytes);
  const inProcess = status;
  if (shared !== null) inProcess.backendStatus = shared.status;
  const progress: ProgressLine | null =
    !opts.quiet && process.stderr.isTTY
      ? new ProgressLine(() => ({
          items: crawler.stats.items,
          errors: crawler.stats.errors,
          bytes: crawler.stats.bytes,
          queued: crawler.frontier.queued,
          stopping: crawler.isStopping,
        }))
      : null;
  let onStopped = () => {};
  const stopped = new Promise<void>((r) => {
    onStopped = r;
  });
  let stoppedBy: string | null = null;
  const stop = (why: string) => {
    stoppedBy ??= why;
    onStopped();
    log.info({ why }, 'stopping');
    inProcess.stopping();
    crawler.stop();
  };
  const offSignals = control.handleSignals
    ? onStopSignals(
        (sig) => stop(sig),
        (sig) => {
          log.info({ sig }, 'abandoning in-flight requests');
          crawler.abort();
        },
      )
    : () => {};
  const onAbort = () => stop('aborted');
  control.signal?.addEventListener('abort', onAbort, { once: true });
  let failed: unknown = null;
  let completed = false;
  try {
    // Before the state is loaded (long for a big resume): a watchdog must see this process alive.
    inProcess.start();
    // Joining waits while Redis is unavailable; a stop meanwhile ends the wait.
    if (shared !== null) await Promise.race([shared.start(), stopped]);
    await crawler.start();
    if (control.signal?.aborted) stop('aborted');
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
    control.signal?.removeEventListener('abort', onAbort);
    await inProcess.end(
      completed && failed === null,
      failed !== null && isDiskFull(failed) ? diskFullPath(failed, opts.out) : null,
    );
    await metrics?.close();
    await closeLog();
  }
  let code = 0;
  let failure: string | null = null;
  const { fault } = faulted;
  if (fault !== null) {
    // The shared crawl's fault is the cause, whatever the stop it led to.
    code = faultExitCode(fault.kind);
    failure = fault.message;
  } else if (failed !== null) {
    if (isDiskFull(failed)) {
      code = DISK_FULL_EXIT_CODE;
      failure = diskFullLine(diskFullPath(failed, opts.out));
    } else {
      code = 1;
      failure = `crawl failed: ${(failed as Error).message}`;
    }
  }
  const s = crawler.stats;
  const stoppedBySource = crawler.stoppedBySource;
  if (code === 0 && stoppedBySource !== null) {
    // The source cannot go on (a credential refused): a code of its own, the line saying why.
    code = SOURCE_STOPPED_EXIT_CODE;
    failure = sourceStoppedLine(setup.source.loaded.def.name, stoppedBySource);
  }
  // Every seed failed (and nothing else went wrong): a code of its own, and the line saying why.
  if (code === 0 && collectedNothing(s, !completed)) {
    code = NOTHING_COLLECTED_EXIT_CODE;
    failure = nothingCollectedLine(s.failedSeeds);
  }
  return {
    code,
    failure,
    completed,
    stopped: stoppedBy !== null,
    totals: {
      items: s.items,
      itemsThisRun: s.itemsThisRun,
      errors: s.errors,
      bytes: s.bytes,
      // Abandoned in flight by a second signal: pending too, --resume fetches them.
      queued: crawler.pending,
      skipped: s.skipped,
      sourceWarnings: s.sourceWarnings,
      sourceErrors: s.sourceErrors,
    },
  };
}
