/**
 * One crawl (`collector crawl`, or the library's `crawl()`): check the options, seeds, source and
 * `--out`, take the lock, then crawl — in this process when `--processes 1`, else under the
 * supervisor with N worker processes. Progress on a TTY; SIGINT/SIGTERM (or the library's
 * AbortSignal) stop gracefully (a second signal abandons in-flight requests at once; state stays
 * consistent either way).
 */

import { redactRedisUrl } from '../backends/redis/redis-address.js';
import { SupervisorSettingsSchema } from '../config/config-file.js';
import {
  type CrawlOptions,
  type CrawlOptionsInput,
  ONE_SHOT_PARSE,
  pageThreadByDefault,
  pageThreadsByDefault,
  parseCrawlOptions,
} from '../config/crawl-options.js';
import { UsageError } from '../config/usage-error.js';
import { chromiumPath, NO_CHROMIUM_MESSAGE } from '../http/chromium.js';
import { diskFullLine } from '../sinks/disk-full.js';
import { describeRef, sourceRef } from '../sources/load-source.js';
import type { SourceDefinition } from '../sources/source.js';
import { type LaunchRecord, launchRecord } from '../supervision/launch-record.js';
import { checkPlan, memoryLimitBytes, readMeasuredRss } from '../supervision/memory-guard.js';
import type { StatusFile } from '../supervision/status-format.js';
import { Supervisor, supervisorTimings } from '../supervision/supervisor.js';
import type { WorkerCounters } from '../supervision/worker-counters.js';
import { defaultPartition, splitPoliteness, type WorkerSpec } from '../supervision/worker-spec.js';
import { canonicalize } from '../url/canonicalize.js';
import type { CrawlEnd, StopControl } from './crawl-end-report.js';
import { defaultCrawlId } from './crawl-id.js';
import { checkCredentials } from './credential-check.js';
import { collectedNothing, NOTHING_COLLECTED_EXIT_CODE, nothingCollectedLine } from './exit-codes.js';
import { openWorkerLog } from './logger.js';
import { startOpsServer } from './ops-server.js';
import { firstMissing, prepareOutput, readCrawlRecord, removeIfCreated } from './output-dir.js';
import { lockOutput, refuseIfInUse } from './output-lock.js';
import { checkAndRecordPlan } from './plan-record.js';
import { recordedPlan } from './plan-recovery.js';
import { ProgressLine, printLine } from './progress-line.js';
import { type SourceSetup, setUpSource } from './source-setup.js';
import { summaryLine } from './summary-line.js';
import { WORKER_ENTRY } from './worker-entry.js';

/** What a crawl takes beyond its options. */
export interface CrawlSourceChoice {
  /** A built-in name, a module path (relative to the current directory) or a definition. Default `crawl`. */
  source?: string | SourceDefinition;
  /** The source's options as written. */
  sourceOptions?: Record<string, unknown>;
  /** How the options are named in messages: `--source-option ` (CLI) or `sourceOptions.` (library). */
  optionsPrefix?: string;
}

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
 * Run a crawl to the end (or to a stop signal), from the command line: a failure is one line on
 * stderr.
 * @returns the process exit code: 0 completed or stopped, 1 runtime failure, 75 stopped by a full
 *   disk (DISK_FULL_EXIT_CODE), 69 nothing collected (every seed failed: {@link NOTHING_COLLECTED_EXIT_CODE}).
 * @throws UsageError for bad options, seeds or source, or an unusable `--out` (exit 2, nothing touched).
 */
export async function runCrawl(input: CrawlOptionsInput, choice: CrawlSourceChoice = {}): Promise<number> {
  const end = await runCrawlJob(input, choice, { handleSignals: true });
  if (end.failure !== null) process.stderr.write(`collector: ${end.failure}\n`);
  return end.code;
}

/**
 * Run a crawl to the end or to a stop; prints the summary line unless `quiet` or it failed (but
 * when every seed failed).
 * @throws UsageError as {@link runCrawl}.
 */
