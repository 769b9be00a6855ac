/**
 * The HTTP server of a running collector (started by the supervisor, or by a one-process crawl):
 * Prometheus text at `/metrics`, the status page at `/` and its data at `/api/status`. It reads
 * a status snapshot provider, keeps the bounded history the page charts, and samples the data
 * size in the background. Loopback by default; with a token, every request must carry it
 * (`Authorization: Bearer <token>`, or `?token=` for the page in a browser).
 */
import { timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { StatusFile } from '../supervision/status-format.js';
import { measureDataSize } from './data-size.js';
import { createMetricsRegistry } from './metrics.js';
import { HISTORY_SAMPLE_MS, HISTORY_SPAN_MS, StatusHistory } from './status-history.js';
import { buildStatusReport } from './status-report.js';

/** A data-size walk that took t waits at least this many times t before the next (≤ 2% of a core). */
export const DATA_SIZE_WALK_SPACING = 50;

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  /** `HOST:PORT` (port 0: any free port). */
  listen: string;
  /** Bearer token required on every request, or none (loopback only: checked by the config schema). */
  token?: string;
  /** The current status document (the supervisor's `status()`). */
  snapshot: () => StatusFile;
  /** Absolute data directory (for its size). */
  dataDir: string;
  /** History sampling period, ms. Default {@link HISTORY_SAMPLE_MS}. */
  historySampleMs?: number;
  /** Span of history kept, ms. Default {@link HISTORY_SPAN_MS}. */
  historySpanMs?: number;
  /** Shortest gap between data-size walks, ms. Default: the history sampling period. */
  dataSizeSampleMs?: number;
  /** The built status page (default: `dist/status-page.html`, made by `npm run build`). */
  pagePath?: string;
}

/** A running metrics server. */
export interface MetricsServer {
  /** `http://HOST:PORT`. */
  url: string;
  close(): Promise<void>;
}

const DEFAULT_PAGE = fileURLToPath(new URL('../status-page.html', import.meta.url));

function splitListen(listen: string): { host: string; port: number } {
  const at = listen.lastIndexOf(':');
  return { host: listen.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(listen.slice(at + 1)) };
}

function tokenMatches(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Start serving.
 * @throws the listen error (EADDRINUSE, EACCES...) as an Error naming the address.
 */
export async function startMetricsServer(opts: MetricsServerOptions): Promise<MetricsServer> {
  let dataBytes: number | null = null;
  let dataSize = { items: 0, files: 0, total: 0, fileCount: 0 };
  const registry = createMetricsRegistry({ snapshot: opts.snapshot, dataBytes: () => dataBytes });
  const sampleMs = opts.historySampleMs ?? HISTORY_SAMPLE_MS;
  const sizeGapMs = opts.dataSizeSampleMs ?? sampleMs;
  const history = new StatusHistory(
    Math.max(2, Math.ceil((opts.historySpanMs ?? HISTORY_SPAN_MS) / sampleMs)),
  );
  const sample = () => {
    const s = opts.snapshot();
    const items = s.workers.reduce((a, w) => a + (w.counters?.items ?? 0), 0);
    const errors = s.workers.reduce(
      (a, w) => a + Object.values(w.counters?.errorsByKind ?? {}).reduce((x, n) => x + n, 0),
      0,
    );
    history.add([Math.round(Date.now() / 1000), items, errors, dataBytes]);
  };
  // Data size: walked in the background, never two walks at once, spaced by 50× the last walk.
  let sizeTimer: NodeJS.Timeout | null = null;
  let closed = false;
  const measure = async () => {
    const t0 = performance.now();
    try {
      dataSize = await measureDataSize(opts.dataDir);
      dataBytes = dataSize.total;
    } catch {
      // unreadable now: the last value stays
    }
    if (closed) return;
    const gap = Math.max(sizeGapMs, DATA_SIZE_WALK_SPACING * (performance.now() - t0));
    sizeTimer = setTimeout(() => void measure(), gap);
    sizeTimer.unref();
  };
  // The first walk runs in the background: a large data dir must not delay the server.
  void measure().then(() => {
    if (!closed) sample();
  });
  const historyTimer = setInterval(sample, sampleMs);
  historyTimer.unref();

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (opts.token) {
      const auth = req.headers.authorization ?? '';
      const bearer = auth.startsWith('Bearer ') ? auth.slice(7) : null;
      if (!tokenMatches(bearer, opts.token) && !tokenMatches(url.searchParams.get('token'), opts.token)) {
        res.writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'text/plain' });
        res.end('token required\n');
        return;
      }
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' });
      res.end();
      return;
    }
    try {
      if (url.pathname === '/metrics') {
        const body = await registry.metrics();
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(body);
      } else if (url.pathname === '/api/status') {
        const report = buildStatusReport(opts.dataDir, opts.snapshot(), dataSize);
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify({ report, history: history.samples(), sampleSeconds: sampleMs / 1000 }));
      } else if (url.pathname === '/') {
        const page = await fs.promises.readFile(opts.pagePath ?? DEFAULT_PAGE);
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          // Everything the page needs is inside it: nothing else may load.
          'content-security-policy':
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:",
        });
        res.end(page);
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found: try /, /metrics or /api/status\n');
      }
    } catch (e) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`${(e as Error).message}\n`);
    }
  });
  const { host, port } = splitListen(opts.listen);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e) =>
        reject(new Error(`metrics ${opts.listen}: ${(e as NodeJS.ErrnoException).code ?? e.message}`)),
      );
      server.listen(port, host, () => resolve());
    });
  } catch (e) {
    // Not serving: no sample may run later (the caller's snapshot may not exist yet).
    closed = true;
    clearInterval(historyTimer);
    if (sizeTimer) clearTimeout(sizeTimer);
    throw e;
  }
  server.unref();
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shownHost}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        clearInterval(historyTimer);
        if (sizeTimer) clearTimeout(sizeTimer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
