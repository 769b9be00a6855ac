/** The near-duplicate index: banding (Manku et al.) against brute force, nearest-first answers, the cap. */
import { describe, expect, it } from 'vitest';
import {
  BANDS,
  NEAR_DUPLICATE_INDEX_DEFAULTS,
  NearDuplicateIndex,
} from '../../src/dedup/near-duplicate-index.js';
import { popcount32, type SimhashParts } from '../../src/extract/simhash.js';
import { mulberry32 } from '../fixtures/prng.js';

const distance = (a: SimhashParts, b: SimhashParts) => popcount32(a.hi ^ b.hi) + popcount32(a.lo ^ b.lo);

/** `key` with the bits at `positions` (0 = lowest of `lo`, 63 = highest of `hi`) flipped. */
function flip(key: SimhashParts, ...positions: number[]): SimhashParts {
  let { hi, lo } = key;
  for (const p of positions) {
    if (p < 32) lo ^= 1 << p;
    else hi ^= 1 << (p - 32);
  }
  return { hi: hi >>> 0, lo: lo >>> 0 };
}

function randomKey(rand: () => number): SimhashParts {
  return { hi: Math.floor(rand() * 2 ** 32), lo: Math.floor(rand() * 2 ** 32) };
}

/** `n` distinct bit positions out of 64. */
function positions(rand: () => number, n: number): number[] {
  const out = new Set<number>();
  while (out.size < n) out.add(Math.floor(rand() * 64));
  return [...out];
}

const X: SimhashParts = { hi: 0x12345678, lo: 0x9abcdef0 };

