/**
 * Memory facts for the supervisor's guard: the memory limit (this process's cgroup, else total
 * RAM), a process's resident set size from /proc, and the plan check that refuses too many
 * processes.
 */
import fs from 'node:fs';
import os from 'node:os';
import { UsageError } from '../config/usage-error.js';
import { processTree } from '../http/chromium.js';
import { cgroupMemoryLimit } from './memory-limit.js';

/**
 * Memory (PSS) assumed per process before one has been measured on this data dir, bytes: an idle
 * worker's own memory measures 37–42 MB and a crawling one 55–60 MB on Node 20, plus its share of
 * the node binary and libraries, which all processes map once ({@link SHARED_CODE}).
 */
export const DEFAULT_WORKER_RSS = 56 * 1024 * 1024;

/** File-backed memory shared by every node process (binary, libraries), counted once, bytes. */
export const SHARED_CODE = 48 * 1024 * 1024;

/** Average body held per fetch slot for the estimate, bytes. */
export const BODY_ESTIMATE_PER_SLOT = 256 * 1024;

/**
 * Headless Chromium of a rendering worker (`--render`), bytes: the browser process, its zygote and
 * its network and storage processes, measured at 230 MB PSS on Debian's chromium 156 …
 */
export const BROWSER_BASE = 240 * 1024 * 1024;

/**
 * … plus, per page rendered at once (`--render-concurrency`), its share of the renderer processes
 * and of the browser's own growth, bytes: the browser's processes peaked at 517 MB PSS rendering
 * 4 pages at once in the render-auto-200 benchmark (240 + 4 × 70 = 520).
 */
export const BROWSER_PER_PAGE = 70 * 1024 * 1024;

/**
 * The memory available to this process tree, bytes: the limit of this process's cgroup and its
 * ancestors (v2 or v1, see supervision/memory-limit.ts) when one is set and below total RAM,
 * else total RAM.
 */
export function memoryLimitBytes(): number {
  const total = os.totalmem();
  const cgroup = cgroupMemoryLimit();
  return cgroup !== null && cgroup < total ? cgroup : total;
}

