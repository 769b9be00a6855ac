import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ContentIndex,
  type ContentKey,
  contentKey,
  contentKeyFromHex,
  LINE_STRIDE,
  RING_SIZE,
} from '../../src/dedup/content-index.js';
import { Journal, recoverJournal } from '../../src/frontier/journal.js';

let dir: string;
let itemsPath: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'collector-content-index-'));
  itemsPath = path.join(dir, 'items', 'w0.jsonl');
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** Deterministic PRNG (mulberry32) returning uint32. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const keyOf = (s: string): ContentKey => contentKeyFromHex(sha(s))!;

/** A URL and title with multi-byte UTF-8 (2, 3 and 4 bytes) and an escaped lone surrogate. */
function unicodeItem(i: number): Record<string, unknown> {
  const titles = ['plain', 'Café é', '日本語のページ', 'emoji 🎉🚀', 'lone \ud800 surrogate', ''];
  return {
    url: `http://a.example/${i % 7 === 0 ? 'ü/' : ''}${i}`,
    status: 200,
    title: titles[i % titles.length].repeat(1 + (i % 5)),
    sha256: sha(`body ${i}`),
    file: `files/a.example/${i}`,
  };
}

/** Write items through a real Journal, reporting each line to the index like the crawler does. */
async function writeItems(
  index: ContentIndex,
  items: Array<Record<string, unknown>>,
  keepUrls = true,
): Promise<Journal> {
  const j = await Journal.open({
    stateDir: path.join(dir, 'state', 'w0'),
    itemsPath,
    saveEveryItems: 1_000_000,
    saveIntervalMs: 3_600_000,
  });
  for (const it of items) {
    const json = JSON.stringify(it);
    j.item(json);
    index.appendLine(Buffer.byteLength(json) + 1, keepUrls ? (it.url as string) : undefined);
  }
  return j;
}

/** Byte offset of every line of a file, from its bytes. */
async function lineOffsets(file: string): Promise<number[]> {
  const buf = await fs.readFile(file);
  const out: number[] = [];
  for (let start = 0; start < buf.length; ) {
    out.push(start);
    start = buf.indexOf(0x0a, start) + 1;
  }
  return out;
}

describe('content keys', () => {
  it('takes the first 8 digest bytes as two big-endian uint32, the same from hex', () => {
    const digest = createHash('sha256').update('x').digest();
    const k = contentKey(digest);
    expect(k).toEqual({ hi: digest.readUInt32BE(0), lo: digest.readUInt32BE(4) });
    expect(contentKeyFromHex(digest.toString('hex'))).toEqual(k);
    expect(contentKeyFromHex('FFFFFFFF00000001')).toEqual({ hi: 0xffffffff, lo: 1 });
    expect(contentKeyFromHex('abc')).toBeNull();
    expect(contentKeyFromHex('zzzzzzzzzzzzzzzz')).toBeNull();
    expect(() => contentKey(new Uint8Array(7))).toThrow(RangeError);
  });
});

