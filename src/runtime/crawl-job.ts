/**
 * One `collector crawl` run: check the seeds and `--out`, take the lock, then crawl — in this
 * process when `--processes 1`, else under the supervisor with N worker processes. Progress on a
 * TTY; SIGINT/SIGTERM stop gracefully (a second signal abandons in-flight requests at once;
 * state stays consistent either way).
 */

import { SupervisorSettingsSchema } from '../config/config-file.js';
import {
  type CrawlOptions,
  type CrawlOptionsInput,
  pageThreadByDefault,
  parseCrawlOptions,
} from '../config/crawl-options.js';
import { UsageError } from '../config/usage-error.js';
import { diskFullLine } from '../sinks/disk-full.js';
import { launchRecord } from '../supervision/launch-record.js';
import { checkPlan, memoryLimitBytes, readMeasuredRss } from '../supervision/memory-guard.js';
import type { StatusFile } from '../supervision/status-format.js';
import { Supervisor, supervisorTimings } from '../supervision/supervisor.js';
import { defaultPartition, splitPoliteness, type WorkerSpec } from '../supervision/worker-spec.js';
import { canonicalize } from '../url/canonicalize.js';
import { openWorkerLog } from './logger.js';
import { startOpsServer } from './ops-server.js';
import { prepareOutput } from './output-dir.js';
import { lockOutput } from './output-lock.js';
import { checkAndRecordPlan } from './plan-record.js';
import { recordedPlan } from './plan-recovery.js';
import { ProgressLine } from './progress-line.js';
import { summaryLine } from './summary-line.js';
import { WORKER_ENTRY } from './worker-entry.js';

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

/**
 * Run a crawl to the end (or to a stop signal).
 * @returns the process exit code: 0 completed or stopped, 1 runtime failure, 75 stopped by a full
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
    if (was && input.processes === undefined) opts.processes = was.processes;
    if (was && input.partition === undefined && was.processes > 1) opts.partition = was.partition;
  }
  // Without a second core per process, a page thread costs memory and saves no time.
  opts.pageThread = input.pageThread ?? pageThreadByDefault(opts.processes);
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
    if (opts.processes > 1) return await runSupervised(opts, seeds, limit);
    // Loaded only here: the supervisor process of a multi-process crawl never loads the crawler.
    const { runInProcess } = await import('./crawl-in-process.js');
    return await runInProcess(opts, seeds, launchRecord('crawl', opts.out), limit);
  } finally {
    await unlock();
  }
}

/** The partition of a crawl: as given, else `url` for a single-host seed list, else `host`. */
export function partitionFor(opts: CrawlOptions, seeds: string[]): 'host' | 'url' {
  return opts.partition ?? defaultPartition(seeds);
}

/** Worker specs of a multi-process crawl: ownership by host, or by URL for a single-host site. */
export function crawlWorkerSpecs(opts: CrawlOptions, seeds: string[]): WorkerSpec[] {
  const n = opts.processes;
  const partition = partitionFor(opts, seeds);
  let perWorker: CrawlOptions = { ...opts, seeds, processes: 1 };
  if (partition === 'url') perWorker = splitPoliteness(perWorker, n);
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

async function runSupervised(opts: CrawlOptions, seeds: string[], limit: number): Promise<number> {
  const { log, close: closeLog } = openWorkerLog(opts.out, 'supervisor');
  const sup = new Supervisor(crawlWorkerSpecs(opts, seeds), {
    dataDir: opts.out,
    workerEntry: WORKER_ENTRY,
    log,
    memoryLimitBytes: limit,
    limitFraction: opts.memoryLimitFraction,
    ...supervisorTimings(SupervisorSettingsSchema.parse({})),
    joinTimeoutMs: opts.joinTimeout,
    launch: launchRecord('crawl', opts.out),
  });
  const metrics = await startOpsServer(opts.metrics, opts.out, () => sup.status() as unknown as StatusFile);
  const progress =
    !opts.quiet && process.stderr.isTTY
      ? new ProgressLine(() => {
          const t = sup.status().totals;
          return { items: t.items, errors: t.errors, bytes: 0, queued: t.queue, stopping: false };
        })
      : null;
  progress?.start();
  let code: number;
  try {
    code = await sup.runWithSignals();
  } finally {
    progress?.stop();
    await metrics?.close();
    await closeLog();
  }
  if (sup.diskFull !== null) {
    process.stderr.write(`collector: ${diskFullLine(sup.diskFull)}\n`);
    return code;
  }
  if (!opts.quiet) {
    const t = sup.status().totals;
    process.stderr.write(summaryLine(opts, { ...t, queued: t.queue }));
  }
  return code;
}
