/**
 * A 64-bit SimHash of a text (Charikar 2002, "Similarity estimation techniques from rounding
 * algorithms"), as Manku, Jain and Das Sarma use it to find near-duplicate web pages ("Detecting
 * near-duplicates for web crawling", WWW 2007): two pages whose fingerprints differ in at most
 * k = 3 of 64 bits are near-duplicates.
 *
 * The text is cut into tokens — runs of Unicode letters, digits and combining marks, lowercased;
 * a Han, Hiragana or Katakana character is a token by itself, since those scripts do not space
 * words — and each run of {@link SIMHASH_DEFAULTS}.shingle consecutive tokens (a shingle) is a
 * feature, hashed to 64 bits. Each feature adds +1 to the 64 counters where its hash has a 1 bit
 * and −1 where it has a 0 (a shingle seen n times adds n times: weight = count); bit i of the
 * fingerprint is 1 where counter i ended above 0. Similar feature multisets give fingerprints
 * that differ in few bits.
 *
 * Why 2-word shingles (measured with `simhash64(text, { shingle })` on the made-up articles of
 * `test/fixtures/articles.ts` — three independent articles on sourdough, one on bicycle chains,
 * checked by `test/extract/simhash.test.ts` — and on 29 slices of 500 words of this repository's
 * README, different texts on one topic):
 * - words put every two texts close, since the function words all texts share dominate: README
 *   slices as close as 9 bits (median 18), articles 9–18; at 10 bits about 1 unrelated pair in
 *   150 falls within 3 bits, which against an index of 10^5 pages marks nearly every page;
 * - 2-word shingles keep them as far apart as 3-word ones (README slices: 21 bits at least, 1%
 *   below 23, median 31; articles 26–36; 3-word: 21, 22, 32; random fingerprints: 32), so an
 *   unrelated pair is within 3 bits with a probability of the order of 10^-9 or less,
 * - and find more small edits within 3 bits: 3 words replaced at one place, over every 25th place
 *   of the four articles (67): 73% (3-word shingles 55%, words 100%); over the README slices (615
 *   places each): 3 words replaced 81% (74%), 10 words replaced 54% (30%), 20 words added 65% (35%).
 *
 * What k = 3 catches: SimHash flips each bit with probability θ/π, θ the angle between the two
 * pages' feature vectors (Charikar's random-hyperplane hash), so a page with m of its n shingles
 * removed or added is expected about 64·√(m/n)/π ≈ 20·√(m/n) bits away: within 3 bits needs
 * m/n ≲ 2%. The same text with a few words edited, or with boilerplate around it, is caught most of
 * the time, not always; a rewritten sentence or two in a 500-word text mostly is not. The hash
 * itself is as good as an ideal one here: with SHA-256 per shingle instead, the README slices'
 * 3-word edits are 2.0–2.2 bits away on average, with ours 2.2.
 */
import { fmix32 } from '../url/fingerprint.js';

/**
 * - `minWords` 20: a text with fewer tokens gets no fingerprint (null): a few words — a title,
 *   a "page not found" — say nothing about whether two pages are copies, and would make every
 *   short page a near-duplicate of every other;
 * - `shingle` 2: tokens per feature (see the module comment).
 */
export const SIMHASH_DEFAULTS = { minWords: 20, shingle: 2 } as const;

/** Settings of {@link simhash64} (the defaults are {@link SIMHASH_DEFAULTS}). */
export interface SimhashOptions {
  /** Fewest tokens for a fingerprint. */
  minWords: number;
  /** Tokens per feature, 1 to {@link MAX_SHINGLE}. */
  shingle: number;
}

/** Largest shingle supported (the ring of recent token hashes). */
export const MAX_SHINGLE = 8;

/** Token classes of a UTF-16 code unit, cached in {@link classes}. */
const UNKNOWN = 0;
const WORD = 1;
/** A character that is a token by itself (Han, Hiragana, Katakana). */
const ALONE = 2;
const GAP = 3;

/** Letters, digits and combining marks: the characters of a word. */
const WORD_CHAR = /^[\p{L}\p{N}\p{M}]$/u;
/** Scripts written without spaces between words, whose characters are tokens by themselves. */
const ALONE_CHAR = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u;

