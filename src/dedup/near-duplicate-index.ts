/**
 * The near-duplicate index of one worker: 64-bit SimHash fingerprints (`extract/simhash.ts`) of
 * pages already written, each with the URL of its page, answering "is there a page within k bits
 * of this one?" without comparing against every page.
 *
 * The banding of Manku, Jain and Das Sarma ("Detecting near-duplicates for web crawling", WWW
 * 2007: their tables of permuted fingerprints, one table per band here): the 64 bits are cut into 4 bands of 16 bits; two fingerprints that differ in at
 * most 3 bits leave at least one band untouched (pigeonhole: 3 differing bits fall in at most 3
 * bands), so the candidates of a query are the pages that share one of its 4 band values exactly,
 * and only those are compared bit by bit. With n random fingerprints a band value is shared by
 * n / 65,536 pages on average: about 4 × 15 = 60 comparisons at 10^6 pages, 6 at 10^5.
 *
 * Memory, all in typed arrays (off the V8 heap; nothing per page on it): per page one 32-byte
 * record — the fingerprint (8 bytes), its 4 bucket links (one singly linked list per band value,
 * newest first) and where its URL is — and the URL's UTF-8 bytes in an arena: 32 + URL-length
 * bytes, up to 1.5× that just after the arrays grew; plus 4 × 65,536 × 4 bytes = 1 MiB of bucket
 * heads, taken with the first page: 76 bytes per page at 10^6 pages with 24–29-character URLs.
 * A lookup's cost is its candidates' records, each read from memory (a record is half a cache
 * line): 0.2–0.4 µs at 10^5 pages, 8–11 µs at 10^6, where each of the ~61 records read is a cache
 * miss (`bench/near-duplicates.js`, bench/RESULTS.md 2026-12-03).
 * Past {@link NEAR_DUPLICATE_INDEX_DEFAULTS}.maxPages pages the index is full: pages are still
 * looked up, but no longer added, so memory stops growing there.
 */
import { popcount32, type SimhashParts } from '../extract/simhash.js';

/**
 * - `maxDistance` 3: fingerprints at most 3 bits apart are near-duplicates (Manku et al.'s k for
 *   64-bit fingerprints); at most {@link BANDS} − 1, which the banding guarantees to find;
 * - `maxPages` 1,000,000: pages kept at most (32 + 70 bytes each with 70-character URLs: about
 *   100 MB, up to 1.5× that just after the arrays grew); past it new pages are checked against
 *   those kept, not added;
 * - `initialCapacity` 1024: pages the arrays hold before they first grow (by 1.5×).
 */
export const NEAR_DUPLICATE_INDEX_DEFAULTS = {
  maxDistance: 3,
  maxPages: 1_000_000,
  initialCapacity: 1024,
} as const;

/** Bands of a fingerprint, each matched exactly to find candidates. */
export const BANDS = 4;
/** Bits per band (64 / {@link BANDS}). */
const BAND_BITS = 16;
/** Bucket heads per band: one per band value. */
const BAND_VALUES = 1 << BAND_BITS;
/** Growth factor of the records and the URL arena. */
const GROWTH = 1.5;
/** Largest URL arena: its offsets are 32-bit. */
const MAX_ARENA_BYTES = 0xffffffff;
/** End of a bucket's list. */
const NONE = 0xffffffff;
/**
 * A page's record, 8 × 32 bits: fingerprint high and low halves, the next page of its bucket in
 * each band, its URL's offset and length in the arena.
 */
const RECORD = 8;
const HI = 0;
const LO = 1;
const LINK = 2;
const URL_AT = 6;
const URL_LENGTH = 7;

/** Settings of a {@link NearDuplicateIndex} (defaults: {@link NEAR_DUPLICATE_INDEX_DEFAULTS}). */
export interface NearDuplicateIndexOptions {
  /** Largest Hamming distance of a near-duplicate, 0 to {@link BANDS} − 1. */
  maxDistance?: number;
  /** Pages kept at most; later ones are looked up but not added. */
  maxPages?: number;
  /** Pages held before the arrays first grow. */
  initialCapacity?: number;
}

/** A page found near a fingerprint. */
export interface NearDuplicateMatch {
  /** The URL it was added with. */
  url: string;
  /** Bits in which its fingerprint differs from the one looked up (0..maxDistance). */
  distance: number;
}

/** What {@link NearDuplicateIndex.lookup} finds. */
export interface NearDuplicateLookup {
  /** The nearest page within `maxDistance` bits whose URL is not the one looked up, or null. */
  match: NearDuplicateMatch | null;
  /** Whether a page with the URL looked up is within `maxDistance` bits (an earlier version of it). */
  self: boolean;
}

/** Fingerprints of pages and their URLs, searched by band (see the module comment). */
export class NearDuplicateIndex {
  readonly maxDistance: number;
  readonly maxPages: number;
  private cap: number;
  private count = 0;
  /** A {@link RECORD} per page, in the order they were added (a page's id is its index). */
  private records: Uint32Array;
  /** `heads[b * BAND_VALUES + v]`: the newest page with value `v` in band `b`, or NONE. */
  private heads: Uint32Array | null = null;
  /** The URLs' UTF-8 bytes, one after another. */
  private arena: Buffer;
  private arenaEnd = 0;

