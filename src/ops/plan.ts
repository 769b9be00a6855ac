/**
 * `collector plan`: the scaling table of a config for a box — CPUs, memory limit, per-process
 * memory, the configured and the recommended processes × concurrency per worker type, their
 * expected peak memory and its share of the limit — computed with the memory guard's own
 * estimate, so "refused" here is exactly what `run`/`crawl` would refuse at start.
 */
import { defaultProcesses } from '../config/crawl-options.js';
import { UsageError } from '../config/usage-error.js';
import {
  BODY_ESTIMATE_PER_SLOT,
  BROWSER_BASE,
  BROWSER_PER_PAGE,
  checkPlan,
  DEFAULT_WORKER_RSS,
  estimatePlan,
  type PlanEntry,
  SHARED_CODE,
} from '../supervision/memory-guard.js';
import type { BoxLimits } from './box-limits.js';
import { formatBytes } from './data-size.js';

/** One worker type as configured. */
export interface PlanType {
  name: string;
  source: string;
  processes: number;
  concurrency: number;
  /** `--render-concurrency` when the type renders (`render: auto|always`): its browser is counted. */
  renderPages?: number;
}

/** What the plan is computed from. */
export interface PlanInput {
  limits: BoxLimits;
  /** Share of the limit the tree may use (memory.limitFraction). */
  fraction: number;
  types: PlanType[];
  /** Peak worker PSS measured by the last run on the data dir (what the guard uses), bytes, or null. */
  measured: number | null;
  /** Largest worker PSS in the last status.json, bytes, or null. */
  statusPss: number | null;
  /** PSS of this process (an idle node process with the collector loaded), bytes. */
  probe: number | null;
}

/** One type in a plan variant. */
export interface PlanVariantEntry {
  name: string;
  processes: number;
  concurrency: number;
  renderPages?: number;
}

/** A plan's processes per type, and its verdict. */
export interface PlanVariant {
  entries: PlanVariantEntry[];
  processes: number;
  /** Expected peak memory, bytes (the guard's estimate). */
  peakBytes: number;
  /** peakBytes / limit. */
  share: number;
  /** The guard's refusal message, or null when it fits. */
  refused: string | null;
  /** More processes than the box's CPUs keep busy crawling flat out ({@link busyProcesses}). */
  overCpus: boolean;
}

/** The whole plan. */
export interface Plan {
  input: PlanInput;
  budgetBytes: number;
  configured: PlanVariant;
  recommended: PlanVariant;
  /** Most processes that fit at the configured concurrency (the guard's "largest safe process count"). */
  mostThatFits: number;
  /** Processes the CPUs keep busy crawling flat out ({@link busyProcesses}). */
  busyProcesses: number;
}

/**
 * Processes a box's CPUs keep busy when every one crawls flat out: one per two CPUs, at least one
 * (a process keeps two cores busy, its fetch loop and its page thread: bench/RESULTS.md). More
 * only help worker types that mostly wait (rate-limited APIs, slow or distant hosts).
 * @param cpus CPUs of the box (a cgroup quota may be fractional).
 */
export function busyProcesses(cpus: number): number {
  return defaultProcesses(Math.floor(cpus));
}

function variant(input: PlanInput, entries: PlanVariantEntry[]): PlanVariant {
  const plan: PlanEntry[] = entries.map((e) => ({
    processes: e.processes,
    concurrency: e.concurrency,
    renderPages: e.renderPages,
  }));
  const peakBytes = estimatePlan(plan, input.measured);
  let refused: string | null = null;
  try {
    checkPlan(plan, input.limits.memoryBytes, input.fraction, input.measured);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    refused = e.message;
  }
  const processes = entries.reduce((a, e) => a + e.processes, 0);
  return {
    entries,
    processes,
    peakBytes,
    share: peakBytes / input.limits.memoryBytes,
    refused,
    // one process per worker type is the least a plan can have
    overCpus: processes > Math.max(entries.length, busyProcesses(input.limits.cpus)),
  };
}

/**
 * Processes per type for `total` processes: at least one each, the rest shared in proportion to
 * the configured counts (largest remainder).
 */
export function shareProcesses(types: PlanType[], total: number): number[] {
  const n = Math.max(total, types.length);
  const weight = types.reduce((a, t) => a + t.processes, 0);
  const exact = types.map((t) => 1 + ((n - types.length) * t.processes) / weight);
  const out = exact.map(Math.floor);
  let left = n - out.reduce((a, x) => a + x, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i]).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (left-- <= 0) break;
    out[i]++;
  }
  return out;
}

/**
 * Compute the plan. Recommended: one process per two CPUs (a process keeps two cores busy, its
 * fetch loop and its page thread: bench/RESULTS.md), at least one per worker type, at the
 * configured concurrency, and lowered until the memory guard accepts it.
 */
