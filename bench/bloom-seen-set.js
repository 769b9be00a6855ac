#!/usr/bin/env node
/**
 * The Redis backend's seen-set, exact against Bloom (`--seen-set bloom`, our filter over strings:
 * Debian's redis-server has no RedisBloom): Redis memory per URL holding N URL fingerprints
 * (MEMORY USAGE of the keys ÷ N), and the Bloom filter's false-positive rate at its capacity (N
 * URLs never added, probed after the N added), for each error rate asked. The URLs are
 * `http://h<i mod 997>.example/p/<i>` (deterministic). Starts its own redis-server on a free
 * loopback port; stops it by PID.
 *
 *   npm run build && node bench/bloom-seen-set.js [--urls 1000000] [--rates 0.01,0.001]
 */
import { parseArgs } from 'node:util';
import pino from 'pino';
import { urlFingerprint } from '../dist/backends/redis/pending-writes.js';
import { openRedisLink } from '../dist/backends/redis/redis-link.js';
import { joinSeenSet } from '../dist/backends/redis/seen-set-choice.js';
import { startBenchRedis } from './lib/redis-server.js';

const { values: opts } = parseArgs({
  options: { urls: { type: 'string', default: '1000000' }, rates: { type: 'string', default: '0.01,0.001' } },
});
const n = Number(opts.urls);
const rates = opts.rates.split(',').map(Number);
/** Fingerprints per script call. */
const BATCH = 1000;

const fps = (tag) =>
  Array.from({ length: n }, (_, i) => urlFingerprint(`http://h${i % 997}.example/${tag}/${i}`));

async function keysBytes(client, pattern) {
  let bytes = 0;
  for (const k of await client.keys(pattern))
    bytes += Number(await client.call('MEMORY', 'USAGE', k, 'SAMPLES', '0'));
  return bytes;
}

const server = await startBenchRedis();
try {
  const link = openRedisLink(server.url, pino({ level: 'silent' }));
  const inserted = fps('p');
  const probes = fps('q');
  // The exact set, as the ENQUEUE script fills it (SADD of 16-hex-digit fingerprints).
  for (let i = 0; i < n; i += BATCH)
    await link.client.sadd('collector:{exact}:seen', inserted.slice(i, i + BATCH));
  const exact = await keysBytes(link.client, 'collector:{exact}:*');
  console.log(
    `exact set: ${n.toLocaleString('en')} URLs in ${(exact / 1048576).toFixed(1)} MB (${(exact / n).toFixed(1)} B per URL)`,
  );
  for (const rate of rates) {
    const P = `collector:{bloom-${rate}}:`;
    const shape = await joinSeenSet(
      link,
      P,
      { kind: 'bloom', capacity: n, errorRate: rate },
      pino({ level: 'silent' }),
    );
    const t0 = performance.now();
    for (let i = 0; i < n; i += BATCH) await link.script('markBloom', [P, ...inserted.slice(i, i + BATCH)]);
    const addMs = performance.now() - t0;
    let negatives = 0;
    for (let i = 0; i < n; i += BATCH) {
      for (const v of await link.script('probeBloom', [P, ...inserted.slice(i, i + BATCH)]))
        if (v === 0) negatives++;
    }
    let positives = 0;
    for (let i = 0; i < n; i += BATCH) {
      for (const v of await link.script('probeBloom', [P, ...probes.slice(i, i + BATCH)]))
        if (v === 1) positives++;
    }
    const bytes = await keysBytes(link.client, `${P}bloom:*`);
    console.log(
      `bloom p=${rate}: m=${shape.bits.toLocaleString('en')} bits, k=${shape.hashes}: ${(bytes / 1048576).toFixed(1)} MB ` +
        `(${(bytes / n).toFixed(2)} B per URL); false positives at capacity ${positives}/${n} = ${((positives / n) * 100).toFixed(3)} %; ` +
        `false negatives ${negatives}; ${Math.round(n / (addMs / 1000)).toLocaleString('en')} adds/s`,
    );
  }
  await link.close(1000);
} finally {
  server.stop();
}
