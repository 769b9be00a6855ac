/**
 * `collector run`: continuous multi-source collection from a config file. Every worker type runs
 * `processes` worker processes under one supervisor; state lives in `<data>` and a restart
 * continues where the last run stopped.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { redactRedisUrl } from '../backends/redis/redis-address.js';
import { type Config, WORKER_COMMON_KEYS } from '../config/config-file.js';
import { type CrawlOptions, pageThreadByDefault, pageThreadsByDefault } from '../config/crawl-options.js';
import { UsageError } from '../config/usage-error.js';
import { chromiumPath, NO_CHROMIUM_MESSAGE } from '../http/chromium.js';
import { notify } from '../ops/notify.js';
import {
  describeRef,
  type LoadedSource,
  loadSource,
  type SourceRef,
  sourceRef,
} from '../sources/load-source.js';
import { parseSourceOptions } from '../sources/source-options.js';
import { launchRecord } from '../supervision/launch-record.js';
import { checkPlan, memoryLimitBytes, readMeasuredRss } from '../supervision/memory-guard.js';
import type { StatusFile } from '../supervision/status-format.js';
import { Supervisor, supervisorTimings } from '../supervision/supervisor.js';
import { defaultPartition, splitPoliteness, type WorkerSpec } from '../supervision/worker-spec.js';
import type { CrawlEnd, StopControl } from './crawl-end-report.js';
import { typeCrawlId } from './crawl-id.js';
import { canonicalSeeds, supervisedEnd, superviseUntilDone } from './crawl-job.js';
import { checkCredentials } from './credential-check.js';
import { NOTHING_COLLECTED_EXIT_CODE } from './exit-codes.js';
import { openWorkerLog } from './logger.js';
import { startOpsServer } from './ops-server.js';
import {
  firstMissing,
  makeDirectory,
  readCrawlRecord,
  refuseLinks,
  removeIfCreated,
  unusableDirectory,
} from './output-dir.js';
import { lockOutput, refuseIfInUse } from './output-lock.js';
import { checkAndRecordPlan, type PlanRecord, type TypeLayout } from './plan-record.js';
import { recordedPlan } from './plan-recovery.js';
import { ProgressLine, printLine } from './progress-line.js';
import { type SourceSetup, withPaths } from './source-setup.js';
import { summaryLine } from './summary-line.js';
import { WORKER_ENTRY } from './worker-entry.js';

function describeLayout(l: TypeLayout): string {
  return `processes: ${l.processes}${l.processes > 1 ? `, partition: ${l.partition}` : ''}`;
}

/** Options of `collector run` beyond the config file. */
export interface RunFlags {
  /** Overrides `memory.limit` (simulate a smaller box). */
  memoryLimit?: number;
  quiet?: boolean;
  /** What the config's module paths (`source: ./x.mjs`) are relative to: the config file's directory. */
  baseDir: string;
  /** The config file's path (recorded for the watchdog, which reads its notify settings). */
  configFile?: string;
}

/**
 * Worker specs for a config: each worker type's source loaded and its options parsed (the keys
 * beside the common ones), ids `<type>-<i>`, where the type is its `name`, else the source's name
 * (suffixed with its position when a source appears twice).
 * @param baseDir what module paths are relative to (the config file's directory).
 * @throws UsageError for a source that cannot be loaded, an unknown key, an option or seed the
 *   schemas refuse; messages start with `workers[i]`.
 */
