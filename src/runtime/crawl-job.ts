/**
 * One `collector crawl` run: check the seeds and `--out`, take the lock, then crawl — in this
 * process when `--processes 1`, else under the supervisor with N worker processes. Progress on a
 * TTY; SIGINT/SIGTERM stop gracefully (a second signal abandons in-flight requests at once;
 * state stays consistent either way).
 */
import {
  type CrawlOptions,
  type CrawlOptionsInput,
  pageThreadByDefault,
  parseCrawlOptions,
} from '../config/crawl-options.js';
import { UsageError } from '../config/usage-error.js';
import { diskFullLine } from '../sinks/disk-full.js';
import { canonicalize, hostKey } from '../url/canonicalize.js';
import { openWorkerLog } from './logger.js';
import { checkPlan, memoryLimitBytes, readMeasuredRss } from './memory-guard.js';
import { lockOutput } from './output-lock.js';
import { prepareOutput } from './output-dir.js';
import { checkAndRecordPlan } from './plan-record.js';
import { recordedPlan } from './plan-recovery.js';
import { ProgressLine } from './progress-line.js';
import { SUPERVISOR_DEFAULTS, Supervisor, splitPoliteness, type WorkerSpec } from './supervisor.js';

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

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * Validate options as written.
 * @throws UsageError naming the flag (`--max-bytes: ...`).
 */
export function parseCrawlFlags(input: CrawlOptionsInput): CrawlOptions {
  try {
    return parseCrawlOptions(input);
  } catch (e) {
    const msg = (e as Error).message.replace(
      /(^|; )([A-Za-z]+)(\.\d+)?: /g,
      (_m, sep, key) => `${sep}--${kebab(key)}: `,
    );
    throw new UsageError(msg);
  }
}

export function summary(
  opts: CrawlOptions,
  items: number,
  total: number,
  errors: number,
  queued: number,
  skipped: Record<string, number>,
): string {
  const left = queued > 0 ? ' (stopped: --resume continues)' : '';
  const procs = opts.processes > 1 ? `, ${opts.processes} processes` : '';
  return (
    `collector: ${items} items this run (${total} total), ${errors} errors, ${queued} queued${left}` +
    `${skippedText(skipped)}${procs}, out ${opts.out}\n`
  );
}

/** `, links skipped: trap-length 1, trap-query 3` for the non-zero reasons, or nothing. */
function skippedText(skipped: Record<string, number>): string {
  const skips = Object.entries(skipped)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return skips ? `, links skipped: ${skips}` : '';
}

/**
 * Run a crawl to the end (or to a stop signal).
 * @returns the process exit code: 0 finished or stopped, 1 runtime failure, 75 stopped by a full
 *   disk (DISK_FULL_EXIT_CODE).
 * @throws UsageError for bad options or seeds or an unusable `--out` (exit 2, nothing touched).
 */
export async function runCrawl(input: CrawlOptionsInput): Promise<number> {
  const opts = parseCrawlFlags(input);
  // A lost or damaged state/plan.json is recovered from the state (or the resume refused).
  const recorded = opts.resume
    ? await recordedPlan(opts.out, { crawl: input.partition }, `--out ${opts.out}`)
    : {};
  if (opts.resume) {
    // Resume with the layout the crawl was written with, unless the flags say otherwise
    // (then checkAndRecordPlan refuses a change below).
    const was = recorded.crawl;
    if (was && input.processes === undefined) opts.processes = input.processes = was.processes;
    if (was && input.partition === undefined && was.processes > 1)
      opts.partition = input.partition = was.partition;
  }
  const given = canonicalSeeds(opts.seeds);
  const limit = opts.memoryLimit ?? memoryLimitBytes();
  // Also for one process (it has no supervisor to watch it at run time): a plan that cannot fit
  // the memory limit is refused before anything is written.
  const plan = [{ processes: opts.processes, concurrency: opts.concurrency }];
  checkPlan(plan, limit, opts.memoryLimitFraction, readMeasuredRss(opts.out));
  const seeds = await prepareOutput(opts.out, given, opts.resume);
  const unlock = await lockOutput(opts.out);
  try {
    const layout = { processes: opts.processes, partition: partitionFor(opts, seeds) };
    await checkAndRecordPlan(
      opts.out,
      { crawl: layout },
      (_t, was) =>
        `--out ${opts.out}: this crawl was written with --processes ${was.processes}` +
        `${was.processes > 1 ? ` --partition ${was.partition}` : ''}; resume with the same ` +
        '(they decide which process owns each URL), or start a new --out',
      recorded,
    );
    if (opts.processes > 1) return await runSupervised(input, opts, seeds, limit);
    // Loaded only here: the supervisor process of a multi-process crawl never loads the crawler.
    const { runInProcess } = await import('./crawl-in-process.js');
    return await runInProcess(opts, seeds);
  } finally {
    await unlock();
  }
}

/** The partition of a crawl: as given, else `url` for a single-host seed list, else `host`. */
export function partitionFor(opts: CrawlOptions, seeds: string[]): 'host' | 'url' {
  return opts.partition ?? (new Set(seeds.map((s) => hostKey(s))).size <= 1 ? 'url' : 'host');
}

/** Worker specs of a multi-process crawl: ownership by host, or by URL for a single-host site. */
export function crawlWorkerSpecs(
  input: CrawlOptionsInput,
  opts: CrawlOptions,
  seeds: string[],
): WorkerSpec[] {
  const n = opts.processes;
  const partition = partitionFor(opts, seeds);
  const perWorker: CrawlOptionsInput = {
    ...input,
    seeds,
    processes: 1,
    pageThread: input.pageThread ?? pageThreadByDefault(n),
  };
  if (partition === 'url') splitPoliteness(perWorker, n, opts.delay, opts.hostConcurrency);
  if (opts.maxPages !== undefined) perWorker.maxPages = Math.ceil(opts.maxPages / n);
  return Array.from({ length: n }, (_, i) => ({
    id: `crawl-${i}`,
    type: 'crawl',
    group: 'crawl',
    index: i,
    count: n,
    partition,
    options: perWorker,
    seeds,
  }));
}

async function runSupervised(
  input: CrawlOptionsInput,
  opts: CrawlOptions,
  seeds: string[],
  limit: number,
): Promise<number> {
  const { log, close: closeLog } = openWorkerLog(opts.out, 'supervisor');
  const sup = new Supervisor(crawlWorkerSpecs(input, opts, seeds), {
    dataDir: opts.out,
    log,
    memoryLimitBytes: limit,
    limitFraction: opts.memoryLimitFraction,
    ...SUPERVISOR_DEFAULTS,
    joinTimeoutMs: opts.joinTimeout,
  });
  const progress =
    !opts.quiet && process.stderr.isTTY
      ? new ProgressLine(() => {
          const t = sup.status().totals as Record<string, number>;
          return { items: t.items, errors: t.errors, bytes: 0, queued: t.queue, stopping: false };
        })
      : null;
  progress?.start();
  let code: number;
  try {
    code = await sup.runWithSignals();
  } finally {
    progress?.stop();
    await closeLog();
  }
  if (sup.diskFull !== null) {
    process.stderr.write(`collector: ${diskFullLine(sup.diskFull)}\n`);
    return code;
  }
  if (!opts.quiet) {
    const t = (sup.status() as { totals: Record<string, number> & { skipped: Record<string, number> } })
      .totals;
    process.stderr.write(summary(opts, t.itemsThisRun, t.items, t.errors, t.queue, t.skipped));
  }
  return code;
}
