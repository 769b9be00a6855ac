/** The 64-bit SimHash of a page's main text and the Hamming distance between two of them. */
import { describe, expect, it } from 'vitest';
import {
  hammingDistance,
  popcount32,
  SIMHASH_DEFAULTS,
  simhash64,
  simhashParts,
} from '../../src/extract/simhash.js';
import { BICYCLE_CHAIN, DENSE_CRUMB, FIRST_LOAF, STARTER, STARTER_VARIANTS } from '../fixtures/articles.js';

const fp = (text: string, shingle: number = SIMHASH_DEFAULTS.shingle): string => {
  const h = simhash64(text, { ...SIMHASH_DEFAULTS, shingle });
  if (h === null) throw new Error('expected a fingerprint');
  return h;
};
const distance = (a: string, b: string, shingle?: number) => hammingDistance(fp(a, shingle), fp(b, shingle));

/** Distances between every two of `texts`. */
function pairs(texts: string[], shingle?: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < texts.length; i++)
    for (let j = i + 1; j < texts.length; j++) out.push(distance(texts[i], texts[j], shingle));
  return out;
}

/** `text` with its sentence `i` replaced by `by`. */
function replaceSentence(text: string, i: number, by: string): string {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((s, j) => (j === i ? by : s))
    .join(' ');
}

const SAME_TOPIC = [STARTER, FIRST_LOAF, DENSE_CRUMB];

describe('simhash64', () => {
  it('is 16 lowercase hex digits, the same for the same text in every call', () => {
    const h = fp(STARTER);
    expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(fp(STARTER)).toBe(h);
    expect(distance(STARTER, STARTER)).toBe(0);
  });

  it('keeps its value across versions (fingerprints written by an earlier run are compared after --resume)', () => {
    expect(simhash64(STARTER)).toBe('b464f3a666bc61fd');
    expect(
      simhash64(
        'The quick brown fox jumps over the lazy dog, again and again, until the dog finally wakes up and chases the fox away.',
      ),
    ).toBe('42d340867fbef8e9');
  });

  it('reads words, not markup of the text: case, punctuation and spacing do not count', () => {
    const plain = STARTER.replace(/[^\p{L}\p{N}]+/gu, ' ');
    expect(fp(plain)).toBe(fp(STARTER));
    expect(fp(STARTER.toUpperCase())).toBe(fp(STARTER));
    expect(fp(STARTER.replaceAll('\n', '  \t'))).toBe(fp(STARTER));
    // The order of words does count (shingles).
    expect(fp(STARTER.split(/\s+/).reverse().join(' '))).not.toBe(fp(STARTER));
  });

  it('gives null below 20 words (Unicode words: letters, digits, marks; a Han or kana character is one)', () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
    expect(simhash64(words(19))).toBeNull();
    expect(simhash64(words(20))).not.toBeNull();
    expect(simhash64('')).toBeNull();
    expect(simhash64(' —, !? '.repeat(200))).toBeNull();
    // One long run of letters is one word.
    expect(simhash64('a'.repeat(5000))).toBeNull();
    expect(simhash64(Array.from({ length: 20 }, () => 'слово').join(', '))).not.toBeNull();
    expect(simhash64(Array.from({ length: 20 }, () => 'नमस्ते').join(' '))).not.toBeNull();
    // Unspaced scripts: each character is a token, whatever is next to it.
    expect(simhash64('一二三四五六七八九十一二三四五六七八九')).toBeNull();
    expect(simhash64('一二三四五六七八九十一二三四五六七八九十')).toBe('7e29ada576fa7c4e');
    expect(fp('漢字かなカナ abc漢字 def '.repeat(3))).toBe(fp('漢 字 か な カ ナ abc 漢 字 def '.repeat(3)));
    // Emoji are not words; astral letters are.
    expect(fp(`${STARTER} 😀😀 🎉`)).toBe(fp(STARTER));
  });

  it('puts near-duplicates within 3 bits: a short sentence edited, a mirror with its own header and footer, a print version', () => {
    expect(STARTER.split(/\s+/).length).toBeGreaterThan(500);
    for (const [what, text] of Object.entries(STARTER_VARIANTS)) {
      expect(distance(STARTER, text), what).toBeLessThanOrEqual(3);
    }
  });

  it('moves a few bits for any one sentence replaced in a 500-word text, far fewer than for another article', () => {
    const sentences = STARTER.split(/(?<=[.!?])\s+/).length;
    const moved = Array.from({ length: sentences }, (_, i) =>
      distance(
        STARTER,
        replaceSentence(STARTER, i, 'A kitchen scale makes this much easier than cups and spoons.'),
      ),
    ).sort((a, b) => a - b);
    expect(moved.length).toBeGreaterThan(25);
    // Measured: median 4, largest 6 (SimHash: about 20·√(changed/total shingles) bits).
    expect(moved[Math.floor(moved.length / 2)]).toBeLessThanOrEqual(4);
    expect(moved.at(-1)).toBeLessThanOrEqual(8);
    expect(Math.min(...pairs(SAME_TOPIC))).toBeGreaterThan(2 * (moved.at(-1) ?? 0));
  });

  it('keeps different articles on one topic, or on others, as far apart as unrelated fingerprints (> 10 bits)', () => {
    for (const d of pairs([...SAME_TOPIC, BICYCLE_CHAIN])) expect(d).toBeGreaterThan(20);
  });

  it('separates with 3-word shingles what word features do not: articles share their common words', () => {
    // Words: articles on any topic are 12–15 bits apart, close enough that one unrelated pair in
    // a few thousand lands within 3 bits. Shingles: 25–36, as random fingerprints (32).
    const words = pairs([...SAME_TOPIC, BICYCLE_CHAIN], 1);
    const shingles = pairs([...SAME_TOPIC, BICYCLE_CHAIN], 3);
    expect(Math.max(...words)).toBeLessThan(17);
    expect(Math.min(...shingles)).toBeGreaterThan(Math.max(...words) + 5);
    // Both keep the near-duplicates close.
    for (const text of Object.values(STARTER_VARIANTS)) {
      expect(distance(STARTER, text, 1)).toBeLessThanOrEqual(3);
    }
  });

  it('refuses a shingle size it cannot hold', () => {
    expect(() => simhash64(STARTER, { minWords: 20, shingle: 0 })).toThrow(RangeError);
    expect(() => simhash64(STARTER, { minWords: 20, shingle: 9 })).toThrow(RangeError);
    expect(() => simhash64(STARTER, { minWords: 20, shingle: 1.5 })).toThrow(RangeError);
  });
});

