#!/usr/bin/env node
/**
 * A generated site for memory benchmarks: `/p/<n>` (n in 0..pages-1, default 1,000,000) is a
 * small HTML page linking to `links` (default 40) deterministic pseudo-random pages
 * `/p/<hash(n, k) mod pages>`. `/robots.txt` and anything else answer 404.
 *
 *   node bench/lib/synthetic-site.js [--pages 1000000] [--links 40] [--max-seconds 900]
 *
 * Listens on 127.0.0.1, ephemeral port. Forked with IPC (bench/lib/proc.js startServer): sends
 * { t: 'ready', port, url } and answers { t: 'stats' } with { t: 'stats', requests, pages }.
 * Exits when its parent disconnects, on SIGTERM, or after --max-seconds.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '1000000' },
    links: { type: 'string', default: '40' },
    'max-seconds': { type: 'string', default: '900' },
  },
});
const PAGES = Number(values.pages);
const LINKS = Number(values.links);

/** 32-bit integer mix (murmur3 finalizer) of n and k: the k-th link of page n. */
function linkTarget(n, k, pages = PAGES) {
  let h = Math.imul(n, 0x9e3779b1) ^ Math.imul(k + 1, 0x85ebca6b);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) % pages;
}

let requests = 0;
let pagesServed = 0;

function page(n) {
  let links = '';
  for (let k = 0; k < LINKS; k++) {
    const m = linkTarget(n, k);
    links += `<a href="/p/${m}">${m}</a>\n`;
  }
  return `<!doctype html><html><head><title>page ${n}</title></head><body><h1>page ${n}</h1>\n${links}</body></html>\n`;
}

const server = http.createServer((req, res) => {
  requests++;
  const m = /^\/p\/(\d{1,7})$/.exec(req.url ?? '');
  const n = m ? Number(m[1]) : -1;
  if (req.method !== 'GET' || n < 0 || n >= PAGES) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found\n');
    return;
  }
  pagesServed++;
  const body = page(n);
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;

function quit() {
  server.closeAllConnections?.();
  server.close();
  process.exit(0);
}
process.on('SIGTERM', quit);
process.on('disconnect', quit);
setTimeout(quit, Number(values['max-seconds']) * 1000).unref();

process.on('message', (m) => {
  if (m?.t === 'stats') process.send?.({ t: 'stats', requests, pages: pagesServed });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const url = `http://127.0.0.1:${port}/p/0`;
  if (process.send) process.send({ t: 'ready', port, url });
  else process.stdout.write(`${url}\n`);
});
