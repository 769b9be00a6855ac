#!/usr/bin/env node
/**
 * Cost of near-duplicate marking: `simhash64` (dist/extract/simhash.js) in µs per 5 KB of text
 * (slices of this repository's README and docs/, real prose), and the near-duplicate index
 * (dist/dedup/near-duplicate-index.js) holding N pages as a crawl fills it: µs per lookup (a
 * random fingerprint, which misses, and one 1–3 bits from a page in, which hits) and bytes per
 * page of its arrays.
 *
 *   npm run build && node bench/near-duplicates.js [--pages 100000,1000000] [--lookups 200000]
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { mulberry32 } from './lib/prng.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    pages: { type: 'string', default: '100000,1000000' },
    lookups: { type: 'string', default: '200000' },
  },
});
const { simhash64 } = await import(path.join(root, 'dist/extract/simhash.js'));
const { NearDuplicateIndex } = await import(path.join(root, 'dist/dedup/near-duplicate-index.js'));

// simhash64: 5 KB slices of the README and docs/ (the README alone is too short for 20), each
// hashed many times.
const readme = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
]
  .map((f) => readFileSync(path.join(root, f), 'utf8'))
  .join('\n');
const SLICE = 5 * 1024;
const texts = [];
for (let at = 0; at + SLICE <= readme.length && texts.length < 20; at += SLICE)
  texts.push(readme.slice(at, at + SLICE));
for (let i = 0; i < 200; i++) for (const t of texts) simhash64(t); // warm-up (JIT)
const rounds = 100;
let t0 = process.hrtime.bigint();
for (let i = 0; i < rounds; i++) for (const t of texts) simhash64(t);
const perText = Number(process.hrtime.bigint() - t0) / 1000 / (rounds * texts.length);
console.log(
  `simhash64: ${perText.toFixed(1)} µs per 5 KB of text (${texts.length} README and docs slices × ${rounds})`,
);

console.log('| pages | bytes/page | µs per lookup, miss | µs per lookup, hit (1–3 bits) | hits found |');
console.log('| ---: | ---: | ---: | ---: | ---: |');
for (const n of opts.pages.split(',').map(Number)) {
  const rand = mulberry32(n);
  const key = () => ({ hi: Math.floor(rand() * 2 ** 32), lo: Math.floor(rand() * 2 ** 32) });
  const index = new NearDuplicateIndex({ maxPages: Math.max(n, 1) });
  const keys = [];
  for (let i = 0; i < n; i++) {
    const k = key();
    if (i % 64 === 0) keys.push(k);
    index.add(k, `http://127.0.0.1:8080/p/${i}`);
  }
  const lookups = Number(opts.lookups);
  const misses = Array.from({ length: lookups }, key);
  const hits = Array.from({ length: lookups }, () => {
    const k = keys[Math.floor(rand() * keys.length)];
    let { hi, lo } = k;
    const bits = 1 + Math.floor(rand() * 3);
    for (let b = 0; b < bits; b++) {
      const p = Math.floor(rand() * 64);
      if (p < 32) lo ^= 1 << p;
      else hi ^= 1 << (p - 32);
    }
    return { hi: hi >>> 0, lo: lo >>> 0 };
  });
  for (const k of misses.slice(0, 20_000)) index.find(k); // warm-up
  t0 = process.hrtime.bigint();
  for (const k of misses) index.find(k, 'http://127.0.0.1:8080/none');
  const miss = Number(process.hrtime.bigint() - t0) / 1000 / lookups;
  let found = 0;
  t0 = process.hrtime.bigint();
  for (const k of hits) if (index.find(k, 'http://127.0.0.1:8080/none') !== null) found++;
  const hit = Number(process.hrtime.bigint() - t0) / 1000 / lookups;
  console.log(
    `| ${n.toLocaleString('en')} | ${(index.byteLength / index.size).toFixed(1)} | ${miss.toFixed(2)} | ${hit.toFixed(2)} | ${found} of ${lookups} |`,
  );
}