export async function runCrawlJob(
  input: CrawlOptionsInput,
  choice: CrawlSourceChoice,
  control: StopControl,
): Promise<CrawlEnd> {
  // A source given as an object can only run here: one process unless told otherwise.
  const objectSource = choice.source !== undefined && typeof choice.source !== 'string';
  if (objectSource && input.processes === undefined) input = { ...input, processes: 1 };
  // A shared backend: one process per collector unless told (each process is a machine of the crawl).
  if (input.backend !== undefined && input.backend !== 'embedded' && input.processes === undefined) {
    input = { ...input, processes: 1 };
  }
  const opts = parseCrawlFlags(input);
  if (opts.backend !== 'embedded' && opts.interval !== undefined) {
    throw new UsageError(
      '--backend redis://…: a crawl with rounds (interval) through Redis is a `collector run` config (backend: and interval:); crawl once per start',
    );
  }
  if (opts.backend === 'embedded' && opts.seenSet !== 'exact') {
    throw new UsageError(
      '--seen-set bloom: needs a shared backend (--backend redis://…); the embedded seen-set is exact',
    );
  }
  if (opts.render !== 'never' && chromiumPath() === null) throw new UsageError(NO_CHROMIUM_MESSAGE);
  if (objectSource && opts.processes > 1) {
    throw new UsageError(
      'a source given as an object runs in this process only: use processes: 1, or give the path of its module',
    );
  }
  // A usage error found once `--out` was made (a metrics address in use...) removes it again.
  return removeIfCreated(await firstMissing(opts.out), () => crawlWith(opts, input, choice, control));
}

async function crawlWith(
  opts: CrawlOptions,
  input: CrawlOptionsInput,
  choice: CrawlSourceChoice,
  control: StopControl,
): Promise<CrawlEnd> {
  const record = opts.resume ? await readCrawlRecord(opts.out) : null;
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
  const setup = await chooseSource(choice, record);
  // Without a second core per process, a page thread costs memory and saves no time.
  opts.pageThread = input.pageThread ?? pageThreadByDefault(opts.processes);
  opts.pageThreads = input.pageThreads ?? pageThreadsByDefault(opts.processes);
  const given = canonicalSeeds(opts.seeds);
  const limit = opts.memoryLimit ?? memoryLimitBytes();
  // Also for one process (it has no supervisor to watch it at run time): a plan that cannot fit
  // the memory limit is refused before anything is written.
  const renderPages = opts.render === 'never' ? 0 : opts.renderConcurrency;
  const plan = [{ processes: opts.processes, concurrency: opts.concurrency, renderPages }];
  checkPlan(plan, limit, opts.memoryLimitFraction, readMeasuredRss(opts.out));
  const ref = setup.loaded.ref;
  // The real reason first: a collector running on --out (not "add --resume").
  await refuseIfInUse(opts.out);
  const seeds = await prepareOutput(opts.out, given, opts.resume, {
    source: ref === null || (ref.kind === 'builtin' && ref.name === 'crawl') ? undefined : describeRef(ref),
    sourceOptions: Object.keys(setup.rawOptions).length > 0 ? setup.rawOptions : undefined,
    seedsOptional: setup.loaded.def.seeds !== undefined,
  });
  const unlock = await lockOutput(opts.out);
  let end: CrawlEnd;
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
    const crawlId = sharedCrawlId(opts, seeds, ref === null ? 'object' : describeRef(ref));
    if (opts.processes > 1) end = await runSupervised({ ...opts, crawlId }, seeds, limit, setup, control);
    else {
      // Loaded only here: the supervisor process of a multi-process crawl never loads the crawler.
      const { runInProcess } = await import('./crawl-in-process.js');
      const launch = crawlLaunch(opts, setup);
      end = await runInProcess(
        opts,
        { seeds, source: setup, launch, memoryLimitBytes: limit, crawlId },
        control,
      );
    }
  } finally {
    await unlock();
  }
  // Every seed failed: the summary still says what was done, then the failure line says why.
  const summarized = end.failure === null || end.code === NOTHING_COLLECTED_EXIT_CODE;
  if (!opts.quiet && summarized)
    process.stderr.write(summaryLine(opts, end.totals, continuesText(opts, end)));
  return end;
}