describe('NearDuplicateIndex', () => {
  it('finds a page within 3 bits, wherever the bits are, and none 4 or more bits away', () => {
    const index = new NearDuplicateIndex();
    expect(index.find(X)).toBeNull();
    expect(index.add(X, 'http://a.example/x')).toBe(true);
    expect(index.find(X)).toEqual({ url: 'http://a.example/x', distance: 0 });
    // 1, 2 and 3 bits, in one band or spread over three (leaving only band 0, 1, 2 or 3 whole).
    const spread = [
      [5, 21, 40],
      [5, 20, 63],
      [5, 40, 63],
      [20, 40, 63],
    ];
    for (const bits of [[0], [63], [0, 1], [15, 16], ...spread, [47, 48, 63], [60, 61, 62]]) {
      expect(index.find(flip(X, ...bits)), bits.join(',')).toEqual({
        url: 'http://a.example/x',
        distance: bits.length,
      });
    }
    // 4 bits: in four bands (no band shared) or in one (three bands shared): not near either way.
    for (const bits of [
      [0, 16, 32, 48],
      [0, 1, 2, 3],
      [10, 20, 30, 40, 50],
    ]) {
      expect(index.find(flip(X, ...bits)), bits.join(',')).toBeNull();
    }
  });

  it('answers as brute force does, on random fingerprints and near copies of them', () => {
    const rand = mulberry32(7);
    const index = new NearDuplicateIndex({ initialCapacity: 16 });
    const kept: Array<{ key: SimhashParts; url: string }> = [];
    for (let i = 0; i < 4000; i++) {
      // A third are near copies of a page already in: buckets with several pages, ties.
      const key =
        kept.length > 0 && rand() < 0.33
          ? flip(kept[Math.floor(rand() * kept.length)].key, ...positions(rand, Math.floor(rand() * 7)))
          : randomKey(rand);
      const url = `http://h${i % 7}.example/p/${i}`;
      kept.push({ key, url });
      index.add(key, url);
    }
    expect(index.size).toBe(kept.length);
    let near = 0;
    for (let q = 0; q < 3000; q++) {
      const base = kept[Math.floor(rand() * kept.length)];
      const key = rand() < 0.2 ? randomKey(rand) : flip(base.key, ...positions(rand, Math.floor(rand() * 6)));
      const except = rand() < 0.3 ? base.url : undefined;
      // Brute force: the nearest within 3 bits, the first added among equals, not `except`.
      let want: { url: string; distance: number } | null = null;
      let self = false;
      for (const k of kept) {
        const d = distance(k.key, key);
        if (d > 3) continue;
        if (k.url === except) self = true;
        else if (want === null || d < want.distance) want = { url: k.url, distance: d };
      }
      expect(index.lookup(key, except)).toEqual({ match: want, self });
      expect(index.find(key, except)).toEqual(want);
      if (want !== null) near++;
    }
    // Both kinds of answer were checked many times.
    expect(near).toBeGreaterThan(1000);
    expect(near).toBeLessThan(2900);
  });

  it('skips the page itself (`except`) and prefers the nearest, then the first added', () => {
    const index = new NearDuplicateIndex();
    index.add(flip(X, 1, 2), 'http://a.example/two-bits');
    index.add(flip(X, 3), 'http://a.example/one-bit');
    index.add(flip(X, 4), 'http://a.example/one-bit-later');
    index.add(X, 'http://a.example/self');
    expect(index.find(X)).toEqual({ url: 'http://a.example/self', distance: 0 });
    expect(index.lookup(X, 'http://a.example/self')).toEqual({
      match: { url: 'http://a.example/one-bit', distance: 1 },
      self: true,
    });
    expect(index.find(flip(X, 3), 'http://a.example/one-bit')).toEqual({
      url: 'http://a.example/self',
      distance: 1,
    });
    // the page itself is found even when a nearer page of another URL came first in its buckets
    const nearer = new NearDuplicateIndex();
    nearer.add(flip(X, 5), 'http://a.example/self');
    nearer.add(X, 'http://a.example/other');
    expect(nearer.lookup(X, 'http://a.example/self')).toEqual({
      match: { url: 'http://a.example/other', distance: 0 },
      self: true,
    });
    const alone = new NearDuplicateIndex();
    alone.add(X, 'http://a.example/self');
    expect(alone.lookup(flip(X, 9), 'http://a.example/self')).toEqual({ match: null, self: true });
    expect(alone.lookup(flip(X, 9, 10, 11, 12), 'http://a.example/self')).toEqual({
      match: null,
      self: false,
    });
    expect(alone.lookup(flip(X, 9), 'http://a.example/other')).toEqual({
      match: { url: 'http://a.example/self', distance: 1 },
      self: false,
    });
  });

  it('keeps URLs as they were given (UTF-8 in its arena), across growth', () => {
    const index = new NearDuplicateIndex({ initialCapacity: 1 });
    const urls = ['http://ü.example/ß?q=日本', `http://a.example/${'x'.repeat(3000)}`, 'http://b.example/'];
    const keys = urls.map((_, i) => ({ hi: i * 0x01010101, lo: ~i >>> 0 }));
    for (const [i, u] of urls.entries()) expect(index.add(keys[i], u)).toBe(true);
    for (const [i, u] of urls.entries()) expect(index.find(keys[i])?.url).toBe(u);
  });

  it('stops adding at maxPages, and still answers from the pages it holds', () => {
    const index = new NearDuplicateIndex({ maxPages: 3, initialCapacity: 2 });
    // Pairwise 32 bits or more apart.
    const keys = [0x00000000, 0x0000ffff, 0xffff0000, 0xffffffff].map((v) => ({ hi: v, lo: ~v >>> 0 }));
    expect(index.full).toBe(false);
    expect(keys.map((k, i) => index.add(k, `http://a.example/${i}`))).toEqual([true, true, true, false]);
    expect(index.size).toBe(3);
    expect(index.full).toBe(true);
    expect(index.find(keys[2])?.url).toBe('http://a.example/2');
    expect(index.find(keys[3])).toBeNull();
    expect(NEAR_DUPLICATE_INDEX_DEFAULTS.maxPages).toBe(1_000_000);
  });

  it('holds a page in 32 bytes plus its URL (at most 1.5× after growth), plus 1 MiB of bucket heads', () => {
    const index = new NearDuplicateIndex();
    expect(index.byteLength).toBeLessThan(200 * 1024);
    const rand = mulberry32(3);
    const n = 20_000;
    let urlBytes = 0;
    for (let i = 0; i < n; i++) {
      const url = `http://127.0.0.1:8080/p/${i}`;
      urlBytes += url.length;
      index.add(randomKey(rand), url);
    }
    const heads = BANDS * 65536 * 4;
    expect(index.byteLength - heads).toBeLessThanOrEqual(1.5 * (32 * n + urlBytes) + 64 * 1024);
    expect(index.byteLength - heads).toBeGreaterThanOrEqual(32 * n + urlBytes);
  });

  it('refuses settings the banding cannot answer', () => {
    expect(() => new NearDuplicateIndex({ maxDistance: 4 })).toThrow(
      new RangeError('maxDistance: expected an integer from 0 to 3, got 4'),
    );
    expect(() => new NearDuplicateIndex({ maxDistance: -1 })).toThrow(RangeError);
    expect(() => new NearDuplicateIndex({ maxPages: 0 })).toThrow(RangeError);
    expect(() => new NearDuplicateIndex({ maxPages: 2 ** 31 })).toThrow(
      new RangeError('maxPages: expected a positive integer below 2^31, got 2147483648'),
    );
    expect(new NearDuplicateIndex({ maxPages: 2 ** 31 - 1 }).maxPages).toBe(2 ** 31 - 1);
    expect(() => new NearDuplicateIndex({ initialCapacity: 0.5 })).toThrow(RangeError);
    expect(() => new NearDuplicateIndex({ initialCapacity: 0 })).toThrow(
      new RangeError('initialCapacity: expected a positive integer, got 0'),
    );
    const exact = new NearDuplicateIndex({ maxDistance: 0 });
    exact.add(X, 'http://a.example/');
    expect(exact.find(X)?.distance).toBe(0);
    expect(exact.find(flip(X, 0))).toBeNull();
  });
});
