#!/usr/bin/env node
/**
 * Fetch-only ceiling: how fast plain undici can GET a list of URLs on this machine, with no
 * parsing, no decompression, no storage — the upper bound a crawler is compared with.
 *
 *   node bench/fetch-ceiling.js --urls FILE            one URL a line
 *   node bench/fetch-ceiling.js --base URL --dir DIR   URL + every *.html under DIR, plus URL
 *   options: --concurrency 32 (requests in flight = Agent connections per origin)
 *            --passes 1 (fetch the list this many times over the same Agent; later passes run
 *            warm — JIT and connections — so they are faster than a cold crawl could be)
 *
 * Prints one JSON line: pages (all passes), ok (2xx), failed, bytes (on the wire), seconds
 * (first request to last body end, process start-up excluded), pagesPerSec = pages / seconds,
 * passRates (pages/s of each pass), cpuS and maxRssMB of this process.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';

const { values } = parseArgs({
  options: {
    urls: { type: 'string' },
    base: { type: 'string' },
    dir: { type: 'string' },
    concurrency: { type: 'string', default: '32' },
    passes: { type: 'string', default: '1' },
  },
});

let urls;
if (values.urls) {
  urls = readFileSync(values.urls, 'utf8').split('\n').filter(Boolean);
} else if (values.base && values.dir) {
  const files = readdirSync(values.dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.html'))
    .sort();
  urls = [
    values.base,
    ...files.map((f) => new URL(f.split(path.sep).map(encodeURIComponent).join('/'), values.base).href),
  ];
} else {
  process.stderr.write(
    'usage: fetch-ceiling.js (--urls FILE | --base URL --dir DIR) [--concurrency N] [--passes N]\n',
  );
  process.exit(2);
}
for (const u of urls) {
  if (!new URL(u).hostname.startsWith('127.')) {
    process.stderr.write(`refusing non-loopback URL: ${u}\n`);
    process.exit(2);
  }
}

const concurrency = Number(values.concurrency);
const agent = new Agent({ connections: concurrency, pipelining: 1 });
const headers = { 'accept-encoding': 'gzip', 'user-agent': 'collector-bench-fetch-ceiling' };

let next = 0;
let ok = 0;
let failed = 0;
let bytes = 0;

async function lane() {
  while (next < urls.length) {
    const url = urls[next++];
    try {
      const res = await request(url, { dispatcher: agent, headers });
      // Read and discard: every byte crosses the socket, nothing is kept or decompressed.
      for await (const chunk of res.body) bytes += chunk.length;
      if (res.statusCode >= 200 && res.statusCode < 300) ok++;
      else failed++;
    } catch {
      failed++;
    }
  }
}

const passes = Number(values.passes);
const passRates = [];
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
for (let p = 0; p < passes; p++) {
  const tp = process.hrtime.bigint();
  next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, urls.length) }, lane));
  passRates.push(urls.length / (Number(process.hrtime.bigint() - tp) / 1e9));
}
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = process.cpuUsage(cpu0);
await agent.close();

process.stdout.write(
  `${JSON.stringify({
    pages: urls.length * passes,
    ok,
    failed,
    bytes,
    seconds,
    pagesPerSec: (urls.length * passes) / seconds,
    passRates: passRates.map(Math.round),
    cpuS: (cpu.user + cpu.system) / 1e6,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