  /**
   * @param opts see {@link NearDuplicateIndexOptions}.
   * @throws RangeError when `maxDistance` is not an integer from 0 to {@link BANDS} − 1, or
   *   `maxPages` or `initialCapacity` not a positive integer (maxPages at most 2^31 − 1).
   */
  constructor(opts: NearDuplicateIndexOptions = {}) {
    const d = NEAR_DUPLICATE_INDEX_DEFAULTS;
    this.maxDistance = opts.maxDistance ?? d.maxDistance;
    this.maxPages = opts.maxPages ?? d.maxPages;
    const initial = opts.initialCapacity ?? d.initialCapacity;
    if (!(Number.isInteger(this.maxDistance) && this.maxDistance >= 0 && this.maxDistance < BANDS)) {
      throw new RangeError(
        `maxDistance: expected an integer from 0 to ${BANDS - 1}, got ${this.maxDistance}`,
      );
    }
    if (!(Number.isInteger(this.maxPages) && this.maxPages > 0 && this.maxPages <= 0x7fffffff)) {
      throw new RangeError(`maxPages: expected a positive integer below 2^31, got ${this.maxPages}`);
    }
    if (!(Number.isInteger(initial) && initial > 0)) {
      throw new RangeError(`initialCapacity: expected a positive integer, got ${initial}`);
    }
    this.cap = Math.min(initial, this.maxPages);
    this.records = new Uint32Array(this.cap * RECORD);
    this.arena = Buffer.alloc(this.cap * 64);
  }

  /** Pages in the index. */
  get size(): number {
    return this.count;
  }

  /** Whether `maxPages` pages are in: later pages are not added. */
  get full(): boolean {
    return this.count >= this.maxPages;
  }

  /** Bytes of all its arrays (records, URL arena, bucket heads). */
  get byteLength(): number {
    return this.records.byteLength + this.arena.byteLength + (this.heads?.byteLength ?? 0);
  }

  /**
   * The nearest page within `maxDistance` bits of `key` whose URL is not `except`; of equally near
   * ones, the one added first.
   * @returns null when there is none.
   */
  find(key: SimhashParts, except?: string): NearDuplicateMatch | null {
    return this.lookup(key, except).match;
  }

  /**
   * One pass over the candidates of `key`: the nearest page within `maxDistance` bits whose URL
   * is not `url` (a page is no near-duplicate of itself fetched again; of equally near ones, the
   * one added first), and whether a page of `url` itself is within `maxDistance` bits.
   */
  lookup(key: SimhashParts, url?: string): NearDuplicateLookup {
    const heads = this.heads;
    let best = NONE;
    let bestDistance = this.maxDistance + 1;
    let self = false;
    if (heads !== null) {
      const hi = key.hi >>> 0;
      const lo = key.lo >>> 0;
      const { records: r, maxDistance } = this;
      for (let b = 0; b < BANDS; b++) {
        const head = heads[b * BAND_VALUES + bandOf(hi, lo, b)];
        for (let e = head; e !== NONE; e = r[e * RECORD + LINK + b]) {
          const distance = popcount32(hi ^ r[e * RECORD + HI]) + popcount32(lo ^ r[e * RECORD + LO]);
          if (distance > maxDistance) continue;
          // A page sharing several bands is met once per band: its URL is read once it could win.
          if (
            url !== undefined &&
            (!self || distance < bestDistance || (distance === bestDistance && e < best))
          ) {
            if (this.urlOf(e) === url) {
              self = true;
              continue;
            }
          }
          if (distance < bestDistance || (distance === bestDistance && e < best)) {
            best = e;
            bestDistance = distance;
          }
        }
      }
    }
    return { match: best === NONE ? null : { url: this.urlOf(best), distance: bestDistance }, self };
  }

  /**
   * Add a page (no check that a near one is in already: see {@link lookup}).
   * @param url the page's URL, returned by later finds.
   * @returns false (and adds nothing) when the index is full.
   */
  add(key: SimhashParts, url: string): boolean {
    if (this.count >= this.maxPages) return false;
    const length = Buffer.byteLength(url);
    const start = this.arenaEnd;
    if (start + length > MAX_ARENA_BYTES) return false;
    if (this.count === this.cap) this.grow();
    if (start + length > this.arena.length) this.growArena(start + length);
    const heads = this.heads ?? this.makeHeads();
    const e = this.count++;
    const hi = key.hi >>> 0;
    const lo = key.lo >>> 0;
    const r = this.records;
    const at = e * RECORD;
    r[at + HI] = hi;
    r[at + LO] = lo;
    r[at + URL_AT] = start;
    r[at + URL_LENGTH] = length;
    this.arena.write(url, start, 'utf8');
    this.arenaEnd = start + length;
    for (let b = 0; b < BANDS; b++) {
      const slot = b * BAND_VALUES + bandOf(hi, lo, b);
      r[at + LINK + b] = heads[slot];
      heads[slot] = e;
    }
    return true;
  }

  private urlOf(e: number): string {
    const at = this.records[e * RECORD + URL_AT];
    return this.arena.toString('utf8', at, at + this.records[e * RECORD + URL_LENGTH]);
  }

  private makeHeads(): Uint32Array {
    this.heads = new Uint32Array(BANDS * BAND_VALUES).fill(NONE);
    return this.heads;
  }

  private grow(): void {
    this.cap = Math.min(this.maxPages, Math.ceil(this.cap * GROWTH));
    this.records = grown(this.records, new Uint32Array(this.cap * RECORD));
  }

  private growArena(needed: number): void {
    const size = Math.min(MAX_ARENA_BYTES, Math.max(needed, Math.ceil(this.arena.length * GROWTH)));
    this.arena = grown(this.arena, Buffer.alloc(size));
  }
}

/** Band `b` (0 = the top 16 bits) of the fingerprint `hi:lo`. */
function bandOf(hi: number, lo: number, b: number): number {
  const half = b < 2 ? hi : lo;
  return (b & 1) === 0 ? half >>> 16 : half & 0xffff;
}

function grown<T extends Buffer | Uint32Array>(old: T, into: T): T {
  into.set(old);
  return into;
}