/** Class of each UTF-16 code unit, filled on first sight (64 KiB, shared by all calls). */
const classes = new Uint8Array(0x10000);
for (let c = 0; c < 0x80; c++) {
  const ascii = (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
  classes[c] = ascii ? WORD : GAP;
}

function classify(ch: string): number {
  return ALONE_CHAR.test(ch) ? ALONE : WORD_CHAR.test(ch) ? WORD : GAP;
}

/** Class of the code unit `c` (not a surrogate). */
function classOf(c: number): number {
  let k = classes[c];
  if (k === UNKNOWN) {
    k = classify(String.fromCharCode(c));
    classes[c] = k;
  }
  return k;
}

// Seeds and multipliers of the two 32-bit token hashes (FNV-1a and a murmur2-style multiply).
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const M2_SEED = 0x9747b28c;
const M2_MUL = 0x5bd1e995;
// Seeds of the two halves of a feature's 64-bit hash, and the multiplier that folds the (already
// avalanched) token hashes of a shingle in order, FNV-style, before fmix32.
const SEED_HI = 0x3c6ef372;
const SEED_LO = 0xa54ff53a;
const SHINGLE_MUL = 0x9e3779b1;

/**
 * The SimHash of `text` (see the module comment): 64 bits as 16 lowercase hex digits, bit 63
 * first. Deterministic: the same text gives the same fingerprint in every process and version
 * that keeps these constants. Linear in the text's length, without BigInt.
 * @param text plain text (the main content of a page, without markup: HTML tags would be words).
 * @param opts see {@link SimhashOptions}; default {@link SIMHASH_DEFAULTS}.
 * @returns null when the text has fewer than `opts.minWords` tokens.
 * @throws RangeError when `opts.shingle` is not an integer from 1 to {@link MAX_SHINGLE}.
 */
export function simhash64(text: string, opts: SimhashOptions = SIMHASH_DEFAULTS): string | null {
  const size = opts.shingle;
  if (!(Number.isInteger(size) && size >= 1 && size <= MAX_SHINGLE)) {
    throw new RangeError(`shingle: expected an integer from 1 to ${MAX_SHINGLE}, got ${size}`);
  }
  const tokens = tokenHashes(text.toLowerCase());
  const count = tokens.length / 2;
  if (count < opts.minWords || count < size) return null;
  // ones[i]: features whose hash has bit i set (i = 0..31 the low half, 32..63 the high half),
  // counted first in the bit planes of 64 small counters (see addToPlanes).
  const ones = new Int32Array(64);
  const planes = new Int32Array(2 * PLANES);
  let inPlanes = 0;
  let features = 0;
  for (let last = size - 1; last < count; last++) {
    // The shingle of tokens last − size + 1 .. last, oldest first: order matters.
    let hi = SEED_HI;
    let lo = SEED_LO;
    for (let t = last - size + 1; t <= last; t++) {
      hi = Math.imul(hi ^ tokens[2 * t], SHINGLE_MUL);
      lo = Math.imul(lo ^ tokens[2 * t + 1], SHINGLE_MUL);
    }
    features++;
    addToPlanes(planes, 0, fmix32(lo ^ size));
    addToPlanes(planes, PLANES, fmix32(hi ^ size));
    if (++inPlanes === PLANE_MAX) {
      flushPlanes(planes, ones);
      inPlanes = 0;
    }
  }
  flushPlanes(planes, ones);
  // Bit i is 1 where more features had it set than not (counter ones − zeros > 0).
  let hi = 0;
  let lo = 0;
  for (let i = 0; i < 32; i++) {
    if (2 * ones[i] > features) lo |= 1 << i;
    if (2 * ones[i + 32] > features) hi |= 1 << i;
  }
  return hex8(hi) + hex8(lo);
}

/**
 * The tokens of the lowercased text `s` (see the module comment), each as two independent 32-bit
 * hashes of its UTF-16 code units (FNV-1a and a murmur2-style multiply, each finished by fmix32),
 * token i at [2i, 2i + 1].
 */
function tokenHashes(s: string): Int32Array {
  const out = new Int32Array(2 * s.length);
  let n = 0;
  let a = FNV_OFFSET;
  let b = M2_SEED;
  let len = 0;
  for (let i = 0; i <= s.length; i++) {
    let k = GAP;
    let c = 0;
    let units = 1;
    if (i < s.length) {
      c = s.charCodeAt(i);
      if (c < 0x80) {
        k = classes[c];
        if (k === WORD) {
          // The common case, kept short: an ASCII letter or digit.
          a = Math.imul(a ^ c, FNV_PRIME);
          b = Math.imul(b ^ c, M2_MUL);
          b ^= b >>> 15;
          len++;
          continue;
        }
      } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        // An astral character (a rare Han character, an emoji): classified on the spot.
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          units = 2;
          k = classify(s.slice(i, i + 2));
        }
      } else k = classOf(c);
    }
    if (k === WORD) {
      for (let u = 0; u < units; u++) {
        const cu = s.charCodeAt(i + u);
        a = Math.imul(a ^ cu, FNV_PRIME);
        b = Math.imul(b ^ cu, M2_MUL);
        b ^= b >>> 15;
      }
      len += units;
      i += units - 1;
      continue;
    }
    // A gap, a character that is a token by itself, or the end: the token so far ends here.
    if (len > 0) {
      out[n++] = fmix32(a ^ len);
      out[n++] = fmix32(b ^ len);
      a = FNV_OFFSET;
      b = M2_SEED;
      len = 0;
    }
    if (k === ALONE) {
      for (let u = 0; u < units; u++) {
        const cu = s.charCodeAt(i + u);
        a = Math.imul(a ^ cu, FNV_PRIME);
        b = Math.imul(b ^ cu, M2_MUL);
        b ^= b >>> 15;
      }
      out[n++] = fmix32(a ^ units);
      out[n++] = fmix32(b ^ units);
      a = FNV_OFFSET;
      b = M2_SEED;
    }
    i += units - 1;
  }
  return out.subarray(0, n);
}

