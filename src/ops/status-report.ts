/**
 * `collector status`: the report built from status.json, the live process table and the data
 * size — as a compact table for people, or as the versioned JSON document scripts rely on
 * (docs/operating.md). Exit codes: 0 healthy, 1 degraded, 3 not running.
 */

import { credentialWarnings } from '../supervision/launch-record.js';
import { isRunning } from '../supervision/process-identity.js';
import type { StatusFile, StatusProblem, StatusWorker } from '../supervision/status-format.js';
import { addCounters, emptyCounters, type WorkerCounters } from '../supervision/worker-counters.js';
import { type DataSize, formatBytes } from './data-size.js';
import { ago, assessHealth, type Health, type HealthOptions } from './health.js';

/** Version of the `collector status --json` document; raised only when a field changes meaning or goes away. */
export const STATUS_JSON_VERSION = 1;

/** Exit codes of `collector status`. */
export const STATUS_EXIT = { healthy: 0, degraded: 1, 'not-running': 3 } as const;

/** Counts shared by a worker, a worker type and the totals in the JSON document. */
export interface StatusCounts {
  items: number;
  itemsThisRun: number;
  /** Items per second over the last few seconds. */
  pagesPerSec: number;
  /** Items per second since the supervisor started. */
  pagesPerSecAvg: number;
  /** Items that are errors in the items files, earlier runs included (the scope of `items`). */
  errors: number;
  /** Errors written since the supervisor started (the scope of `itemsThisRun`): the sum of `errorsByKind`. */
  errorsThisRun: number;
  /** `errorsThisRun` by `error.kind`. */
  errorsByKind: Record<string, number>;
  queue: number;
  inFlight: number;
  rssMB: number;
  pssMB: number;
  /** `--render`: pages rendered, and the headless browsers' PSS, MB (0 without rendering). */
  rendered: number;
  browserMB: number;
  restarts: number;
  /**
   * Rate-limit waits: host pauses (Retry-After, rate-limit headers) and waits of a source's rate
   * budget (GitHub's primary and secondary limits), each wait once.
   */
  rateLimitWaits: number;
  rateLimitWaitSec: number;
  /** `rateLimitWaits` by kind: `host`, `primary`, `secondary`. */
  rateLimitWaitsByKind: Record<string, number>;
  /** Responses that were rate-limit refusals (403/429), by kind: `primary`, `secondary`, `retry-after`. */
  rateLimitRefusals: Record<string, number>;
  /** Warning lines the source logged (a trending page that lists nothing, incomplete search results). */
  sourceWarnings: number;
  /** Error lines the source logged. */
  sourceErrors: number;
  /** Seconds since the last item, null when none was written since the start. */
  lastProgressAgeSec: number | null;
  lastError: string | null;
}

/** `collector status --json`, version 1. */
export interface StatusReport {
  version: number;
  dataDir: string;
  verdict: Health['verdict'];
  exitCode: number;
  problem: Health['problem'];
  summary: string;
  /** running, stopping, finished, stopped, or unknown (no usable status.json). */
  state: string;
  mode: StatusFile['mode'] | null;
  supervisor: {
    pid: number;
    alive: boolean;
    startedAt: string;
    uptimeSec: number;
    heartbeatAgeSec: number;
  } | null;
  data: { bytes: number; itemsBytes: number; filesBytes: number };
  workersUp: number;
  workersExpected: number;
  totals: StatusCounts | null;
  types: Array<StatusCounts & { type: string; source: string; up: number; expected: number }>;
  workers: Array<
    StatusCounts & {
      id: string;
      type: string;
      source: string;
      pid: number | null;
      up: boolean;
      state: string;
    }
  >;
  /**
   * Hosts a live worker is holding back, and why: a 429/503 slow-down (`gapSec` above the delay),
   * a pause still running (Retry-After, rate-limit reset, retry back-off, robots.txt unavailable),
   * a long Crawl-delay. Longest wait first; empty when none (or not running).
   */
  slowedHosts: Array<{ worker: string; host: string; gapSec: number; pausedSec: number; reason: string }>;
  /**
   * What the collector started without, one line each: a credential variable its sources name
   * that was unset (`GITHUB_TOKEN is not set: worker type topics runs without it`). Empty when none.
   */
  warnings: string[];
}

const round1 = (n: number) => Math.round(n * 10) / 10;

