/**
 * A compact set of 64-bit fingerprints: open addressing with linear probing over one
 * Uint32Array of (hi, lo) pairs. 8 bytes per slot, at most 3/4 full, so 10.7–21 bytes per
 * member — about a tenth of a `Set<string>` of URLs.
 */
import { fingerprint, fp } from '../url/fingerprint.js';
import type { SeenSet } from './seen-set.js';

const MAX_LOAD = 0.75;

/**
 * A growable set of 64-bit fingerprints, the embedded {@link SeenSet}. The pair (0, 0) is stored
 * as (0, 1).
 */
export class FingerprintSet implements SeenSet {
  private slots: Uint32Array;
  private mask: number;
  private count = 0;
  private limit: number;

  /** @param initialCapacity expected members; the table is sized to hold them without growing. */
  constructor(initialCapacity = 1024) {
    let cap = 16;
    while (cap * MAX_LOAD < initialCapacity) cap *= 2;
    this.slots = new Uint32Array(cap * 2);
    this.mask = cap - 1;
    this.limit = Math.floor(cap * MAX_LOAD);
  }

  /** Members in the set. */
  get size(): number {
    return this.count;
  }

  /** Bytes held by the table (for memory accounting). */
  get byteLength(): number {
    return this.slots.byteLength;
  }

  /** Add a fingerprint. @returns true if it was not yet a member. */
  addPair(hi: number, lo: number): boolean {
    if (hi === 0 && lo === 0) lo = 1;
    const slots = this.slots;
    const mask = this.mask;
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
    for (;;) {
      const h = slots[i * 2];
      const l = slots[i * 2 + 1];
      if (h === 0 && l === 0) break;
      if (h === hi && l === lo) return false;
      i = (i + 1) & mask;
    }
    slots[i * 2] = hi;
    slots[i * 2 + 1] = lo;
    if (++this.count > this.limit) this.grow();
    return true;
  }

  /** @returns whether the fingerprint is a member. */
  hasPair(hi: number, lo: number): boolean {
    if (hi === 0 && lo === 0) lo = 1;
    const slots = this.slots;
    const mask = this.mask;
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
    for (;;) {
      const h = slots[i * 2];
      const l = slots[i * 2 + 1];
      if (h === 0 && l === 0) return false;
      if (h === hi && l === lo) return true;
      i = (i + 1) & mask;
    }
  }

  /** Add the fingerprint of a string (see url/fingerprint). @returns true if it was new. */
  add(s: string): boolean {
    fingerprint(s);
    return this.addPair(fp[0], fp[1]);
  }

  /** @returns whether the string's fingerprint is a member. */
  has(s: string): boolean {
    fingerprint(s);
    return this.hasPair(fp[0], fp[1]);
  }

  private grow(): void {
    const old = this.slots;
    const cap = (this.mask + 1) * 2;
    this.slots = new Uint32Array(cap * 2);
    this.mask = cap - 1;
    this.limit = Math.floor(cap * MAX_LOAD);
    this.count = 0;
    for (let i = 0; i < old.length; i += 2) {
      const h = old[i];
      const l = old[i + 1];
      if (h !== 0 || l !== 0) this.addPair(h, l);
    }
  }
}