/** Resident set size of `pid` in bytes (VmRSS from /proc), or 0 when it is gone. */
export function rssOf(pid: number): number {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(s);
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Memory that `pid` really occupies, bytes: its proportional set size (PSS, from
 * /proc/<pid>/smaps_rollup), which counts pages shared with other processes — the ~45 MB of the
 * node binary and libraries every worker maps — once across them, not once per process as a sum
 * of RSS would. Falls back to VmRSS where smaps_rollup is unavailable; 0 when the process is gone.
 */
export function memoryOf(pid: number): number {
  try {
    const pss = pssOf(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    if (pss !== null) return pss;
  } catch {
    // not Linux ≥ 4.14, or gone
  }
  return rssOf(pid);
}

/** The `Pss:` line of a smaps_rollup text, bytes; null when it has none. */
function pssOf(smapsRollup: string): number | null {
  const m = /\nPss:\s+(\d+)\s+kB/.exec(smapsRollup);
  return m ? Number(m[1]) * 1024 : null;
}

/**
 * {@link memoryOf}, read off the event loop: the kernel walks the whole address space to answer
 * smaps_rollup, 5–50 ms for a crawling worker or a headless browser's process, and a one-process
 * crawl's fetch loop would stall for it. Never rejects.
 */
export async function memoryOfAsync(pid: number): Promise<number> {
  try {
    const pss = pssOf(await fs.promises.readFile(`/proc/${pid}/smaps_rollup`, 'utf8'));
    if (pss !== null) return pss;
  } catch {
    // not Linux ≥ 4.14, or gone
  }
  return rssOf(pid);
}

/**
 * Memory of the process tree under `pid` (a worker's headless browser and its renderers), bytes:
 * the sum of their PSS; 0 when it is gone.
 */
export function treeMemoryOf(pid: number): number {
  return processTree(pid).reduce((a, p) => a + memoryOf(p), 0);
}

/** {@link treeMemoryOf}, read off the event loop ({@link memoryOfAsync}). Never rejects. */
export async function treeMemoryOfAsync(pid: number): Promise<number> {
  const each = await Promise.all(processTree(pid).map(memoryOfAsync));
  return each.reduce((a, b) => a + b, 0);
}

const MEASURED_FILE = 'worker-rss.json';

/**
 * The largest worker RSS measured by an earlier run on this data dir (bytes), or null.
 * Kept in `<data>/state/worker-rss.json` by the supervisor.
 */
export function readMeasuredRss(dataDir: string): number | null {
  try {
    const v = JSON.parse(fs.readFileSync(`${dataDir}/state/${MEASURED_FILE}`, 'utf8')).peakWorkerRss;
    return typeof v === 'number' && v > 16 * 1048576 && v < 64 * 1024 ** 3 ? v : null;
  } catch {
    return null;
  }
}

/** Record the largest worker RSS seen in this run (bytes), for the next plan check. */
export function writeMeasuredRss(dataDir: string, peakWorkerRss: number): void {
  try {
    fs.mkdirSync(`${dataDir}/state`, { recursive: true });
    fs.writeFileSync(
      `${dataDir}/state/${MEASURED_FILE}`,
      `${JSON.stringify({ peakWorkerRss, at: new Date().toISOString() })}\n`,
    );
  } catch {
    // advisory only
  }
}

/** One worker type's share of a plan. */
export interface PlanEntry {
  processes: number;
  concurrency: number;
  /** `--render-concurrency` of a type that renders (`--render auto|always`); absent or 0: no browser. */
  renderPages?: number;
}

/** The browser memory one process of `p` may have, bytes (0 without rendering). */
export function browserEstimate(p: PlanEntry): number {
  const pages = p.renderPages ?? 0;
  return pages > 0 ? BROWSER_BASE + pages * BROWSER_PER_PAGE : 0;
}

/**
 * Estimated memory of a plan, bytes: the shared code once, the supervisor, and per process the
 * peak worker PSS measured by an earlier run on the same data (`measured`), else the default
 * plus its fetch slots' bodies; and a rendering type's browser ({@link browserEstimate}).
 */
export function estimatePlan(plan: PlanEntry[], measured: number | null = null): number {
  let total = SHARED_CODE + DEFAULT_WORKER_RSS; // code mapped by all, and the supervisor
  for (const p of plan) {
    total +=
      p.processes *
      ((measured ?? DEFAULT_WORKER_RSS + p.concurrency * BODY_ESTIMATE_PER_SLOT) + browserEstimate(p));
  }
  return total;
}

const mb = (b: number) => `${Math.round(b / 1048576)} MB`;

/**
 * Refuse a plan whose estimate ({@link estimatePlan}) exceeds `fraction × limit`.
 * @throws UsageError saying the estimate, the budget and the largest safe process count.
 */
export function checkPlan(
  plan: PlanEntry[],
  limitBytes: number,
  fraction: number,
  measured: number | null = null,
): void {
  const budget = limitBytes * fraction;
  const need = estimatePlan(plan, measured);
  if (need <= budget) return;
  const processes = plan.reduce((a, p) => a + p.processes, 0);
  const fixed = SHARED_CODE + DEFAULT_WORKER_RSS;
  const perProcess = (need - fixed) / Math.max(1, processes);
  const safe = Math.max(0, Math.floor((budget - fixed) / perProcess));
  throw new UsageError(
    `plan of ${processes} processes needs about ${mb(need)}, over ${Math.round(fraction * 100)}% of the ${mb(limitBytes)} memory limit (${mb(budget)}); ` +
      `the largest safe process count is ${safe} (lower processes or concurrency, or raise memory.limitFraction)`,
  );
}
