/**
 * One `collector crawl` run in this process: check the seeds and `--out`, take the lock, run a
 * crawl worker, show progress on a TTY, and stop gracefully on SIGINT/SIGTERM (a second signal
 * abandons in-flight requests at once; state stays consistent either way).
 */
import type { CrawlOptions } from '../config/crawl-options.js';
import { UsageError } from '../config/usage-error.js';
import { CrawlSource } from '../sources/crawl.js';
import { canonicalize } from '../url/canonicalize.js';
import { Crawler } from './crawler.js';
import { openWorkerLog } from './logger.js';
import { lockOutput, prepareOutput } from './output-dir.js';
import { ProgressLine } from './progress-line.js';

/**
 * Canonicalize seed URLs.
 * @throws UsageError naming the first seed that is not an absolute http(s) URL.
 */
export function canonicalSeeds(seeds: string[]): string[] {
  return seeds.map((s) => {
    const c = /^https?:\/\//i.test(s.trim()) ? canonicalize(s) : null;
    if (c === null) throw new UsageError(`bad URL "${s}": expected an absolute http:// or https:// URL`);
    return c;
  });
}

/**
 * Run a crawl to the end (or to a stop signal).
 * @returns the process exit code: 0 finished or stopped, 1 runtime failure.
 * @throws UsageError for bad seeds or an unusable `--out` (exit 2, nothing touched).
 */
export async function runCrawl(opts: CrawlOptions): Promise<number> {
  const given = canonicalSeeds(opts.seeds);
  const seeds = await prepareOutput(opts.out, given, opts.resume);
  const unlock = await lockOutput(opts.out);
  const workerId = 'crawl-0';
  const { log, close: closeLog } = openWorkerLog(opts.out, workerId);
  const crawler = new Crawler(opts, { workerId, source: new CrawlSource(), log });
  const progress = !opts.quiet && process.stderr.isTTY ? new ProgressLine(crawler) : null;
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    log.info({ sig }, signals === 1 ? 'stopping' : 'abandoning in-flight requests');
    if (signals === 1) crawler.stop();
    else crawler.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let code = 0;
  try {
    await crawler.start(seeds);
    progress?.start();
    const finished = await crawler.run();
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
    closeLog();
    await unlock();
  }
  if (!opts.quiet) {
    const s = crawler.stats;
    process.stderr.write(
      `collector: ${s.itemsThisRun} items this run (${s.items} total), ${s.errors} errors, ` +
        `${crawler.frontier.queued} queued, out ${opts.out}\n`,
    );
  }
  return code;
}