describe('ContentIndex table', () => {
  it('adds and looks up; the first original wins', () => {
    const index = new ContentIndex({ itemsPath });
    expect(index.find(keyOf('a'))).toBeNull();
    expect(index.add(keyOf('a'), 5)).toBe(true);
    expect(index.add(keyOf('a'), 9)).toBe(false);
    expect(index.find(keyOf('a'))).toEqual({ ordinal: 5 });
    expect(index.find(keyOf('b'))).toBeNull();
    // keys equal to the empty-slot pattern are ordinary keys
    expect(index.add({ hi: 0, lo: 0 }, 0)).toBe(true);
    expect(index.find({ hi: 0, lo: 0 })).toEqual({ ordinal: 0 });
    expect(index.size).toBe(2);
    expect(() => index.add(keyOf('c'), -1)).toThrow(RangeError);
    expect(() => index.add(keyOf('c'), 0xfffffffe)).toThrow(RangeError);
  });

  it('answers a claimed key with its URL until commit, then with the line', () => {
    const index = new ContentIndex({ itemsPath, ringSize: 2 });
    expect(index.claim(keyOf('a'), 'http://a.example/orig')).toBe(true);
    expect(index.claim(keyOf('a'), 'http://a.example/other')).toBe(false);
    expect(index.find(keyOf('a'))).toEqual({ url: 'http://a.example/orig' });
    const n = index.appendLine(10, 'http://a.example/orig');
    index.commit(keyOf('a'), n);
    // in the ring: the URL without I/O
    expect(index.find(keyOf('a'))).toEqual({ url: 'http://a.example/orig' });
    index.appendLine(10, 'http://a.example/x');
    index.appendLine(10, 'http://a.example/y');
    // out of the ring: only the line
    expect(index.find(keyOf('a'))).toEqual({ ordinal: 0 });
    expect(index.size).toBe(1);
  });

  it('releases claimed keys and keeps every other key findable (backward-shift deletion)', () => {
    const index = new ContentIndex({ itemsPath, initialCapacity: 16 });
    // Low-entropy keys cluster in the probe sequence: releases must repair the clusters.
    const keys = Array.from({ length: 3000 }, (_, i) => ({ hi: i % 7, lo: (i * 13) % 997 }));
    const unique = [...new Map(keys.map((k) => [`${k.hi}:${k.lo}`, k])).values()];
    for (const [i, k] of unique.entries()) expect(index.claim(k, `http://h/${i}`)).toBe(true);
    const released = new Set<number>();
    for (let i = 0; i < unique.length; i += 3) {
      index.release(unique[i]);
      released.add(i);
    }
    index.release({ hi: 99, lo: 99 }); // absent: nothing happens
    expect(index.size).toBe(unique.length - released.size);
    unique.forEach((k, i) => {
      expect(index.find(k)).toEqual(released.has(i) ? null : { url: `http://h/${i}` });
    });
    // A released key can be claimed again, by another URL.
    expect(index.claim(unique[0], 'http://h/again')).toBe(true);
    expect(index.find(unique[0])).toEqual({ url: 'http://h/again' });
  });

  it('grows to 1,000,000 entries at ≤ 24 bytes per entry, finding every one', () => {
    const rand = mulberry32(7);
    const n = 1_000_000;
    const his = new Uint32Array(n);
    const los = new Uint32Array(n);
    const index = new ContentIndex({ itemsPath, initialCapacity: 16 });
    let worst = 0;
    let sum = 0;
    let samples = 0;
    for (let i = 0; i < n; i++) {
      his[i] = rand();
      los[i] = rand();
      if (!index.add({ hi: his[i], lo: los[i] }, i)) throw new Error(`key ${i} reported present`);
      if (i >= 10_000 && i % 1000 === 0) {
        const perEntry = index.tableByteLength / index.size;
        worst = Math.max(worst, perEntry);
        sum += perEntry;
        samples++;
      }
    }
    expect(index.size).toBe(n);
    const perEntry = index.byteLength / n;
    expect(perEntry).toBeLessThanOrEqual(24);
    expect(worst).toBeLessThanOrEqual(22.5); // right after a growth: 0.75 / 1.4 full
    expect(sum / samples).toBeLessThanOrEqual(20);
    for (let i = 0; i < n; i++) {
      const m = index.find({ hi: his[i], lo: los[i] });
      if (m?.ordinal !== i) expect(m).toEqual({ ordinal: i });
    }
    // the table holds ordinals, not strings: a million absent keys are absent
    let falseHits = 0;
    for (let i = 0; i < n; i++) if (index.find({ hi: rand(), lo: rand() }) !== null) falseHits++;
    expect(falseHits).toBe(0);
  });
});

