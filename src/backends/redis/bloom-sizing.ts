/**
 * The size of the shared seen-set's Bloom filter from the capacity and false-positive rate asked
 * for: the textbook optimum (Bloom 1970; Kirsch & Mitzenmacher 2006 for k positions from two
 * hashes), cut into Redis strings no larger than Redis allows.
 */

/**
 * Bits per Redis string of the filter: 2^32, Redis's largest string (512 MB; `SETBIT` refuses an
 * offset past it). A larger filter is cut into several keys.
 */
export const BLOOM_SEGMENT_BITS = 2 ** 32;

/** Most hash positions per URL (past ~30 a filter only gets slower: p = 2^-k at best). */
const MAX_HASHES = 32;

/** A Bloom filter's shape. */
export interface BloomShape {
  /** Expected URLs (the false-positive rate holds up to here, then grows). */
  capacity: number;
  /** False-positive rate at `capacity`, in (0, 1). */
  errorRate: number;
  /** Bits, m = ⌈−n·ln p / (ln 2)²⌉. */
  bits: number;
  /** Positions set per URL, k = round((m/n)·ln 2), at least 1. */
  hashes: number;
  /** Bits per Redis key (the last key may use fewer). */
  segmentBits: number;
}

/**
 * The optimal shape for `capacity` URLs at `errorRate`.
 * @param segmentBits bits per key ({@link BLOOM_SEGMENT_BITS}; smaller in tests of the cutting).
 * @throws RangeError when capacity is not a positive integer or errorRate is not in (0, 0.5].
 */
export function bloomShape(
  capacity: number,
  errorRate: number,
  segmentBits = BLOOM_SEGMENT_BITS,
): BloomShape {
  if (!Number.isInteger(capacity) || capacity < 1)
    throw new RangeError(`bloom capacity ${capacity}: expected a positive integer`);
  if (!(errorRate > 0 && errorRate <= 0.5))
    throw new RangeError(`bloom error rate ${errorRate}: expected a number in (0, 0.5]`);
  const bits = Math.ceil((-capacity * Math.log(errorRate)) / Math.LN2 ** 2);
  const hashes = Math.min(MAX_HASHES, Math.max(1, Math.round((bits / capacity) * Math.LN2)));
  return { capacity, errorRate, bits, hashes, segmentBits };
}

/** The false-positive rate a shape gives after `n` URLs: (1 − e^(−k·n/m))^k. */
export function expectedFalsePositiveRate(shape: BloomShape, n: number): number {
  return (1 - Math.exp((-shape.hashes * n) / shape.bits)) ** shape.hashes;
}