export function computePlan(input: PlanInput): Plan {
  const budgetBytes = input.limits.memoryBytes * input.fraction;
  const configured = variant(
    input,
    input.types.map((t) => ({ ...t })),
  );
  const busy = busyProcesses(input.limits.cpus);
  let total = Math.max(input.types.length, busy);
  let recommended = variant(
    input,
    input.types.map((t, i) => ({
      name: t.name,
      processes: shareProcesses(input.types, total)[i],
      concurrency: t.concurrency,
      renderPages: t.renderPages,
    })),
  );
  while (recommended.refused && total > input.types.length) {
    total--;
    const counts = shareProcesses(input.types, total);
    recommended = variant(
      input,
      input.types.map((t, i) => ({
        name: t.name,
        processes: counts[i],
        concurrency: t.concurrency,
        renderPages: t.renderPages,
      })),
    );
  }
  const perProcess =
    (configured.peakBytes - SHARED_CODE - DEFAULT_WORKER_RSS) / Math.max(1, configured.processes);
  const mostThatFits = Math.max(0, Math.floor((budgetBytes - SHARED_CODE - DEFAULT_WORKER_RSS) / perProcess));
  return { input, budgetBytes, configured, recommended, mostThatFits, busyProcesses: busy };
}

function columns(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('   '))
    .join('\n');
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The plan as text. */
export function renderPlan(p: Plan): string {
  const { limits, measured, statusPss, probe, fraction } = p.input;
  const lines: string[] = [];
  lines.push(
    `box: ${limits.cpus} CPUs (${limits.cpuSource}), memory limit ${formatBytes(limits.memoryBytes)} (${limits.memorySource}); ` +
      `budget ${pct(fraction)} = ${formatBytes(p.budgetBytes)}`,
  );
  const seen = [
    statusPss !== null ? `${formatBytes(statusPss)} now (largest worker PSS in status.json)` : null,
    probe !== null
      ? `an idle process with the collector loaded measures ${formatBytes(probe)} PSS here`
      : null,
  ]
    .filter(Boolean)
    .join('; ');
  lines.push(
    measured !== null
      ? `per process: ${formatBytes(measured)} (peak worker PSS measured by the last run, state/worker-rss.json)${seen ? `; ${seen}` : ''}`
      : `per process: ${formatBytes(DEFAULT_WORKER_RSS)} + ${formatBytes(BODY_ESTIMATE_PER_SLOT)} × concurrency ` +
          `(the memory guard's estimate until a run has been measured)${seen ? `; ${seen}` : ''}`,
  );
  lines.push(
    `shared code (node and libraries, counted once) + supervisor: ${formatBytes(SHARED_CODE + DEFAULT_WORKER_RSS)}`,
  );
  if (p.input.types.some((t) => (t.renderPages ?? 0) > 0)) {
    lines.push(
      `rendering types (render: auto|always), per process: a headless browser, ${formatBytes(BROWSER_BASE)} + ${formatBytes(BROWSER_PER_PAGE)} × render concurrency`,
    );
  }
  lines.push('');
  const row = (label: string, v: PlanVariant) => [
    label,
    v.entries
      .map(
        (e) =>
          `${e.name} ${e.processes} × ${e.concurrency}${(e.renderPages ?? 0) > 0 ? ` (+${e.renderPages} rendering)` : ''}`,
      )
      .join(', '),
    String(v.processes),
    formatBytes(v.peakBytes),
    pct(v.share),
    v.refused ? `refused: over ${pct(fraction)}` : 'ok',
    v.overCpus ? `over: ${limits.cpus} CPUs keep ~${p.busyProcesses} busy` : 'ok',
  ];
  lines.push(
    columns([
      ['plan', 'processes × concurrency', 'processes', 'peak memory', 'of limit', 'memory guard', 'CPUs'],
      row('configured', p.configured),
      row('recommended', p.recommended),
    ]),
  );
  lines.push('');
  lines.push(
    `recommended: 1 process per 2 CPUs (each keeps its fetch loop and its page thread busy), at least 1 per worker type; ` +
      `at most ${p.mostThatFits} processes fit in memory at the configured concurrency; ${limits.cpus} CPUs keep ` +
      `about ${p.busyProcesses} busy crawling flat out`,
  );
  if (p.configured.refused) lines.push(`configured plan refused: ${p.configured.refused}`);
  if (p.configured.overCpus)
    lines.push(
      `configured plan: ${p.configured.processes} processes on ${limits.cpus} CPUs, more than the cores keep busy ` +
        `(about ${p.busyProcesses} crawling flat out): the others wait for a core and add memory; more processes ` +
        'only help worker types that mostly wait (rate-limited APIs, slow hosts)',
    );
  return `${lines.join('\n')}\n`;
}
