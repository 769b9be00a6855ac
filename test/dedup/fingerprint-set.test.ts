import { describe, expect, it } from 'vitest';
import { FingerprintSet } from '../../src/dedup/fingerprint-set.js';
import { fingerprint, fingerprintHex, fp, hash32 } from '../../src/url/fingerprint.js';
import { mulberry32 } from '../fixtures/prng.js';

/** n distinct URL-like strings (a counter keeps them distinct; the random part varies length and content). */
function randomUrls(n: number, seed: number): string[] {
  const rand = mulberry32(seed);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-_/.';
  const out: string[] = new Array(n);
  for (let i = 0; i < n; i++) {
    let path = '';
    const len = Math.floor(rand() * 30);
    for (let j = 0; j < len; j++) path += alphabet[Math.floor(rand() * alphabet.length)];
    out[i] = `https://h${Math.floor(rand() * 1000)}.example/${path}?id=${i}`;
  }
  return out;
}

let sample: string[] | undefined;
/** The shared 200,000-string sample (built once). */
function sample200k(): string[] {
  sample ??= randomUrls(200_000, 1);
  return sample;
}

describe('fingerprint', () => {
  it('is deterministic and writes both halves to fp', () => {
    fingerprint('https://example.com/');
    const a = [fp[0], fp[1]];
    fingerprint('https://example.com/other');
    fingerprint('https://example.com/');
    expect([fp[0], fp[1]]).toEqual(a);
    expect(fingerprintHex('https://example.com/')).toBe(
      a[0].toString(16).padStart(8, '0') + a[1].toString(16).padStart(8, '0'),
    );
    expect(fingerprintHex('https://example.com/')).toMatch(/^[0-9a-f]{16}$/);
    expect(hash32('https://example.com/')).toBe(a[0]);
  });

  it('differs for near-identical strings (case, one char, length, empty)', () => {
    const inputs = [
      '',
      'a',
      'A',
      'b',
      'ab',
      'ba',
      'aa',
      'a\u0000',
      'https://x/a',
      'https://x/b',
      'https://x/a/',
    ];
    const hexes = inputs.map(fingerprintHex);
    expect(new Set(hexes).size).toBe(inputs.length);
  });

  it('gives distinct 64-bit fingerprints to 200,000 distinct strings', () => {
    const urls = sample200k();
    const seen = new Set<string>();
    for (const u of urls) {
      fingerprint(u);
      seen.add(`${fp[0]}:${fp[1]}`);
    }
    expect(seen.size).toBe(urls.length);
  });

  it('each half alone is well spread (no degenerate half)', () => {
    const urls = randomUrls(50_000, 2);
    const hi = new Set<number>();
    const lo = new Set<number>();
    for (const u of urls) {
      fingerprint(u);
      hi.add(fp[0]);
      lo.add(fp[1]);
    }
    // 50k values in 2^32: a handful of collisions at most
    expect(hi.size).toBeGreaterThan(urls.length - 10);
    expect(lo.size).toBeGreaterThan(urls.length - 10);
  });
});

describe('FingerprintSet', () => {
  it('add returns true once, has reflects membership', () => {
    const set = new FingerprintSet();
    expect(set.size).toBe(0);
    expect(set.has('https://example.com/')).toBe(false);
    expect(set.add('https://example.com/')).toBe(true);
    expect(set.add('https://example.com/')).toBe(false);
    expect(set.has('https://example.com/')).toBe(true);
    expect(set.has('https://example.com')).toBe(false);
    expect(set.size).toBe(1);
  });

  it('addPair/hasPair agree with add/has on the same fingerprint', () => {
    const set = new FingerprintSet();
    set.add('https://example.com/x');
    fingerprint('https://example.com/x');
    expect(set.hasPair(fp[0], fp[1])).toBe(true);
    expect(set.addPair(fp[0], fp[1])).toBe(false);
    expect(set.addPair(1, 2)).toBe(true);
    expect(set.hasPair(1, 2)).toBe(true);
    expect(set.hasPair(2, 1)).toBe(false);
    expect(set.size).toBe(2);
  });

  it('handles the (0, 0) pair (the empty-slot marker)', () => {
    const set = new FingerprintSet();
    expect(set.hasPair(0, 0)).toBe(false);
    expect(set.addPair(0, 0)).toBe(true);
    expect(set.hasPair(0, 0)).toBe(true);
    expect(set.addPair(0, 0)).toBe(false);
    expect(set.size).toBe(1);
    // survives growth
    for (let i = 1; i <= 5000; i++) set.addPair(i, i * 7);
    expect(set.hasPair(0, 0)).toBe(true);
    expect(set.size).toBe(5001);
  });

  it('handles extreme 32-bit halves', () => {
    const set = new FingerprintSet(4);
    const pairs: Array<[number, number]> = [
      [0xffffffff, 0xffffffff],
      [0x80000000, 0],
      [0, 0x80000000],
      [0, 2],
      [0xffffffff, 0],
    ];
    for (const [h, l] of pairs) expect(set.addPair(h, l)).toBe(true);
    for (const [h, l] of pairs) expect(set.hasPair(h, l)).toBe(true);
    expect(set.hasPair(0x7fffffff, 0xffffffff)).toBe(false);
  });

  it('keeps every member through growth (200,000 random strings, no false negatives)', () => {
    const urls = sample200k();
    const set = new FingerprintSet(16);
    const initialBytes = set.byteLength;
    for (const u of urls) {
      if (!set.add(u)) expect.fail(`add(${u}) reported an existing member`);
    }
    expect(set.size).toBe(urls.length);
    expect(set.byteLength).toBeGreaterThan(initialBytes);
    let missing = 0;
    for (const u of urls) if (!set.has(u)) missing++;
    expect(missing).toBe(0);
    let readded = 0;
    for (const u of urls) if (set.add(u)) readded++;
    expect(readded).toBe(0);
    expect(set.size).toBe(urls.length);
  });

  it('reports non-members as absent (strings never added)', () => {
    const set = new FingerprintSet();
    for (const u of randomUrls(50_000, 4)) set.add(u);
    let falsePositives = 0;
    for (const u of randomUrls(50_000, 5)) if (set.has(`${u}#other`)) falsePositives++;
    expect(falsePositives).toBe(0);
  });

  it('sizes the table for initialCapacity without growing', () => {
    const set = new FingerprintSet(10_000);
    const before = set.byteLength;
    for (let i = 1; i <= 10_000; i++) set.addPair(i, Math.imul(i, 0x9e3779b1) >>> 0);
    expect(set.byteLength).toBe(before);
    expect(set.size).toBe(10_000);
  });

  it('uses ≤ 24 bytes per member after 1,000,000 pairs', () => {
    const set = new FingerprintSet();
    const rand = mulberry32(7);
    const pairs = new Uint32Array(2_000_000);
    for (let i = 0; i < pairs.length; i++) pairs[i] = Math.floor(rand() * 4294967296);
    let added = 0;
    for (let i = 0; i < pairs.length; i += 2) if (set.addPair(pairs[i], pairs[i + 1])) added++;
    expect(added).toBe(1_000_000); // random 64-bit pairs: no duplicates expected
    expect(set.size).toBe(1_000_000);
    expect(set.byteLength / set.size).toBeLessThanOrEqual(24);
    // spot-check members survived the growth steps
    for (let i = 0; i < pairs.length; i += 2002) expect(set.hasPair(pairs[i], pairs[i + 1])).toBe(true);
  });
});
