/**
 * Prometheus metrics of a collector (prom-client), read at each scrape from the latest status
 * snapshot: counters since the supervisor started, summed over each worker type's processes and
 * carried over their restarts; per-worker gauges; the fetch latency histogram; the data size.
 * The documented series are listed in {@link METRIC_NAMES} (docs/operating.md).
 */
import client from 'prom-client';
import type { StatusFile, StatusWorker } from '../supervision/status-format.js';
import {
  addCounters,
  emptyCounters,
  LATENCY_BUCKETS_MS,
  type WorkerCounters,
} from '../supervision/worker-counters.js';

/** What a scrape reads: the status snapshot and the last measured data size (bytes, null before the first). */
export interface MetricsSource {
  snapshot(): StatusFile;
  dataBytes(): number | null;
}

/** Every series this module exposes (besides prom-client's default process and nodejs_* metrics). */
export const METRIC_NAMES = [
  'collector_info',
  'collector_start_time_seconds',
  'collector_heartbeat_timestamp_seconds',
  'collector_items_total',
  'collector_pages_total',
  'collector_errors_total',
  'collector_bytes_total',
  'collector_fetch_duration_seconds',
  'collector_rate_limit_waits_total',
  'collector_rate_limit_wait_seconds_total',
  'collector_source_log_lines_total',
  'collector_queue',
  'collector_in_flight',
  'collector_workers_expected',
  'collector_workers_up',
  'collector_worker_up',
  'collector_worker_items',
  'collector_worker_rss_bytes',
  'collector_worker_pss_bytes',
  'collector_worker_restarts_total',
  'collector_worker_last_progress_timestamp_seconds',
  'collector_data_bytes',
] as const;

const UP_STATES = new Set(['starting', 'running', 'idle', 'paused', 'stopping']);

function byType(status: StatusFile): Map<string, StatusWorker[]> {
  const m = new Map<string, StatusWorker[]>();
  for (const g of Object.keys(status.expected)) m.set(g, []);
  for (const w of status.workers) m.set(w.type, [...(m.get(w.type) ?? []), w]);
  return m;
}

function sumCounters(ws: StatusWorker[]): WorkerCounters {
  return ws.reduce((a, w) => addCounters(a, w.counters ?? emptyCounters()), emptyCounters());
}

/**
 * A registry whose metrics read `source` at every scrape.
 * @param defaults also expose prom-client's default metrics of this process (CPU, memory, event loop).
 */