/**
 * What the summary says of the URLs left: `--resume continues` them, unless the page budget
 * ended the crawl — then that is said, with each process's share (`--max-pages` is split evenly
 * among the processes, and a process stops at its share while others may have had fewer pages).
 */
export function continuesText(opts: Pick<CrawlOptions, 'maxPages' | 'processes'>, end: CrawlEnd): string {
  if (opts.maxPages === undefined || end.stopped === true) return '--resume continues';
  const n = opts.processes;
  const share =
    n > 1
      ? ` (${Math.ceil(opts.maxPages / n)} per process over ${n} processes: each stops at its share)`
      : '';
  return `--max-pages ${opts.maxPages} reached${share}; --resume with a larger --max-pages or none continues`;
}

/**
 * The crawl's source: as chosen, else (on resume) the one it was written with, else `crawl`. A
 * resume with another source than the recorded one is refused: labels and options would change
 * meaning.
 * @throws UsageError (see `setUpSource`).
 */
async function chooseSource(
  choice: CrawlSourceChoice,
  record: { source?: string; sourceOptions?: Record<string, unknown> } | null,
): Promise<SourceSetup> {
  const cwd = process.cwd();
  const recorded = record?.source ?? (record !== null ? 'crawl' : undefined);
  let spec = choice.source;
  if (typeof spec === 'string' && recorded !== undefined) {
    const now = describeRef(sourceRef(spec, cwd));
    if (now !== recorded) {
      throw new UsageError(
        `--source ${spec}: this crawl was written with --source ${recorded}; resume with the same, or start a new --out`,
      );
    }
  }
  spec ??= recorded ?? 'crawl';
  const raw = choice.sourceOptions ?? record?.sourceOptions ?? {};
  return setUpSource(spec, cwd, raw, { prefix: choice.optionsPrefix ?? '--source-option ', base: [] });
}

/**
 * The crawl id of a crawl on a shared backend (`--crawl-id`, else derived from seeds, scope and
 * source), told on stderr so that more collectors, `status` and `stop` can name it; undefined for
 * the embedded backend.
 */
function sharedCrawlId(opts: CrawlOptions, seeds: string[], source: string): string | undefined {
  if (opts.backend === 'embedded') return undefined;
  const id = opts.crawlId ?? defaultCrawlId(seeds, opts.scope, source);
  if (!opts.quiet) process.stderr.write(`collector: crawl id ${id} on ${redactRedisUrl(opts.backend)}\n`);
  return id;
}

/** The partition of a crawl: as given, else `url` for a single-host seed list, else `host`. */
export function partitionFor(opts: CrawlOptions, seeds: string[]): 'host' | 'url' {
  return opts.partition ?? defaultPartition(seeds);
}

/** The launch record of a crawl, with the credentials its source names that are unset (said on stderr). */
function crawlLaunch(opts: CrawlOptions, setup: SourceSetup): LaunchRecord {
  const env = setup.loaded.def.credentialEnv?.(setup.options) ?? [];
  return checkCredentials(launchRecord('crawl', opts.out), [{ type: 'crawl', env }]);
}

/** Worker specs of a multi-process crawl: ownership by host, or by URL for a single-host site. */
export function crawlWorkerSpecs(opts: CrawlOptions, seeds: string[], setup: SourceSetup): WorkerSpec[] {
  const n = opts.processes;
  const partition = partitionFor(opts, seeds);
  const ref = setup.loaded.ref;
  if (ref === null) throw new UsageError('a source given as an object runs in this process only');
  let perWorker: CrawlOptions = { ...opts, seeds, processes: 1 };
  // Through a shared backend the politeness clock is shared by the processes: nothing to split.
  if (partition === 'url' && opts.backend === 'embedded') perWorker = splitPoliteness(perWorker, n);
  if (opts.maxPages !== undefined) perWorker.maxPages = Math.ceil(opts.maxPages / n);
  return Array.from({ length: n }, (_, i) => ({
    id: `crawl-${i}`,
    type: setup.loaded.def.name,
    group: 'crawl',
    index: i,
    count: n,
    partition,
    options: perWorker,
    seeds,
    source: ref,
    sourceOptions: setup.rawOptions,
  }));
}