describe('ContentIndex line resolution', () => {
  it('resolves recent lines from the ring (not yet on disk) and older ones from the items file', async () => {
    const index = new ContentIndex({ itemsPath });
    const items = Array.from({ length: RING_SIZE + 1000 }, (_, i) => unicodeItem(i));
    const j = await writeItems(index, items);
    // nothing flushed: the recent lines come from memory
    expect(await fs.readFile(itemsPath, 'utf8')).toBe('');
    const recent = items.length - 1;
    expect(index.recentUrl(recent)).toBe(items[recent].url);
    expect(await index.resolveUrl(recent)).toBe(items[recent].url);
    expect(await index.resolveUrl(items.length - RING_SIZE)).toBe(items[items.length - RING_SIZE].url);
    // older than the ring and not flushed, no flush to await: not found
    expect(index.recentUrl(0)).toBeUndefined();
    expect(await index.resolveUrl(0)).toBeNull();
    await j.flush();
    for (const n of [0, 1, 255, 256, 257, 511, 512, 999, items.length - RING_SIZE - 1]) {
      expect(await index.resolveUrl(n, items[n].sha256 as string)).toBe(items[n].url);
    }
    await j.close();
  });

  it('keeps sparse offsets exact with multi-byte UTF-8 titles and resolves every line from disk', async () => {
    const index = new ContentIndex({ itemsPath, ringSize: 1 });
    const items = Array.from({ length: 3 * LINE_STRIDE + 17 }, (_, i) => unicodeItem(i));
    const j = await writeItems(index, items);
    await j.close();
    const offsets = await lineOffsets(itemsPath);
    expect(offsets.length).toBe(items.length);
    expect(index.lines).toBe(items.length);
    expect(index.bytes).toBe((await fs.stat(itemsPath)).size);
    for (let n = 0; n < items.length; n++) {
      expect(index.blockOffset(n)).toBe(offsets[Math.floor(n / LINE_STRIDE) * LINE_STRIDE]);
    }
    for (let n = 0; n < items.length - 1; n++) {
      expect(index.recentUrl(n)).toBeUndefined();
      expect(await index.resolveUrl(n, items[n].sha256 as string)).toBe(items[n].url);
    }
    expect(() => index.blockOffset(items.length)).toThrow(RangeError);
  });

  it('rebuilds the same sparse offsets from recoverJournal (resume), reading from disk', async () => {
    const written = new ContentIndex({ itemsPath });
    const items = Array.from({ length: 2 * LINE_STRIDE + 3 }, (_, i) => unicodeItem(i));
    await (await writeItems(written, items)).close();
    const index = new ContentIndex({ itemsPath });
    const stored: number[] = [];
    await recoverJournal(
      { stateDir: path.join(dir, 'state', 'w0'), itemsPath },
      { add: () => true, has: () => false },
      (it, line) => {
        if (index.add(contentKeyFromHex(it.sha256 as string)!, line.index)) stored.push(line.index);
      },
      (line) => expect(index.appendLine(line.bytes)).toBe(line.index),
    );
    expect(stored.length).toBe(items.length);
    expect(index.bytes).toBe(written.bytes);
    for (let n = 0; n < items.length; n++) expect(index.blockOffset(n)).toBe(written.blockOffset(n));
    // the ring has no URLs after a resume: the line is read back
    const n = 300;
    expect(index.find(contentKeyFromHex(items[n].sha256 as string)!)).toEqual({ ordinal: n });
    expect(await index.resolveUrl(n, items[n].sha256 as string)).toBe(items[n].url);
  });

  it('awaits the flush once when a line is not on disk yet', async () => {
    let j: Journal | undefined;
    let flushes = 0;
    const index = new ContentIndex({
      itemsPath,
      ringSize: 1,
      flush: async () => {
        flushes++;
        await j!.flush();
      },
    });
    const items = Array.from({ length: 10 }, (_, i) => unicodeItem(i));
    j = await writeItems(index, items);
    expect(await index.resolveUrl(3)).toBe(items[3].url);
    expect(flushes).toBe(1);
    expect(await index.resolveUrl(4)).toBe(items[4].url);
    expect(flushes).toBe(1);
    await j.close();
  });

  it('falls back to null when the line cannot be found or does not match', async () => {
    let flushes = 0;
    const index = new ContentIndex({
      itemsPath,
      ringSize: 1,
      flush: async () => {
        flushes++;
      },
    });
    // no items file at all
    index.appendLine(50, 'http://a.example/0');
    index.appendLine(50, 'http://a.example/1');
    expect(await index.resolveUrl(0)).toBeNull();
    expect(flushes).toBe(1);
    // lines the flush never writes: still null after one retry
    const items = Array.from({ length: 5 }, (_, i) => unicodeItem(i));
    const fresh = new ContentIndex({ itemsPath, ringSize: 1, flush: async () => void flushes++ });
    const j = await writeItems(fresh, items);
    await j.close();
    fresh.appendLine(40, 'http://a.example/never-written');
    fresh.appendLine(40, 'http://a.example/last');
    flushes = 0;
    expect(await fresh.resolveUrl(5)).toBeNull();
    expect(flushes).toBe(1);
    // a line that is there but has another body hash, or is not an item: null
    expect(await fresh.resolveUrl(2, sha('something else'))).toBeNull();
    expect(await fresh.resolveUrl(2, items[2].sha256 as string)).toBe(items[2].url);
    await fs.appendFile(itemsPath, 'not json\n');
    const bad = new ContentIndex({ itemsPath, ringSize: 1 });
    for (const line of (await fs.readFile(itemsPath, 'utf8')).split('\n').slice(0, -1)) {
      bad.appendLine(Buffer.byteLength(line) + 1);
    }
    expect(await bad.resolveUrl(5)).toBeNull();
    expect(await bad.resolveUrl(4)).toBe(items[4].url);
    // ordinals never reported
    expect(await bad.resolveUrl(6)).toBeNull();
    expect(await bad.resolveUrl(-1)).toBeNull();
  });
});
