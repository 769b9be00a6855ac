/**
 * A crawl in this process (`--processes 1`): one Crawler on the embedded backend, a progress line
 * on a TTY, and stopping: by SIGINT/SIGTERM for the command line (first signal: graceful stop;
 * second: abandon in-flight requests), by an AbortSignal for the library.
 */
import type { CrawlOptions } from '../config/crawl-options.js';
import { Crawler } from '../engine/crawler.js';
import { onStopSignals } from '../supervision/signals.js';
import { embeddedBackend } from './backend.js';
import type { CrawlEnd, StopControl } from './crawl-end-report.js';
import { openWorkerLog } from './logger.js';
import { ProgressLine } from './progress-line.js';
import type { SourceSetup } from './source-setup.js';

/**
 * Crawl in this process to the end or to a stop (`<out>` already prepared and locked).
 * @param seeds the configured seeds (canonical): `ctx.seeds`, and the first round without `seeds()`.
 * @returns the exit code (0 completed or stopped, 1 runtime failure) and the counts.
 */
export async function runInProcess(
  opts: CrawlOptions,
  seeds: string[],
  setup: SourceSetup,
  control: StopControl,
): Promise<CrawlEnd> {
  const workerId = 'crawl-0';
  const { log, close: closeLog } = openWorkerLog(opts.out, workerId);
  const crawler = new Crawler(opts, {
    workerId,
    source: { ...setup, seeds },
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
  const stop = (why: string) => {
    log.info({ why }, 'stopping');
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
  let code = 0;
  let completed = false;
  try {
    await crawler.start();
    if (control.signal?.aborted) crawler.stop();
    progress?.start();
    completed = await crawler.run();
    log.info({ completed, ...crawler.stats }, completed ? 'frontier empty' : 'stopped');
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
    offSignals();
    control.signal?.removeEventListener('abort', onAbort);
    await closeLog();
  }
  const s = crawler.stats;
  return {
    code,
    completed,
    totals: {
      items: s.items,
      itemsThisRun: s.itemsThisRun,
      errors: s.errors,
      bytes: s.bytes,
      queued: crawler.frontier.queued,
      skipped: s.skipped,
      sourceWarnings: s.sourceWarnings,
      sourceErrors: s.sourceErrors,
    },
  };
}
