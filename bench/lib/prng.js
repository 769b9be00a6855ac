/**
 * A seeded pseudo-random generator for the benches (mulberry32), so that every run builds the
 * same data (the tests have the same one in test/fixtures/prng.ts).
 */

/** @returns a function giving numbers in [0, 1), the same sequence for the same seed. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
