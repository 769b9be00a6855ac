#!/usr/bin/env node
/**
 * Many loopback hosts in one process, for the politeness benchmark: `--hosts N` (default 200)
 * HTTP servers on 127.0.1.1 … 127.0.1.N, all on one port (each bound to its own address).
 * Host h serves `/` and `/p/<k>` (k in 0..999): links to /p/k+1 and /p/k+2 on the same host and to
 * /p/<j> on two other hosts; `/robots.txt` answers 404. Every request's arrival time
 * (process.hrtime) is logged per host.
 *
 *   node bench/lib/multi-host-site.js [--hosts 200] [--max-seconds 300]
 *
 * Forked with IPC: sends { t: 'ready', port, hosts, seeds }; answers { t: 'report' } with
 * { t: 'report', hosts: [{ host, requests, minGapMs, medianGapMs }], requests, firstMs, lastMs }
 * (times in ms since the server started). Exits when the parent disconnects, on SIGTERM, or after
 * --max-seconds.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    hosts: { type: 'string', default: '200' },
    'max-seconds': { type: 'string', default: '300' },
  },
});
const HOSTS = Number(values.hosts);
if (!(HOSTS >= 1 && HOSTS <= 254)) throw new Error('--hosts must be 1..254');
const PAGES = 1000;
const t0 = process.hrtime.bigint();
const nowMs = () => Number(process.hrtime.bigint() - t0) / 1e6;

const addr = (h) => `127.0.1.${h + 1}`;
/** Arrival times (ms) of the requests to each host. */
const arrivals = Array.from({ length: HOSTS }, () => []);
let port = 0;

function mix(a, b) {
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 1, 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function page(h, k) {
  const links = [`/p/${(k + 1) % PAGES}`, `/p/${(k + 2) % PAGES}`];
  for (let j = 0; j < 2; j++) {
    const other = (h + 1 + (mix(h * PAGES + k, j) % (HOSTS - 1 || 1))) % HOSTS;
    links.push(`http://${addr(other)}:${port}/p/${mix(k, h + j) % PAGES}`);
  }
  return `<!doctype html><html><head><title>host ${h} page ${k}</title></head><body>\n${links
    .map((l) => `<a href="${l}">${l}</a>`)
    .join('\n')}\n</body></html>\n`;
}

function handler(h) {
  return (req, res) => {
    arrivals[h].push(nowMs());
    const url = req.url ?? '';
    const m = /^\/p\/(\d{1,4})$/.exec(url);
    const k = url === '/' ? 0 : m ? Number(m[1]) : -1;
    if (req.method !== 'GET' || k < 0 || k >= PAGES) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found\n');
      return;
    }
    const body = page(h, k);
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  };
}

const servers = [];

function listen(server, host, p) {
  return new Promise((resolve, reject) => {
    const onError = (e) => reject(e);
    server.once('error', onError);
    server.listen(p, host, () => {
      server.off('error', onError);
      resolve(server.address().port);
    });
  });
}

async function closeAll() {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise((r) => {
          s.closeAllConnections?.();
          s.close(() => r());
        }),
    ),
  );
}

async function bindAll() {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      for (let h = 0; h < HOSTS; h++) {
        const s = http.createServer(handler(h));
        s.keepAliveTimeout = 60_000;
        s.headersTimeout = 65_000;
        servers.push(s);
        const got = await listen(s, addr(h), h === 0 ? 0 : port);
        if (h === 0) port = got;
      }
      return;
    } catch (e) {
      if (e.code !== 'EADDRINUSE') throw e;
      await closeAll(); // the port chosen on the first address is taken on another: pick again
    }
  }
  throw new Error('could not bind one port on every address');
}

function median(xs) {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function report() {
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  let total = 0;
  const hosts = arrivals.map((ts, h) => {
    const gaps = [];
    for (let i = 1; i < ts.length; i++) gaps.push(ts[i] - ts[i - 1]);
    total += ts.length;
    if (ts.length) {
      first = Math.min(first, ts[0]);
      last = Math.max(last, ts[ts.length - 1]);
    }
    return {
      host: addr(h),
      requests: ts.length,
      minGapMs: gaps.length ? Math.min(...gaps) : null,
      medianGapMs: median(gaps),
    };
  });
  return { t: 'report', hosts, requests: total, firstMs: total ? first : null, lastMs: total ? last : null };
}

function quit() {
  for (const s of servers) s.closeAllConnections?.();
  process.exit(0);
}
process.on('SIGTERM', quit);
process.on('disconnect', quit);
setTimeout(quit, Number(values['max-seconds']) * 1000).unref();
process.on('message', (m) => {
  if (m?.t === 'report') process.send?.(report());
});

await bindAll();
const seeds = Array.from({ length: HOSTS }, (_, h) => `http://${addr(h)}:${port}/`);
if (process.send) process.send({ t: 'ready', port, hosts: HOSTS, seeds });
else process.stdout.write(`${seeds.join('\n')}\n`);
