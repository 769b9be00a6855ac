import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BROWSER_BASE,
  BROWSER_PER_PAGE,
  checkPlan,
  DEFAULT_WORKER_RSS,
  estimatePlan,
  memoryLimitBytes,
  memoryOf,
  readMeasuredRss,
  rssOf,
  SHARED_CODE,
  writeMeasuredRss,
} from '../../src/supervision/memory-guard.js';

const MB = 1024 * 1024;

describe('memory guard', () => {
  it('reads a limit no larger than total RAM, and this process RSS from /proc', () => {
    const limit = memoryLimitBytes();
    expect(limit).toBeGreaterThan(64 * MB);
    expect(limit).toBeLessThanOrEqual(os.totalmem());
    const rss = rssOf(process.pid);
    expect(rss).toBeGreaterThan(10 * MB);
    expect(Math.abs(rss - process.memoryUsage.rss())).toBeLessThan(64 * MB);
    expect(rssOf(2 ** 22 + 12345)).toBe(0);
    // PSS counts shared pages proportionally: never more than RSS
    const pss = memoryOf(process.pid);
    expect(pss).toBeGreaterThan(5 * MB);
    expect(pss).toBeLessThanOrEqual(rssOf(process.pid) + 8 * MB);
    expect(memoryOf(2 ** 22 + 12345)).toBe(0);
  });

  it('estimates a plan from the default RSS and fetch slots, or a measured peak', () => {
    const plan = [{ processes: 4, concurrency: 16 }];
    const fixed = SHARED_CODE + DEFAULT_WORKER_RSS;
    expect(estimatePlan(plan)).toBe(fixed + 4 * (DEFAULT_WORKER_RSS + 16 * 256 * 1024));
    expect(estimatePlan(plan, 100 * MB)).toBe(fixed + 4 * 100 * MB);
  });

  it('refuses a plan over the budget and names the largest safe process count', () => {
    // 20 processes fit a 2 GB box (measured: 1.25 GB PSS at peak); 30 do not.
    expect(() => checkPlan([{ processes: 20, concurrency: 4 }], 2 * 1024 * MB, 0.8)).not.toThrow();
    const plan = [{ processes: 30, concurrency: 4 }];
    expect(() => checkPlan(plan, 2 * 1024 * MB, 0.8)).toThrow(
      /plan of 30 processes needs about \d+ MB, over 80% of the 2048 MB memory limit \(1638 MB\); the largest safe process count is 26/,
    );
    expect(() => checkPlan([{ processes: 26, concurrency: 4 }], 2 * 1024 * MB, 0.8)).not.toThrow();
    // a smaller measured worker lets more processes fit
    expect(() => checkPlan(plan, 2 * 1024 * MB, 0.8, 40 * MB)).not.toThrow();
  });

  it('remembers the measured peak worker RSS per data dir', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-mem-'));
    expect(readMeasuredRss(dir)).toBeNull();
    writeMeasuredRss(dir, 90 * MB);
    expect(readMeasuredRss(dir)).toBe(90 * MB);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('counts the browser of a rendering worker type, and refuses the plan it no longer fits', () => {
    const plain = { processes: 2, concurrency: 8 };
    const rendering = { ...plain, renderPages: 3 };
    expect(estimatePlan([rendering]) - estimatePlan([plain])).toBe(2 * (BROWSER_BASE + 3 * BROWSER_PER_PAGE));
    expect(estimatePlan([{ ...plain, renderPages: 0 }])).toBe(estimatePlan([plain]));
    // a limit the plain plan fits and the rendering one does not
    const limit = (estimatePlan([plain]) + BROWSER_BASE) / 0.8;
    expect(() => checkPlan([plain], limit, 0.8)).not.toThrow();
    expect(() => checkPlan([rendering], limit, 0.8)).toThrow(/plan of 2 processes needs about/);
  });
});