async function runSupervised(
  opts: CrawlOptions,
  seeds: string[],
  limit: number,
  setup: SourceSetup,
  control: StopControl,
): Promise<CrawlEnd> {
  const { log, close: closeLog } = openWorkerLog(opts.out, 'supervisor');
  const sup = new Supervisor(crawlWorkerSpecs(opts, seeds, setup), {
    dataDir: opts.out,
    workerEntry: WORKER_ENTRY,
    log,
    memoryLimitBytes: limit,
    limitFraction: opts.memoryLimitFraction,
    ...supervisorTimings(SupervisorSettingsSchema.parse({}, ONE_SHOT_PARSE)),
    joinTimeoutMs: opts.joinTimeout,
    launch: crawlLaunch(opts, setup),
    onWarning: (line) => {
      if (!opts.quiet) printLine(progress, line);
    },
  });
  const metrics = await startOpsServer(opts.metrics, opts.out, () => sup.status() as unknown as StatusFile);
  const progress: ProgressLine | null =
    !opts.quiet && process.stderr.isTTY
      ? new ProgressLine(() => {
          const t = sup.status().totals;
          return { items: t.items, errors: t.errors, bytes: 0, queued: t.queue, stopping: false };
        })
      : null;
  progress?.start();
  let code: number;
  try {
    code = await superviseUntilDone(sup, control);
  } finally {
    progress?.stop();
    await metrics?.close();
    await closeLog();
  }
  return supervisedEnd(sup, code);
}

/**
 * Whether a supervised crawl or run completed, what stopped it (a full disk; every seed failed),
 * and its totals (over every worker and restart).
 * @param code the supervisor's exit code: a code of 0 becomes {@link NOTHING_COLLECTED_EXIT_CODE}
 *   when every seed failed.
 */
export function supervisedEnd(sup: Supervisor, code = 0): CrawlEnd {
  const status = sup.status();
  const t = status.totals as typeof status.totals & { counters?: WorkerCounters };
  const c = t.counters;
  // Killed workers (second signal) sent no last report: what was in flight is pending too.
  const inFlight = sup.wasKilled ? status.workers.reduce((a, w) => a + w.inFlight, 0) : 0;
  const nothing =
    sup.diskFull === null && sup.sharedFault === null && code === 0 && collectedNothing(t, sup.wasStopped);
  return {
    code: nothing ? NOTHING_COLLECTED_EXIT_CODE : code,
    failure:
      sup.diskFull !== null
        ? diskFullLine(sup.diskFull)
        : sup.sharedFault !== null
          ? sup.sharedFault.message
          : nothing
            ? nothingCollectedLine(sup.failedSeeds())
            : // A worker type its source stopped was said when it happened, once (supervisor).
              null,
    // `finished`, not `stopped`: the plan ended by itself.
    completed: t.queue === 0 && status.state === 'finished',
    stopped: sup.wasStopped,
    totals: {
      ...t,
      queued: t.queue + inFlight,
      bytes: c?.bytes ?? 0,
      sourceWarnings: c?.sourceWarnings ?? 0,
      sourceErrors: c?.sourceErrors ?? 0,
    },
  };
}

/** Run the supervisor to its end: with signal handling (CLI), and/or stopped by the AbortSignal. */
export async function superviseUntilDone(sup: Supervisor, control: StopControl): Promise<number> {
  const onAbort = () => sup.stop();
  control.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const done = control.handleSignals ? sup.runWithSignals() : sup.run();
    if (control.signal?.aborted) sup.stop();
    return await done;
  } finally {
    control.signal?.removeEventListener('abort', onAbort);
  }
}
