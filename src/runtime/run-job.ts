/**
 * `collector run`: continuous multi-source collection from a config file. Every worker type runs
 * `processes` worker processes under one supervisor; state lives in `<data>` and a restart
 * continues where the last run stopped.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/config-file.js';
import { type CrawlOptions, pageThreadByDefault } from '../config/crawl-options.js';
import { UsageError } from '../config/usage-error.js';
import { diskFullLine } from '../sinks/disk-full.js';
import { notify } from '../ops/notify.js';
import { checkSourceName } from '../sources/registry.js';
import { launchRecord } from '../supervision/launch-record.js';
import { checkPlan, memoryLimitBytes, readMeasuredRss } from '../supervision/memory-guard.js';
import type { StatusFile } from '../supervision/status-format.js';
import { Supervisor, supervisorTimings } from '../supervision/supervisor.js';
import { defaultPartition, splitPoliteness, type WorkerSpec } from '../supervision/worker-spec.js';
import { canonicalSeeds } from './crawl-job.js';
import { openWorkerLog } from './logger.js';
import { startOpsServer } from './ops-server.js';
import { makeDirectory } from './output-dir.js';
import { lockOutput } from './output-lock.js';
import { checkAndRecordPlan, type PlanRecord, type TypeLayout } from './plan-record.js';
import { recordedPlan } from './plan-recovery.js';
import { WORKER_ENTRY } from './worker-entry.js';

function describeLayout(l: TypeLayout): string {
  return `processes: ${l.processes}${l.processes > 1 ? `, partition: ${l.partition}` : ''}`;
}

/** Options of `collector run` beyond the config file. */
export interface RunFlags {
  /** Overrides `memory.limit` (simulate a smaller box). */
  memoryLimit?: number;
  quiet?: boolean;
  /** The config file's path (recorded for the watchdog, which reads its notify settings). */
  configFile?: string;
}

/**
 * Worker specs for a config: ids `<type>-<i>`, where the type is the source name (suffixed with
 * its position when a source appears twice).
 * @throws UsageError for an unknown source or a bad seed.
 */
export function runWorkerSpecs(config: Config): WorkerSpec[] {
  const specs: WorkerSpec[] = [];
  const counts = new Map<string, number>();
  const totalProcesses = config.workers.reduce((a, w) => a + w.processes, 0);
  for (const w of config.workers) counts.set(w.source, (counts.get(w.source) ?? 0) + 1);
  config.workers.forEach((w, t) => {
    try {
      checkSourceName(w.source);
    } catch (e) {
      throw new UsageError(`workers[${t}].source: ${(e as Error).message}`);
    }
    const group = w.name ?? ((counts.get(w.source) ?? 0) > 1 ? `${w.source}${t}` : w.source);
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
    if (seeds.length === 0) throw new UsageError(`workers[${t}].seeds: expected at least one seed URL`);
    const { source: _s, processes: n, name: _n, pageThread, ...common } = w;
    const partition = w.partition ?? defaultPartition(seeds);
    let options: CrawlOptions = {
      ...common,
      seeds,
      out: config.data,
      resume: true,
      quiet: true,
      processes: 1,
      // Without a second core per process, a page thread costs memory and saves no time.
      pageThread: pageThread ?? pageThreadByDefault(totalProcesses),
    };
    if (partition === 'url') options = splitPoliteness(options, n);
    for (let i = 0; i < n; i++) {
      specs.push({
        id: `${group}-${i}`,
        type: w.source,
        group,
        index: i,
        count: n,
        partition,
        options,
        seeds,
        intervalMs: w.interval,
      });
    }
  });
  return specs;
}

/**
 * Run the config until a signal (continuous types) or until every one-shot type is done.
 * @returns exit code (0 stopped or completed, 1 a worker type was parked, 75 a full disk stopped
 *   it: DISK_FULL_EXIT_CODE).
 * @throws UsageError for an invalid plan, backend or data dir.
 */
export async function runConfig(config: Config, flags: RunFlags): Promise<number> {
  if (config.backend !== 'embedded') {
    throw new UsageError(`backend "${config.backend}": only "embedded" is available in this version`);
  }
  const specs = runWorkerSpecs(config);
  const limit = flags.memoryLimit ?? config.memory.limit ?? memoryLimitBytes();
  checkPlan(
    config.workers.map((w) => ({ processes: w.processes, concurrency: w.concurrency })),
    limit,
    config.memory.limitFraction,
    readMeasuredRss(config.data),
  );
  try {
    await makeDirectory(config.data);
    await fs.access(config.data, fs.constants.W_OK);
  } catch (e) {
    throw new UsageError(
      `data ${config.data}: not writable (${(e as NodeJS.ErrnoException).code}); choose a directory you can write to`,
    );
  }
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
    launch: launchRecord('run', config.data, flags.configFile),
    onParked: (message) =>
      void notify(message, config.notify, { kind: 'crash-loop', dataDir: path.resolve(config.data) }, false),
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
    process.stderr.write(
      `collector: running ${specs.length} worker processes; status in ${path.join(config.data, 'status.json')}` +
        `${metrics ? `, metrics at ${metrics.url}/metrics` : ''}\n`,
    );
  }
  try {
    const code = await sup.runWithSignals();
    if (sup.diskFull !== null) process.stderr.write(`collector: ${diskFullLine(sup.diskFull)}\n`);
    return code;
  } finally {
    await metrics?.close();
    await closeLog();
    await unlock();
  }
}
