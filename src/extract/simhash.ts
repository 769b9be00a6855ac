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
 * Why 3-word shingles rather than words (measured on the made-up articles of
 * `test/fixtures/articles.ts`: three independent articles on sourdough, one on bicycle chains;
 * `test/extract/simhash.test.ts` checks these): with word features, every page is dominated by
 * the function words all pages share, so two different articles on one topic are only 12 bits
 * apart and articles on different topics 13–15 — at 13 bits, about 1 unrelated pair in 2,000 falls
 * within 3 bits, which against an index of 10^5 pages marks nearly every page. With 3-word
 * shingles the same pairs are 25–36 bits apart, as unrelated as random fingerprints (32 on
 * average: P(≤ 3 bits) ≈ 2·10^-15 per pair). Mirrors and print versions (a header and footer
 * added) stay within 0–2 bits with either.
 *
 * What k = 3 catches: SimHash flips each bit with probability θ/π, θ the angle between the two
 * pages' feature vectors (Charikar's random-hyperplane hash), so a page with m of its n shingles
 * removed or added is expected 64·√(m/n)/π ≈ 20·√(m/n) bits away: within 3 bits means
 * m/n ≲ 2%. Boilerplate around the same text, a few words edited, is caught; one 20-word
 * sentence rewritten in a 500-word text is not always (over the 93 single-sentence replacements
 * of the four articles: median 6 bits, 20 of 93 within 3; with word features median 3, 66 of 93,
 * at the cost above).
 */
import { fmix32 } from '../url/fingerprint.js';

/**
 * - `minWords` 20: a text with fewer tokens gets no fingerprint (null): a few words — a title,
 *   a "page not found" — say nothing about whether two pages are copies, and would make every
 *   short page a near-duplicate of every other;
 * - `shingle` 3: tokens per feature (see the module comment).
 */
export const SIMHASH_DEFAULTS = { minWords: 20, shingle: 3 } as const;

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
// MurmurHash3_x86_32's block constants, to combine the token hashes of a shingle.
const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;
// Seeds of the two halves of a feature's 64-bit hash.
const SEED_HI = 0x3c6ef372;
const SEED_LO = 0xa54ff53a;

/** MurmurHash3_x86_32's step for one 32-bit block `k` into the running hash `h`. */
function mix(h: number, k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

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
  const s = text.toLowerCase();
  // Two independent 32-bit hashes of each of the last `size` tokens, in a ring.
  const ringA = new Int32Array(MAX_SHINGLE);
  const ringB = new Int32Array(MAX_SHINGLE);
  // ones[i]: features whose hash has bit i set (i = 0..31 the low half, 32..63 the high half).
  const ones = new Int32Array(64);
  let tokens = 0;
  let features = 0;
  let a = FNV_OFFSET;
  let b = M2_SEED;
  let len = 0;

  const endToken = (): void => {
    if (len === 0) return;
    const slot = tokens % size;
    ringA[slot] = fmix32(a ^ len);
    ringB[slot] = fmix32(b ^ len);
    tokens++;
    a = FNV_OFFSET;
    b = M2_SEED;
    len = 0;
    if (tokens < size) return;
    // The shingle of the last `size` tokens, oldest first: order matters.
    let hi = SEED_HI;
    let lo = SEED_LO;
    for (let j = 0; j < size; j++) {
      const at = (tokens + j) % size;
      hi = mix(hi, ringA[at]);
      lo = mix(lo, ringB[at]);
    }
    hi = fmix32(hi ^ size);
    lo = fmix32(lo ^ size);
    features++;
    for (let i = 0; i < 32; i++) {
      ones[i] += (lo >>> i) & 1;
      ones[i + 32] += (hi >>> i) & 1;
    }
  };
  const addUnit = (c: number): void => {
    a = Math.imul(a ^ c, FNV_PRIME);
    b = Math.imul(b ^ c, M2_MUL);
    b ^= b >>> 15;
    len++;
  };

  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let k: number;
    let units = 1;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      // An astral character (a rare Han character, an emoji): classified on the spot.
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        units = 2;
        k = classify(s.slice(i, i + 2));
      } else k = GAP;
    } else k = c < 0x80 ? classes[c] : classOf(c);
    if (k === WORD) {
      addUnit(c);
      if (units === 2) addUnit(s.charCodeAt(++i));
    } else if (k === ALONE) {
      endToken();
      addUnit(c);
      if (units === 2) addUnit(s.charCodeAt(++i));
      endToken();
    } else {
      endToken();
      if (units === 2) i++;
    }
  }
  endToken();
  if (tokens < opts.minWords || features === 0) return null;
  // Bit i is 1 where more features had it set than not (counter ones − zeros > 0).
  let hi = 0;
  let lo = 0;
  for (let i = 0; i < 32; i++) {
    if (2 * ones[i] > features) lo |= 1 << i;
    if (2 * ones[i + 32] > features) hi |= 1 << i;
  }
  return hex8(hi) + hex8(lo);
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
