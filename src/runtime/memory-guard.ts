/**
 * Memory facts for the supervisor's guard: the machine's or container's memory limit
 * (cgroup v2 `memory.max`, cgroup v1 `memory.limit_in_bytes`, else total RAM), a process's
 * resident set size from /proc, and the plan check that refuses too many processes.
 */
import fs from 'node:fs';
import os from 'node:os';
import { UsageError } from '../config/usage-error.js';

/** Resident set size assumed for a worker before one has been measured, bytes (measured ~60 MB idle). */
export const DEFAULT_WORKER_RSS = 64 * 1024 * 1024;

/** Average body held per fetch slot for the estimate, bytes. */
export const BODY_ESTIMATE_PER_SLOT = 256 * 1024;

/**
 * The memory available to this process tree, bytes: the cgroup limit when one is set, else
 * total RAM.
 */
export function memoryLimitBytes(): number {
  const total = os.totalmem();
  const read = (p: string): number | null => {
    try {
      const v = fs.readFileSync(p, 'utf8').trim();
      if (v === 'max') return null;
      const n = Number(v);
      return Number.isFinite(n) && n > 0 ? n : null;
    } catch {
      return null;
    }
  };
  const v2 = read('/sys/fs/cgroup/memory.max');
  if (v2 !== null && v2 < total) return v2;
  const v1 = read('/sys/fs/cgroup/memory/memory.limit_in_bytes');
  if (v1 !== null && v1 < total) return v1;
  return total;
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

/** One worker type's share of a plan. */
export interface PlanEntry {
  processes: number;
  concurrency: number;
}

/**
 * Estimated memory of a plan, bytes: per process the measured (or default) idle RSS plus its
 * fetch slots' bodies, plus one supervisor.
 */
export function estimatePlan(plan: PlanEntry[], workerRss = DEFAULT_WORKER_RSS): number {
  let total = workerRss; // the supervisor
  for (const p of plan) total += p.processes * (workerRss + p.concurrency * BODY_ESTIMATE_PER_SLOT);
  return total;
}

const mb = (b: number) => `${Math.round(b / 1048576)} MB`;

/**
 * Refuse a plan whose estimate exceeds `fraction × limit`.
 * @throws UsageError saying the estimate, the budget and the largest safe process count.
 */
export function checkPlan(
  plan: PlanEntry[],
  limitBytes: number,
  fraction: number,
  workerRss = DEFAULT_WORKER_RSS,
): void {
  const budget = limitBytes * fraction;
  const need = estimatePlan(plan, workerRss);
  if (need <= budget) return;
  const processes = plan.reduce((a, p) => a + p.processes, 0);
  const perProcess = (need - workerRss) / Math.max(1, processes);
  const safe = Math.max(0, Math.floor((budget - workerRss) / perProcess));
  throw new UsageError(
    `plan of ${processes} processes needs about ${mb(need)}, over ${Math.round(fraction * 100)}% of the ${mb(limitBytes)} memory limit (${mb(budget)}); ` +
      `the largest safe process count is ${safe} (lower processes or concurrency, or raise memory.limitFraction)`,
  );
}
