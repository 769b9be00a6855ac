/** Near-duplicate marking of items at write, and its index rebuilt by replaying the items file. */
import { describe, expect, it } from 'vitest';
import { NearDuplicateIndex } from '../../src/dedup/near-duplicate-index.js';
import type { Item } from '../../src/engine/item.js';
import { NearDuplicateMarks } from '../../src/engine/near-duplicate-marks.js';

/** `hex` with the bits at `positions` (0 = the lowest) flipped. */
function flip(hex: string, ...positions: number[]): string {
  let hi = Number.parseInt(hex.slice(0, 8), 16);
  let lo = Number.parseInt(hex.slice(8), 16);
  for (const p of positions) {
    if (p < 32) lo ^= 1 << p;
    else hi ^= 1 << (p - 32);
  }
  return (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0');
}

const A = '0123456789abcdef';
/** 32 bits from A. */
const FAR = flip(A, ...Array.from({ length: 32 }, (_, i) => i * 2));

function item(path: string, data?: Record<string, unknown>, extra: Partial<Item> = {}): Item {
  return {
    url: `http://site.example${path}`,
    finalUrl: `http://site.example${path}`,
    status: 200,
    contentType: 'text/html',
    fetchedAt: '2026-12-03T00:00:00.000Z',
    depth: 0,
    source: 'crawl',
    worker: 'crawl-0',
    bytes: 100,
    sha256: '0'.repeat(64),
    ...(data === undefined ? {} : { data }),
    ...extra,
  };
}

/** Marks `items` in order; the `nearDuplicateOf` of each (or undefined). */
function markAll(marks: NearDuplicateMarks, items: Item[]): unknown[] {
  return items.map((i) => {
    marks.mark(i);
    return i.data?.nearDuplicateOf;
  });
}

describe('NearDuplicateMarks', () => {
  it('marks a page within 3 bits of an earlier one with its URL, and not a distinct page', () => {
    const marks = new NearDuplicateMarks();
    const items = [
      item('/post', { simhash: A, title: 'kept' }),
      item('/print/post', { simhash: flip(A, 3, 40, 63) }),
      item('/other', { simhash: FAR }),
      item('/almost', { simhash: flip(A, 1, 2, 3, 4) }),
    ];
    expect(markAll(marks, items)).toEqual([undefined, 'http://site.example/post', undefined, undefined]);
    // The source's own fields stay as they were.
    expect(items[0].data).toEqual({ simhash: A, title: 'kept' });
    expect(items[1].data).toEqual({
      simhash: flip(A, 3, 40, 63),
      nearDuplicateOf: 'http://site.example/post',
    });
    // Originals only: the marked page is not in the index.
    expect(marks.size).toBe(3);
  });

  it('points to originals only: a page near a marked page, but not near its original, is an original', () => {
    const marks = new NearDuplicateMarks();
    const b = flip(A, 0, 1, 2);
    const c = flip(b, 10, 11); // 2 bits from b, 5 from A
    expect(
      markAll(marks, [item('/a', { simhash: A }), item('/b', { simhash: b }), item('/c', { simhash: c })]),
    ).toEqual([undefined, 'http://site.example/a', undefined]);
    expect(markAll(marks, [item('/d', { simhash: flip(c, 20) })])).toEqual(['http://site.example/c']);
  });

  it('never marks a page as a near-duplicate of itself fetched again, nor adds it twice', () => {
    const marks = new NearDuplicateMarks();
    expect(
      markAll(marks, [
        item('/page', { simhash: A, version: 1 }),
        item('/page', { simhash: flip(A, 7), version: 2 }),
        item('/page', { simhash: A, version: 3 }),
      ]),
    ).toEqual([undefined, undefined, undefined]);
    expect(marks.size).toBe(1);
    // A new body far from the old one is an original of its own.
    marks.mark(item('/page', { simhash: FAR, version: 4 }));
    expect(marks.size).toBe(2);
    // Another URL is still marked against the page.
    expect(markAll(marks, [item('/copy', { simhash: flip(A, 9) })])).toEqual(['http://site.example/page']);
  });

  it('leaves out failures, bodies not stored, and pages without a valid simhash (exact duplicates have none)', () => {
    const marks = new NearDuplicateMarks();
    const skipped = [
      item('/error', { simhash: A }, { status: 500, error: { kind: 'http-status', message: 'HTTP 500' } }),
      item('/unstored', { simhash: A, storeError: 'EACCES' }),
      item('/upper', { simhash: A.toUpperCase() }),
      item('/short', { simhash: A.slice(1) }),
      item('/number', { simhash: 12345 }),
      item('/none', { duplicateOf: 'http://site.example/x' }),
      item('/no-data'),
    ];
    expect(markAll(marks, skipped)).toEqual(skipped.map(() => undefined));
    expect(marks.size).toBe(0);
    // ...and none of them counts as an original.
    expect(markAll(marks, [item('/first', { simhash: A })])).toEqual([undefined]);
    expect(marks.size).toBe(1);
  });

  it('stops adding originals when its index is full, and still marks pages near those it holds', () => {
    const marks = new NearDuplicateMarks(new NearDuplicateIndex({ maxPages: 1 }));
    expect(
      markAll(marks, [
        item('/a', { simhash: A }),
        item('/far', { simhash: FAR }),
        item('/far-copy', { simhash: FAR }),
        item('/a-copy', { simhash: flip(A, 5) }),
      ]),
    ).toEqual([undefined, undefined, undefined, 'http://site.example/a']);
  });

  it('rebuilds the same index from the item lines as written (replay in file order)', () => {
    const before = new NearDuplicateMarks();
    const written = [
      item('/a', { simhash: A }),
      item('/b', { simhash: flip(A, 0, 1, 2) }),
      item('/c', { simhash: flip(A, 0, 1, 2, 10, 11) }),
      item('/x', { simhash: FAR }),
      item('/a', { simhash: flip(A, 30) }),
      item('/e', { simhash: A }, { error: { kind: 'timeout', message: 't' } }),
    ];
    markAll(before, written);
    const lines = written.map((i) => JSON.parse(JSON.stringify(i)) as Record<string, unknown>);
    const after = new NearDuplicateMarks();
    for (const line of lines) after.replay(line);
    expect(after.size).toBe(before.size);
    // Pages after the restart are marked as they would have been without it.
    const next = () => [
      item('/c-copy', { simhash: flip(A, 0, 1, 2, 10) }),
      item('/x-copy', { simhash: flip(FAR, 63) }),
      item('/new', { simhash: flip(FAR, 0, 1, 2, 3, 4, 5, 6, 7) }),
    ];
    const want = markAll(before, next());
    expect(markAll(after, next())).toEqual(want);
    expect(want).toEqual(['http://site.example/c', 'http://site.example/x', undefined]);
    // Damaged or foreign lines are ignored.
    after.replay({ url: 42, data: { simhash: A } });
    after.replay({ url: 'http://site.example/z', data: 'text' });
    expect(after.size).toBe(before.size);
  });
});