function counts(ws: StatusWorker[], status: StatusFile, now: number): StatusCounts {
  const c: WorkerCounters = ws.reduce(
    (a, w) => addCounters(a, w.counters ?? emptyCounters()),
    emptyCounters(),
  );
  const uptimeSec = Math.max(1, (Date.parse(status.updatedAt) - Date.parse(status.startedAt)) / 1000);
  const lastAt = Math.max(0, ...ws.map((w) => (w.lastProgressAt ? Date.parse(w.lastProgressAt) : 0)));
  const withError = ws.filter((w) => w.lastError);
  const sum = (
    k:
      | 'items'
      | 'itemsThisRun'
      | 'errors'
      | 'queue'
      | 'inFlight'
      | 'rssMB'
      | 'pssMB'
      | 'restarts'
      | 'rendered'
      | 'browserMB',
  ) => ws.reduce((a, w) => a + (w[k] ?? 0), 0);
  return {
    items: sum('items'),
    itemsThisRun: sum('itemsThisRun'),
    pagesPerSec: round1(ws.reduce((a, w) => a + w.pagesPerSec, 0)),
    pagesPerSecAvg: round1(c.items / uptimeSec),
    errors: sum('errors'),
    errorsThisRun: Object.values(c.errorsByKind).reduce((a, n) => a + n, 0),
    errorsByKind: c.errorsByKind,
    queue: sum('queue'),
    inFlight: sum('inFlight'),
    rssMB: sum('rssMB'),
    pssMB: sum('pssMB') + sum('browserMB'),
    rendered: sum('rendered'),
    browserMB: sum('browserMB'),
    restarts: sum('restarts'),
    rateLimitWaits: c.rateLimitWaits,
    rateLimitWaitSec: round1(c.rateLimitWaitMs / 1000),
    rateLimitWaitsByKind: c.rateLimitWaitsByKind ?? {},
    rateLimitRefusals: c.rateLimitRefusals ?? {},
    sourceWarnings: c.sourceWarnings ?? 0,
    sourceErrors: c.sourceErrors ?? 0,
    lastProgressAgeSec: lastAt > 0 ? round1(Math.max(0, now - lastAt) / 1000) : null,
    lastError: withError.length ? (withError[withError.length - 1].lastError as string) : null,
  };
}

/**
 * Build the report.
 * @param status status.json, or why it could not be read.
 * @param size the data size measured now.
 */
export function buildStatusReport(
  dataDir: string,
  status: StatusFile | StatusProblem,
  size: DataSize,
  options: HealthOptions = {},
): StatusReport {
  const now = options.now ?? Date.now();
  const data = { bytes: size.total, itemsBytes: size.items, filesBytes: size.files };
  if (typeof status === 'string') {
    const summary = {
      missing: 'never started on this data dir (no status.json)',
      unreadable: 'status.json is damaged (not JSON)',
      'old-format': 'status.json was written by an older collector: restart it once',
    }[status];
    return {
      version: STATUS_JSON_VERSION,
      dataDir,
      verdict: 'not-running',
      exitCode: STATUS_EXIT['not-running'],
      problem: null,
      summary,
      state: 'unknown',
      mode: null,
      supervisor: null,
      data,
      workersUp: 0,
      workersExpected: 0,
      totals: null,
      types: [],
      workers: [],
      slowedHosts: [],
      warnings: [],
    };
  }
  const alive = options.alive ?? isRunning;
  const health = assessHealth(status, { ...options, now, alive });
  const up = (w: StatusWorker) =>
    health.supervisorAlive &&
    w.pid !== null &&
    w.pidStartTicks !== null &&
    !['parked', 'restarting', 'done', 'stopped'].includes(w.state) &&
    alive({ pid: w.pid, startTicks: w.pidStartTicks });
  const groups = [...new Set([...Object.keys(status.expected), ...status.workers.map((w) => w.type)])];
  return {
    version: STATUS_JSON_VERSION,
    dataDir,
    verdict: health.verdict,
    exitCode: STATUS_EXIT[health.verdict],
    problem: health.problem,
    summary: health.summary,
    state: health.supervisorAlive ? status.state : status.state === 'running' ? 'dead' : status.state,
    mode: status.mode,
    supervisor: {
      pid: status.supervisor.pid,
      alive: health.supervisorAlive,
      startedAt: status.startedAt,
      // Up to now while it runs; up to its last heartbeat once it is gone.
      uptimeSec: Math.round(
        ((health.supervisorAlive ? now : Date.parse(status.updatedAt)) - Date.parse(status.startedAt)) / 1000,
      ),
      heartbeatAgeSec: round1(health.heartbeatAgeMs / 1000),
    },
    data,
    workersUp: health.supervisorAlive ? health.workersUp : 0,
    workersExpected: health.workersExpected,
    totals: counts(status.workers, status, now),
    types: groups.map((g) => {
      const ws = status.workers.filter((w) => w.type === g);
      return {
        type: g,
        source: ws[0]?.source ?? g,
        up: ws.filter(up).length,
        expected: status.expected[g] ?? ws.length,
        ...counts(ws, status, now),
      };
    }),
    workers: status.workers.map((w) => ({
      id: w.id,
      type: w.type,
      source: w.source,
      pid: w.pid,
      up: up(w),
      state: w.state,
      ...counts([w], status, now),
    })),
    slowedHosts: status.workers
      .filter(up)
      .flatMap((w) =>
        (w.slowedHosts ?? []).map((h) => ({
          worker: w.id,
          host: h.host,
          gapSec: round1(h.gapMs / 1000),
          pausedSec: round1(h.pausedForMs / 1000),
          reason: h.reason,
        })),
      )
      .sort((a, b) => b.gapSec + b.pausedSec - (a.gapSec + a.pausedSec)),
    warnings: credentialWarnings(status.launch),
  };
}