export async function runWorkerSpecs(config: Config, baseDir: string): Promise<WorkerSpec[]> {
  const specs: WorkerSpec[] = [];
  const totalProcesses = config.workers.reduce((a, w) => a + w.processes, 0);
  const setups: SourceSetup[] = [];
  for (const [t, w] of config.workers.entries()) setups.push(await workerSource(w, t, baseDir));
  const counts = new Map<string, number>();
  for (const s of setups) counts.set(s.loaded.def.name, (counts.get(s.loaded.def.name) ?? 0) + 1);
  config.workers.forEach((w, t) => {
    const setup = setups[t];
    const def = setup.loaded.def;
    const ref = setup.loaded.ref as SourceRef;
    const group = w.name ?? ((counts.get(def.name) ?? 0) > 1 ? `${def.name}${t}` : def.name);
    if (specs.some((s) => s.group === group)) {
      throw new UsageError(
        `workers[${t}].name: "${group}" is used by another worker type; give each a different name`,
      );
    }
    let seeds: string[];
    try {
      seeds = canonicalSeeds(w.seeds);
    } catch (e) {
      throw new UsageError(`workers[${t}].seeds: ${(e as Error).message}`);
    }
    if (seeds.length === 0 && def.seeds === undefined) {
      throw new UsageError(
        `workers[${t}].seeds: expected at least one seed URL (source ${def.name} has no seeds())`,
      );
    }
    const common: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(w)) if (WORKER_COMMON_KEYS.has(k)) common[k] = v;
    const { source: _s, processes: n, name: _n, pageThread, pageThreads, ...crawlKeys } = common as typeof w;
    const partition = w.partition ?? defaultPartition(seeds);
    const shared = config.backend !== 'embedded';
    let options: CrawlOptions = {
      ...crawlKeys,
      backend: config.backend,
      crawlId: shared ? typeCrawlId(config.crawlId, group, seeds, w.scope, describeRef(ref)) : undefined,
      seeds,
      out: config.data,
      resume: true,
      quiet: true,
      processes: 1,
      // Without a second core per process, a page thread costs memory and saves no time.
      pageThread: pageThread ?? pageThreadByDefault(totalProcesses),
      pageThreads: pageThreads ?? pageThreadsByDefault(totalProcesses),
    };
    // Through Redis the politeness clock is shared by the type's processes: nothing to split.
    if (partition === 'url' && !shared) options = splitPoliteness(options, n);
    for (let i = 0; i < n; i++) {
      specs.push({
        id: `${group}-${i}`,
        type: def.name,
        group,
        index: i,
        count: n,
        partition,
        options,
        seeds,
        intervalMs: w.interval,
        source: ref,
        sourceOptions: setup.rawOptions,
        credentialEnv: def.credentialEnv?.(setup.options) ?? [],
      });
    }
  });
  return specs;
}

/**
 * Load worker type `t`'s source and parse its own keys.
 * @throws UsageError starting with `workers[t]`.
 */
async function workerSource(w: Config['workers'][number], t: number, baseDir: string): Promise<SourceSetup> {
  const own: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(w)) if (!WORKER_COMMON_KEYS.has(k)) own[k] = v;
  let loaded: LoadedSource;
  try {
    loaded = await loadSource(sourceRef(w.source, baseDir));
  } catch (e) {
    throw new UsageError(`workers[${t}].source: ${(e as Error).message}`);
  }
  const raw = withPaths(loaded.def, own, baseDir);
  const options = parseSourceOptions(loaded.def, raw, WORKER_COMMON_KEYS, {
    prefix: '',
    base: ['workers', t],
  });
  return { loaded, options, rawOptions: raw };
}

/**
 * Run the config until a signal (continuous types) or until every one-shot type is done.
 * @returns exit code (0 stopped or completed, 1 a worker type was parked, 75 a full disk stopped
 *   it: DISK_FULL_EXIT_CODE, 78 a worker type's source stopped it and nothing else ran on:
 *   SOURCE_STOPPED_EXIT_CODE, 69 every one-shot type ended with nothing collected).
 * @throws UsageError for an invalid plan, source, backend or data dir.
 */
export async function runConfig(config: Config, flags: RunFlags): Promise<number> {
  const end = await runConfigJob(config, flags, { handleSignals: true });
  if (end.failure !== null) process.stderr.write(`collector: ${end.failure}\n`);
  return end.code;
}

/**
 * {@link runConfig}, stopped by SIGINT/SIGTERM and/or an AbortSignal (`control`); prints the
 * summary line unless `quiet` or it failed (but when nothing was collected).
 * @returns the exit code, and the totals over every worker.
 * @throws UsageError as {@link runConfig}.
 */
export async function runConfigJob(config: Config, flags: RunFlags, control: StopControl): Promise<CrawlEnd> {
  // A usage error found once `data` was made (a metrics address in use...) removes it again.
  return removeIfCreated(await firstMissing(config.data), () => runConfigIn(config, flags, control));
}

