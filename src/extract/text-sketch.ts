/**
 * A small sketch of a page's text for near-duplicate tests: the distinct words (ASCII letters
 * lowercased, digit runs generalised to `#`, any non-ASCII character part of a word), hashed, of
 * which the smallest {@link SKETCH_SIZE} hashes are kept (a bottom-k sample: two sketches
 * estimate how much two pages' vocabularies differ).
 */
import { fmix32 } from '../url/fingerprint.js';

/** Hashes kept per page (bottom-k). 128 × 4 bytes travel with each parsed page. */
export const SKETCH_SIZE = 128;

/** Distinct words hashed per page at most: the sample stays cheap on huge pages. */
const SKETCH_MAX_WORDS = 4096;

const FNV_OFFSET = 0x811c9dc5;
// MurmurHash3's finaliser (fmix32): FNV-1a leaves a word's high bits to its first letters, and a
// bottom-k sample needs the order of hashes to be unrelated to the words.
const FNV_PRIME = 0x01000193;
const HASH_DIGITS = 0x23; // '#'

/** Collects the words of text spans; {@link finish} gives the sketch. */
export class TextSketch {
  private readonly words = new Set<number>();
  private h = FNV_OFFSET;
  private len = 0;
  private inDigits = false;

  /** Add the text `s[from, to)` (entities undecoded are words too, harmlessly). */
  add(s: string, from: number, to: number): void {
    if (this.words.size >= SKETCH_MAX_WORDS) return;
    for (let i = from; i < to; i++) {
      let c = s.charCodeAt(i);
      if (c >= 0x30 && c <= 0x39) {
        if (!this.inDigits) {
          this.h = Math.imul(this.h ^ HASH_DIGITS, FNV_PRIME);
          this.len++;
          this.inDigits = true;
        }
        continue;
      }
      this.inDigits = false;
      if (c >= 0x41 && c <= 0x5a) c |= 0x20;
      if ((c >= 0x61 && c <= 0x7a) || c >= 0x80) {
        this.h = Math.imul(this.h ^ c, FNV_PRIME);
        this.len++;
      } else {
        this.endWord();
      }
    }
    // A span ends a word: text split by a tag is two words.
    this.endWord();
  }

  private endWord(): void {
    if (this.len > 0) this.words.add(fmix32(this.h));
    this.h = FNV_OFFSET;
    this.len = 0;
    this.inDigits = false;
  }

  /** The sketch: up to {@link SKETCH_SIZE} smallest word hashes, ascending. */
  finish(): number[] {
    this.endWord();
    const all = Array.from(this.words).sort((a, b) => a - b);
    return all.length > SKETCH_SIZE ? all.slice(0, SKETCH_SIZE) : all;
  }
}

/**
 * How many of the smallest {@link SKETCH_SIZE} words of the two pages' union are in only one of
 * them (the bottom-k estimate of the union minus the intersection; exact when the pages have at
 * most {@link SKETCH_SIZE} words between them).
 * @param a a sketch from {@link TextSketch.finish} (ascending).
 */
export function sketchDifference(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  let j = 0;
  let taken = 0;
  let differing = 0;
  while (taken < SKETCH_SIZE && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) {
      i++;
      differing++;
    } else if (i >= a.length || b[j] < a[i]) {
      j++;
      differing++;
    } else {
      i++;
      j++;
    }
    taken++;
  }
  return differing;
}