export function createMetricsRegistry(source: MetricsSource, defaults = true): client.Registry {
  const registry = new client.Registry();
  if (defaults) client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  // One snapshot per scrape: every metric's collect() of the same scrape sees the same numbers.
  let cached: { at: number; status: StatusFile; types: Map<string, StatusWorker[]> } | null = null;
  const snap = () => {
    const now = Date.now();
    if (!cached || now - cached.at > 200) {
      const status = source.snapshot();
      cached = { at: now, status, types: byType(status) };
    }
    return cached;
  };
  const perType = <T>(f: (ws: StatusWorker[], type: string) => T) =>
    [...snap().types].map(([type, ws]) => ({ type, value: f(ws, type) }));

  const gauge = (name: string, help: string, labelNames: string[], fill: (g: client.Gauge) => void) =>
    new client.Gauge({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        fill(this);
      },
    });
  const counter = (name: string, help: string, labelNames: string[], fill: (c: client.Counter) => void) =>
    new client.Counter({
      name,
      help,
      labelNames,
      registers,
      collect() {
        // Counts are kept by the workers (carried over restarts); a scrape shows their latest sum.
        this.reset();
        fill(this);
      },
    });

  gauge(
    'collector_info',
    'Always 1; labels say how the collector runs.',
    ['mode', 'command', 'state'],
    (g) => {
      const s = snap().status;
      g.set({ mode: s.mode, command: s.launch.command, state: s.state }, 1);
    },
  );
  gauge('collector_start_time_seconds', 'When the supervisor started, epoch seconds.', [], (g) =>
    g.set(Date.parse(snap().status.startedAt) / 1000),
  );
  gauge(
    'collector_heartbeat_timestamp_seconds',
    'When the status was last updated, epoch seconds.',
    [],
    (g) => g.set(Date.parse(snap().status.updatedAt) / 1000),
  );
  counter('collector_items_total', 'Item lines written since the supervisor started.', ['type'], (c) => {
    for (const { type, value } of perType((ws) => sumCounters(ws).items)) c.inc({ type }, value);
  });
  counter('collector_pages_total', 'Items written without an error.', ['type'], (c) => {
    for (const { type, value } of perType((ws) => {
      const k = sumCounters(ws);
      return k.items - Object.values(k.errorsByKind).reduce((a, n) => a + n, 0);
    }))
      c.inc({ type }, Math.max(0, value));
  });
  counter('collector_errors_total', 'Items that count as errors, by error kind.', ['type', 'kind'], (c) => {
    for (const { type, value } of perType((ws) => sumCounters(ws).errorsByKind)) {
      for (const [kind, n] of Object.entries(value)) c.inc({ type, kind }, n);
    }
  });
  counter(
    'collector_bytes_total',
    'Body bytes of the items written (after Content-Encoding removal).',
    ['type'],
    (c) => {
      for (const { type, value } of perType((ws) => sumCounters(ws).bytes)) c.inc({ type }, value);
    },
  );
  counter(
    'collector_rate_limit_waits_total',
    "Rate-limit waits: a host's pause (kind host) or a wait of a source's rate budget (primary, secondary).",
    ['type', 'kind'],
    (c) => {
      for (const { type, value } of perType((ws) => sumCounters(ws))) {
        const byKind = value.rateLimitWaitsByKind ?? {};
        const counted = Object.values(byKind).reduce((a, n) => a + n, 0);
        for (const [kind, n] of Object.entries(byKind)) c.inc({ type, kind }, n);
        // Reports from before the breakdown: their waits were host pauses.
        if (value.rateLimitWaits > counted) c.inc({ type, kind: 'host' }, value.rateLimitWaits - counted);
      }
    },
  );
  counter(
    'collector_rate_limit_refusals_total',
    'Responses that were rate-limit refusals (403/429), by kind: primary, secondary, retry-after.',
    ['type', 'kind'],
    (c) => {
      for (const { type, value } of perType((ws) => sumCounters(ws).rateLimitRefusals ?? {}))
        for (const [kind, n] of Object.entries(value)) c.inc({ type, kind }, n);
    },
  );
  counter('collector_rate_limit_wait_seconds_total', 'Sum of those pauses, seconds.', ['type'], (c) => {
    for (const { type, value } of perType((ws) => sumCounters(ws).rateLimitWaitMs / 1000))
      c.inc({ type }, value);
  });
  counter(
    'collector_source_log_lines_total',
    "Warning and error lines the worker type's source logged (ctx.log; see the worker logs).",
    ['type', 'level'],
    (c) => {
      for (const { type, value } of perType((ws) => sumCounters(ws).sourceWarnings ?? 0))
        c.inc({ type, level: 'warn' }, value);
      for (const { type, value } of perType((ws) => sumCounters(ws).sourceErrors ?? 0))
        c.inc({ type, level: 'error' }, value);
    },
  );
  gauge('collector_queue', 'URLs queued.', ['type'], (g) => {
    for (const { type, value } of perType((ws) => ws.reduce((a, w) => a + w.queue, 0)))
      g.set({ type }, value);
  });
  gauge('collector_in_flight', 'Requests in flight.', ['type'], (g) => {
    for (const { type, value } of perType((ws) => ws.reduce((a, w) => a + w.inFlight, 0)))
      g.set({ type }, value);
  });
  gauge('collector_workers_expected', 'Worker processes planned.', ['type'], (g) => {
    for (const [type, n] of Object.entries(snap().status.expected)) g.set({ type }, n);
  });
  gauge('collector_workers_up', 'Worker processes running.', ['type'], (g) => {
    for (const { type, value } of perType(
      (ws) => ws.filter((w) => w.pid !== null && UP_STATES.has(w.state)).length,
    ))
      g.set({ type }, value);
  });
  const perWorker = (name: string, help: string, f: (w: StatusWorker) => number | null) =>
    gauge(name, help, ['worker', 'type'], (g) => {
      for (const w of snap().status.workers) {
        const v = f(w);
        if (v !== null) g.set({ worker: w.id, type: w.type }, v);
      }
    });
  perWorker('collector_worker_up', '1 while the worker process runs.', (w) =>
    w.pid !== null && UP_STATES.has(w.state) ? 1 : 0,
  );
  perWorker(
    'collector_worker_items',
    "Items in the worker's items file (including earlier runs).",
    (w) => w.items,
  );
  perWorker(
    'collector_worker_rss_bytes',
    'Resident set size of the worker process, bytes.',
    (w) => w.rssMB * 1048576,
  );
  perWorker(
    'collector_worker_pss_bytes',
    'Proportional set size of the worker process, bytes.',
    (w) => w.pssMB * 1048576,
  );
  perWorker(
    'collector_worker_last_progress_timestamp_seconds',
    'When the worker last wrote an item, epoch seconds.',
    (w) => (w.lastProgressAt ? Date.parse(w.lastProgressAt) / 1000 : null),
  );
  counter(
    'collector_worker_restarts_total',
    'Restarts of the worker process (crashes, stalls, memory recycling).',
    ['worker', 'type'],
    (c) => {
      for (const w of snap().status.workers) c.inc({ worker: w.id, type: w.type }, w.restarts);
    },
  );
  gauge(
    'collector_data_bytes',
    'Bytes of items/ and files/ in the data directory (walked in the background at most every sample period).',
    [],
    (g) => {
      const b = source.dataBytes();
      if (b !== null) g.set(b);
    },
  );
  registry.registerMetric(latencyHistogram(() => [...snap().types]) as unknown as client.Metric);
  return registry;
}

/**
 * The fetch latency histogram, from the workers' bucket counts (prom-client's Histogram can only
 * observe single values, so this metric renders the summed buckets itself, in the same format).
 */
function latencyHistogram(types: () => Array<[string, StatusWorker[]]>) {
  const name = 'collector_fetch_duration_seconds';
  const help = 'Duration of HTTP requests (each redirect hop), headers and body, seconds.';
  return {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => {
      const values: Array<{ value: number; labels: Record<string, string | number>; metricName: string }> =
        [];
      for (const [type, ws] of types()) {
        const c = sumCounters(ws);
        let cumulative = 0;
        LATENCY_BUCKETS_MS.forEach((b, i) => {
          cumulative += c.fetchBuckets[i] ?? 0;
          values.push({ value: cumulative, labels: { le: b / 1000, type }, metricName: `${name}_bucket` });
        });
        values.push({ value: c.fetches, labels: { le: '+Inf', type }, metricName: `${name}_bucket` });
        values.push({ value: c.fetchMsSum / 1000, labels: { type }, metricName: `${name}_sum` });
        values.push({ value: c.fetches, labels: { type }, metricName: `${name}_count` });
      }
      return { name, help, type: 'histogram', values, aggregator: 'sum' };
    },
  };
}