/** The slowed hosts as one line (the first few), or '' when none. */
function slowedText(r: StatusReport): string {
  const shown = 5;
  const hosts = r.slowedHosts.slice(0, shown).map((h) => {
    const paused = h.pausedSec > 0 ? `, paused ${ago(h.pausedSec * 1000)}` : '';
    return `${h.host} (${h.reason || 'slowed'}: gap ${h.gapSec}s${paused})`;
  });
  const more = r.slowedHosts.length > shown ? `, +${r.slowedHosts.length - shown} more` : '';
  return hosts.length === 0 ? '' : `slowed hosts: ${hosts.join(', ')}${more}\n`;
}

/**
 * The errors column: all of them (earlier runs included, as the items column), and this run's by
 * kind, which sum to the count they follow: `30 (this run 6: not-found 4, timeout 2)`.
 */
function errorsText(c: StatusCounts): string {
  const kinds = kindsText(c.errorsByKind);
  if (kinds === '') return String(c.errors);
  return c.errorsThisRun === c.errors
    ? `${c.errors} (${kinds})`
    : `${c.errors} (this run ${c.errorsThisRun}: ${kinds})`;
}

/** The parts of a count by kind, largest first: `primary 1, secondary 2` ('' when none). */
function kindsText(kinds: Record<string, number>): string {
  return Object.entries(kinds)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
}

/**
 * The rate-limit and source-warning line: `rate-limit waits: 3 (primary 1, secondary 2; 5m in
 * all) · refused for rate limits: 69 (retry-after 60, primary 9) · source warnings: 1 (see the
 * worker logs)`; the last two only when not zero.
 */
function limitsText(t: StatusCounts): string {
  const waitKinds = kindsText(t.rateLimitWaitsByKind);
  const parts = [
    `rate-limit waits: ${t.rateLimitWaits} (${waitKinds === '' ? '' : `${waitKinds}; `}${ago(t.rateLimitWaitSec * 1000)} in all)`,
  ];
  const refused = Object.values(t.rateLimitRefusals).reduce((a, n) => a + n, 0);
  if (refused > 0) parts.push(`refused for rate limits: ${refused} (${kindsText(t.rateLimitRefusals)})`);
  if (t.sourceWarnings > 0 || t.sourceErrors > 0) {
    const errors = t.sourceErrors > 0 ? `, source errors: ${t.sourceErrors}` : '';
    parts.push(`source warnings: ${t.sourceWarnings}${errors} (see the worker logs)`);
  }
  return parts.join(' · ');
}

/** Columns of text, left-aligned, two spaces apart. */
function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '))
    .join('\n');
}

/** The report as a few lines of text for a terminal. */
export function renderStatusReport(r: StatusReport): string {
  const head = [
    `collector: ${r.verdict.replace('-', ' ')}: ${r.summary}`,
    ...r.warnings.map((w) => `warning: ${w}`),
  ].join('\n');
  const dataLine = `data ${formatBytes(r.data.bytes)} (items ${formatBytes(r.data.itemsBytes)}, files ${formatBytes(r.data.filesBytes)}) in ${r.dataDir}`;
  if (!r.supervisor || !r.totals) return `${head}\n${dataLine}\n`;
  const s = r.supervisor;
  const who = r.mode === 'in-process' ? 'crawl process' : 'supervisor';
  const sup = s.alive
    ? `${who} pid ${s.pid}, up ${ago(s.uptimeSec * 1000)}, heartbeat ${ago(s.heartbeatAgeSec * 1000)} ago`
    : `${who} pid ${s.pid} gone (${r.state}), ran ${ago(s.uptimeSec * 1000)}, last heartbeat ${ago(s.heartbeatAgeSec * 1000)} ago`;
  const rows = [
    [
      'type',
      'up',
      'items',
      'pages/s',
      'avg',
      'errors',
      'queue',
      'in flight',
      'PSS',
      'restarts',
      'progress',
      'last error',
    ],
    ...r.types.map((t) => [
      t.type,
      `${t.up}/${t.expected}`,
      String(t.items),
      String(t.pagesPerSec),
      String(t.pagesPerSecAvg),
      errorsText(t),
      String(t.queue),
      String(t.inFlight),
      `${t.pssMB || t.rssMB} MB`,
      String(t.restarts),
      t.lastProgressAgeSec === null ? '-' : `${ago(t.lastProgressAgeSec * 1000)} ago`,
      t.lastError ? t.lastError.slice(0, 60) : '-',
    ]),
  ];
  const t = r.totals;
  const render =
    t !== null && (t.rendered > 0 || t.browserMB > 0)
      ? `\nrendered pages: ${t.rendered} · browser memory: ${t.browserMB} MB`
      : '';
  return `${head}\n${sup} · ${dataLine}\n\n${table(rows)}\n${limitsText(r.totals)}${render}\n${slowedText(r)}`;
}
