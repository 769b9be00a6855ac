/**
 * The size of the box a plan is made for: CPUs (a cgroup CPU quota, else the CPUs this process
 * may run on) and the memory limit (the memory guard's cgroup-aware reading), each overridable to
 * simulate another box (`--cpus`, `--memory-limit`). The one place the plan reads the machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import { memoryLimitBytes } from '../supervision/memory-guard.js';

/** CPUs and memory of the box, with where each number came from. */
export interface BoxLimits {
  cpus: number;
  /** `--cpus`, `cgroup cpu.max`, or `CPUs available`. */
  cpuSource: string;
  memoryBytes: number;
  /** `--memory-limit`, `cgroup limit`, or `RAM`. */
  memorySource: string;
}

/** CPUs allowed by a cgroup v2 `cpu.max` (`"200000 100000"` = 2) or v1 quota, or null when unlimited. */
export function cgroupCpus(root = '/sys/fs/cgroup'): number | null {
  try {
    const [quota, period] = fs.readFileSync(`${root}/cpu.max`, 'utf8').trim().split(/\s+/);
    if (quota !== 'max' && Number(quota) > 0 && Number(period) > 0) return Number(quota) / Number(period);
  } catch {
    // not cgroup v2
  }
  try {
    const quota = Number(fs.readFileSync(`${root}/cpu/cpu.cfs_quota_us`, 'utf8'));
    const period = Number(fs.readFileSync(`${root}/cpu/cpu.cfs_period_us`, 'utf8'));
    if (quota > 0 && period > 0) return quota / period;
  } catch {
    // no v1 quota either
  }
  return null;
}

/** The box's limits, or the simulated ones. */
export function boxLimits(override: { cpus?: number; memoryLimit?: number } = {}): BoxLimits {
  let cpus = override.cpus ?? null;
  let cpuSource = '--cpus';
  if (cpus === null) {
    const available = os.availableParallelism();
    const quota = cgroupCpus();
    cpus = quota !== null && quota < available ? quota : available;
    cpuSource = quota !== null && quota < available ? 'cgroup cpu.max' : 'CPUs available';
  }
  if (override.memoryLimit !== undefined) {
    return { cpus, cpuSource, memoryBytes: override.memoryLimit, memorySource: '--memory-limit' };
  }
  const memoryBytes = memoryLimitBytes();
  return { cpus, cpuSource, memoryBytes, memorySource: memoryBytes < os.totalmem() ? 'cgroup limit' : 'RAM' };
}