/**
 * Bit planes of 32 counters of {@link PLANES} bits (bit-sliced counting): plane j at `at + j`
 * holds bit j of every counter, so adding a 32-bit word to all 32 counters at once is a ripple
 * carry through the planes — about two steps on average — instead of 32 additions.
 */
const PLANES = 8;
/** Words added to the planes before they are emptied into the counters: 8-bit counters hold 255. */
const PLANE_MAX = (1 << PLANES) - 1;

/** Add 1 to the counters at `planes[at..at+PLANES)` where `word` has a 1 bit. */
function addToPlanes(planes: Int32Array, at: number, word: number): void {
  let carry = word;
  for (let j = at; carry !== 0; j++) {
    const next = planes[j] & carry;
    planes[j] ^= carry;
    carry = next;
  }
}

/** Add both halves' plane counters to `ones` (low half 0..31, high half 32..63) and clear them. */
function flushPlanes(planes: Int32Array, ones: Int32Array): void {
  for (let half = 0; half < 2; half++) {
    for (let j = 0; j < PLANES; j++) {
      const word = planes[half * PLANES + j];
      if (word === 0) continue;
      for (let i = 0; i < 32; i++) ones[half * 32 + i] += ((word >>> i) & 1) << j;
      planes[half * PLANES + j] = 0;
    }
  }
}

/** The two 32-bit halves of a fingerprint. */
export interface SimhashParts {
  /** Bits 63..32, as an unsigned 32-bit integer. */
  hi: number;
  /** Bits 31..0, as an unsigned 32-bit integer. */
  lo: number;
}

const HEX16 = /^[0-9a-f]{16}$/;

/**
 * The halves of a fingerprint written by {@link simhash64}.
 * @returns null when `hex` is not exactly 16 lowercase hex digits.
 */
export function simhashParts(hex: unknown): SimhashParts | null {
  if (typeof hex !== 'string' || !HEX16.test(hex)) return null;
  return { hi: Number.parseInt(hex.slice(0, 8), 16), lo: Number.parseInt(hex.slice(8), 16) };
}

/**
 * Bits set in a 32-bit integer (the SWAR popcount of "Hacker's Delight", 5-2).
 * @param x any number; its low 32 bits are counted.
 */
export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * Bits in which two fingerprints differ (0..64).
 * @param a a fingerprint from {@link simhash64} (16 lowercase hex digits).
 * @throws TypeError when `a` or `b` is not 16 lowercase hex digits.
 */
export function hammingDistance(a: string, b: string): number {
  const x = simhashParts(a);
  const y = simhashParts(b);
  if (x === null || y === null) {
    throw new TypeError(`expected two 16-hex-digit fingerprints, got "${a}" and "${b}"`);
  }
  return popcount32(x.hi ^ y.hi) + popcount32(x.lo ^ y.lo);
}

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}