describe('hammingDistance', () => {
  it('counts the bits in which two fingerprints differ', () => {
    expect(hammingDistance('0000000000000000', '0000000000000000')).toBe(0);
    expect(hammingDistance('0000000000000000', 'ffffffffffffffff')).toBe(64);
    expect(hammingDistance('8000000000000001', '0000000000000000')).toBe(2);
    expect(hammingDistance('0123456789abcdef', 'fedcba9876543210')).toBe(
      hammingDistance('fedcba9876543210', '0123456789abcdef'),
    );
    expect(hammingDistance('00000000f0000000', '0000000000000000')).toBe(4);
    expect(hammingDistance('0000000100000000', '0000000000000000')).toBe(1);
  });

  it('throws on anything but 16 lowercase hex digits', () => {
    expect(() => hammingDistance('0', '0000000000000000')).toThrow(TypeError);
    expect(() => hammingDistance('000000000000000G', '0000000000000000')).toThrow(TypeError);
    expect(() => hammingDistance('0000000000000000', 'FFFFFFFFFFFFFFFF')).toThrow(TypeError);
    expect(() => hammingDistance('0000000000000000', '00000000000000000')).toThrow(TypeError);
  });
});

describe('simhashParts and popcount32', () => {
  it('splits a fingerprint into its unsigned halves; null for anything else', () => {
    expect(simhashParts('ffffffff00000001')).toEqual({ hi: 0xffffffff, lo: 1 });
    expect(simhashParts('ffffffff0000000')).toBeNull();
    expect(simhashParts(12)).toBeNull();
    expect(simhashParts(undefined)).toBeNull();
  });

  it('counts bits like a plain loop', () => {
    const naive = (x: number) => [...(x >>> 0).toString(2)].filter((c) => c === '1').length;
    let x = 0x9e3779b9;
    for (let i = 0; i < 1000; i++) {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      expect(popcount32(x)).toBe(naive(x));
    }
    expect(popcount32(0xffffffff)).toBe(32);
    expect(popcount32(0)).toBe(0);
  });
});
