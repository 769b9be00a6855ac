#!/usr/bin/env node
/**
 * Size of the URL seen-set (src/dedup/fingerprint-set.ts) holding N URLs, as the crawler builds
 * it (initial capacity 1 << 14, grown as it fills): bytes of its table, and per URL.
 *
 *   npm run build && node bench/seen-set-size.js [N=1000000]
 *
 * The synthetic-1m scenario reports the V8 heap, which does not include this typed array.
 */
import { FingerprintSet } from '../dist/dedup/fingerprint-set.js';

const n = Number(process.argv[2] ?? 1_000_000);
const set = new FingerprintSet(1 << 14);
for (let i = 0; i < n; i++) set.add(`http://127.0.0.1:8080/p/${i}`);
const mb = (set.byteLength / 1048576).toFixed(1);
console.log(
  `seen-set: ${set.size.toLocaleString('en')} URLs in ${mb} MB (${(set.byteLength / set.size).toFixed(1)} B per URL)`,
);