async function runConfigIn(config: Config, flags: RunFlags, control: StopControl): Promise<CrawlEnd> {
  const rendering = config.workers.find((w) => w.render !== 'never');
  if (rendering !== undefined && chromiumPath() === null) {
    throw new UsageError(`worker ${rendering.name ?? rendering.source}: ${NO_CHROMIUM_MESSAGE}`);
  }
  const specs = await runWorkerSpecs(config, flags.baseDir);
  const limit = flags.memoryLimit ?? config.memory.limit ?? memoryLimitBytes();
  checkPlan(
    config.workers.map((w) => ({
      processes: w.processes,
      concurrency: w.concurrency,
      renderPages: w.render === 'never' ? 0 : w.renderConcurrency,
    })),
    limit,
    config.memory.limitFraction,
    readMeasuredRss(config.data),
  );
  try {
    await makeDirectory(config.data);
    await fs.access(config.data, fs.constants.W_OK);
  } catch (e) {
    throw unusableDirectory('data', config.data, e);
  }
  // The real reason first: a collector running on it, then a one-shot crawl's output.
  await refuseIfInUse(config.data, 'data');
  if ((await readCrawlRecord(config.data)) !== null) {
    throw new UsageError(
      `data ${config.data}: holds a one-shot crawl (state/crawl.json, written by collector crawl); ` +
        `continue it with collector crawl --resume --out ${config.data}, or give run another data directory`,
    );
  }
  await refuseLinks(config.data, 'data');
  const unlock = await lockOutput(config.data, 'data');
  const layouts: PlanRecord = {};
  for (const sp of specs) layouts[sp.group] = { processes: sp.count, partition: sp.partition };
  try {
    const hints = Object.fromEntries(Object.entries(layouts).map(([t, l]) => [t, l.partition]));
    await checkAndRecordPlan(
      config.data,
      layouts,
      (type, was, now) =>
        `worker type "${type}": ${describeLayout(now)} now, but ${config.data} was written with ${describeLayout(was)}; ` +
        'they decide which process owns each URL: keep them, or use a new data directory',
      await recordedPlan(config.data, hints, `data ${config.data}`),
    );
  } catch (e) {
    await unlock();
    throw e;
  }
  const { log, close: closeLog } = openWorkerLog(config.data, 'supervisor');
  const sup = new Supervisor(specs, {
    dataDir: config.data,
    workerEntry: WORKER_ENTRY,
    log,
    memoryLimitBytes: limit,
    limitFraction: config.memory.limitFraction,
    ...supervisorTimings(config.supervisor),
    launch: checkCredentials(
      launchRecord('run', config.data, flags.configFile),
      specs.map((s) => ({ type: s.group, env: s.credentialEnv ?? [] })),
    ),
    onParked: (message) =>
      void notify(message, config.notify, { kind: 'crash-loop', dataDir: path.resolve(config.data) }, false),
    onWarning: (line, worker) => {
      if (!flags.quiet) printLine(progress, `${worker.group}: ${line}`);
    },
  });
  let metrics: Awaited<ReturnType<typeof startOpsServer>>;
  try {
    metrics = await startOpsServer(
      config.metrics?.listen,
      config.data,
      () => sup.status() as unknown as StatusFile,
      config.metrics?.token,
      config.metrics?.sample,
    );
  } catch (e) {
    await closeLog();
    await unlock();
    throw e;
  }
  if (!flags.quiet) {
    const n = specs.length;
    process.stderr.write(
      `collector: running ${n} worker process${n === 1 ? '' : 'es'}; status in ${path.join(config.data, 'status.json')}` +
        `${metrics ? `, metrics at ${metrics.url}/metrics` : ''}\n`,
    );
    if (config.backend !== 'embedded') {
      const ids = [...new Set(specs.map((s) => s.options.crawlId))].join(', ');
      process.stderr.write(`collector: crawl ids ${ids} on ${redactRedisUrl(config.backend)}\n`);
    }
  }
  // Like a crawl's: live on a TTY, the same counts as status.json.
  const progress: ProgressLine | null =
    !flags.quiet && process.stderr.isTTY
      ? new ProgressLine(() => {
          const t = sup.status().totals;
          return { items: t.items, errors: t.errors, bytes: 0, queued: t.queue, stopping: sup.wasStopped };
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
    await unlock();
  }
  const end = supervisedEnd(sup, code);
  // Every worker type ended with nothing collected: the summary still says what was done.
  const summarized = end.failure === null || end.code === NOTHING_COLLECTED_EXIT_CODE;
  if (!flags.quiet && summarized) {
    process.stderr.write(
      summaryLine({ processes: specs.length, out: config.data }, end.totals, 'collector run continues them'),
    );
  }
  return end;
}
