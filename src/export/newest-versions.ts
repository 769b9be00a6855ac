/**
 * Which line is the newest version of each page, found in a first pass over the items in fetch
 * order without keeping the items: a compact table from each URL's 64-bit fingerprint to the id
 * of its newest line (fetch-order.ts: from its file and line number), 12 bytes a slot, at most
 * 3/4 full — 16 to 32 bytes per distinct URL (24 MB for 1,000,000 URLs at most), against ~200
 * for a `Map` of URLs. The second pass emits a line only when it is the one recorded.
 *
 * A page's versions are its lines (the same `url`: continuous collection fetches pages again,
 * src/engine/revisits.ts). The newest is the last in fetch order, except that a line marked
 * `data.unchanged` (a 304, or the same body fetched again: no body of its own, the content is
 * the earlier version's) never replaces an earlier line of the page.
 */
import { fingerprint, fp } from '../url/fingerprint.js';

const MAX_LOAD = 0.75;
/** Set in a recorded id when that line is `unchanged`. */
const UNCHANGED = 0x8000_0000;

/** The largest line id a table records (ids are 31-bit). */
export const MAX_LINE_ID = 0x7fff_ffff;

/** The newest line of each URL (see the module comment). */
export class NewestVersions {
  /** (hi, lo) fingerprint pairs; (0, 0) is empty, and is stored as (0, 1). */
  private keys: Uint32Array;
  /** Id of the newest line, with {@link UNCHANGED}. */
  private values: Uint32Array;
  private mask: number;
  private count = 0;

  /**
   * @param expected URLs expected (e.g. from the files' sizes): the table is made that size at
   *   once. Growing it later frees the old arrays, and freeing a native buffer over 128 KiB raises
   *   glibc's mmap threshold, after which smaller buffers fragment the heap (see block-writer.ts).
   */
  constructor(expected = 768) {
    let cap = 1024;
    while (cap * MAX_LOAD < expected) cap *= 2;
    this.keys = new Uint32Array(cap * 2);
    this.values = new Uint32Array(cap);
    this.mask = cap - 1;
  }

  /** Distinct URLs recorded. */
  get size(): number {
    return this.count;
  }

  /** Bytes held by the table. */
  get byteLength(): number {
    return this.keys.byteLength + this.values.byteLength;
  }

  /**
   * Record line `id` of `url`, the newest so far (lines are recorded in fetch order).
   * @param unchanged the line is marked `data.unchanged`.
   * @throws RangeError for an id over {@link MAX_LINE_ID} (over 2^31 lines in all).
   */
  record(url: string, id: number, unchanged: boolean): void {
    if (id > MAX_LINE_ID) throw new RangeError(`item line id ${id} over ${MAX_LINE_ID}: too many item lines`);
    const i = this.slot(url);
    const value = id | (unchanged ? UNCHANGED : 0);
    if (this.keys[i * 2] === 0 && this.keys[i * 2 + 1] === 0) {
      this.keys[i * 2] = fp[0];
      this.keys[i * 2 + 1] = fp[1] === 0 && fp[0] === 0 ? 1 : fp[1];
      this.values[i] = value >>> 0;
      if (++this.count > (this.mask + 1) * MAX_LOAD) this.grow();
      return;
    }
    if (!unchanged || (this.values[i] & UNCHANGED) !== 0) this.values[i] = value >>> 0;
  }

  /** Whether line `id` is the one recorded for `url`. */
  isNewest(url: string, id: number): boolean {
    const i = this.slot(url);
    if (this.keys[i * 2] === 0 && this.keys[i * 2 + 1] === 0) return false;
    return (this.values[i] & ~UNCHANGED) >>> 0 === id;
  }

  /** The slot of `url`'s fingerprint: its own, or the empty one where it would go. Sets `fp`. */
  private slot(url: string): number {
    fingerprint(url);
    const hi = fp[0];
    const lo = hi === 0 && fp[1] === 0 ? 1 : fp[1];
    const keys = this.keys;
    const mask = this.mask;
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
    for (;;) {
      const h = keys[i * 2];
      const l = keys[i * 2 + 1];
      if ((h === 0 && l === 0) || (h === hi && l === lo)) return i;
      i = (i + 1) & mask;
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const cap = (this.mask + 1) * 2;
    const keys = new Uint32Array(cap * 2);
    const values = new Uint32Array(cap);
    const mask = cap - 1;
    for (let j = 0; j < oldValues.length; j++) {
      const hi = oldKeys[j * 2];
      const lo = oldKeys[j * 2 + 1];
      if (hi === 0 && lo === 0) continue;
      let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
      while (keys[i * 2] !== 0 || keys[i * 2 + 1] !== 0) i = (i + 1) & mask;
      keys[i * 2] = hi;
      keys[i * 2 + 1] = lo;
      values[i] = oldValues[j];
    }
    this.keys = keys;
    this.values = values;
    this.mask = mask;
  }
}
