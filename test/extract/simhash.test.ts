/** The 64-bit SimHash of a page's main text and the Hamming distance between two of them. */
import { describe, expect, it } from 'vitest';
import {
  hammingDistance,
  MAX_SHINGLE,
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

/** Distances of each article to itself with 3 words replaced, at every 25th word. */
function edits3(shingle: number): number[] {
  const out: number[] = [];
  for (const text of [...SAME_TOPIC, BICYCLE_CHAIN]) {
    const words = text.split(/\s+/);
    for (let at = 10; at + 10 < words.length; at += 25) {
      const edited = [...words.slice(0, at), 'x1', 'x2', 'x3', ...words.slice(at + 3)].join(' ');
      out.push(distance(text, edited, shingle));
    }
  }
  return out;
}

describe('simhash64', () => {
  it('is 16 lowercase hex digits, the same for the same text in every call', () => {
    const h = fp(STARTER);
    expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(fp(STARTER)).toBe(h);
    expect(distance(STARTER, STARTER)).toBe(0);
  });

  it('keeps its value across versions (fingerprints written by an earlier run are compared after --resume)', () => {
    expect(simhash64(STARTER)).toBe('ac2b50b8070e085a');
    expect(
      simhash64(
        'The quick brown fox jumps over the lazy dog, again and again, until the dog finally wakes up and chases the fox away.',
      ),
    ).toBe('b54582d1550e08bc');
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
    expect(simhash64('一二三四五六七八九十一二三四五六七八九十')).toBe('70ce8219f6642a1c');
    expect(fp('漢字かなカナ abc漢字 def '.repeat(3))).toBe(fp('漢 字 か な カ ナ abc 漢 字 def '.repeat(3)));
    // Emoji are not words; astral letters are.
    expect(fp(`${STARTER} 😀😀 🎉`)).toBe(fp(STARTER));
  });

  it('keeps its value across versions for text in other scripts, astral characters and fullwidth forms', () => {
    const mixed =
      'Городской совет собрался во вторник вечером नगर परिषद ने मंगलवार शाम बैठक की 市議会は火曜日 ' +
      '𝐛𝐨𝐥𝐝 𝐰𝐨𝐫𝐝𝐬 𐀀𐀁 𝟿𝟾 𠀀𠀁𠀂 ｗｏｒｄ 豈更 end';
    expect(simhash64(mixed)).toBe('1dc108942203385a');
  });

  it('makes a word of ASCII letters and digits, and cuts words at every other ASCII character', () => {
    const times = (n: number, word: string) => Array.from({ length: n }, () => word).join(' ');
    for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789') {
      expect(simhash64(times(19, `a${c}b`)), c).toBeNull(); // 19 words
    }
    for (let code = 0x21; code < 0x7f; code++) {
      const c = String.fromCharCode(code);
      if (/[a-z0-9]/i.test(c)) continue;
      expect(simhash64(times(10, `a${c}b`)), c).not.toBeNull(); // 20 words
    }
  });

  it('reads astral letters and digits as word characters, fullwidth ones too, and an astral Han character as a token', () => {
    const times = (n: number, word: string, sep = ' ') => Array.from({ length: n }, () => word).join(sep);
    // U+1D41B bold b (D835 DC1B), U+10000 Linear B (D800 DC00), U+1D7FF digit nine (D835 DFFF), U+FF57 ｗ
    for (const c of ['𝐛', '𐀀', '𝟿', 'ｗ']) {
      expect(simhash64(times(19, `a${c}b`)), c).toBeNull();
      expect(simhash64(times(20, `${c}${c}`)), c).not.toBeNull();
    }
    expect(simhash64(times(19, '𠀀', ''))).toBeNull();
    expect(simhash64(times(20, '𠀀', ''))).not.toBeNull();
    expect(fp(times(10, 'a𠀀b'))).toBe(fp(times(10, 'a 𠀀 b')));
    // Different astral words are different words.
    expect(fp(times(20, '𝐛𝐨𝐥𝐝 𝐰𝐨𝐫𝐝'))).not.toBe(fp(times(20, '𝐰𝐨𝐫𝐝 𝐛𝐨𝐥𝐝 𝐰𝐨𝐫𝐝')));
  });

  it('reads a lone surrogate as a gap between words', () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`);
    const spaced = fp(words.join(' '));
    expect(fp(words.join('\uD800'))).toBe(spaced);
    expect(fp(words.join('\uDC00'))).toBe(spaced);
    expect(fp(`${words.join(' ')}\uD83D`)).toBe(spaced);
    // a high surrogate before a character above the low surrogates (a fullwidth letter) leaves it whole
    expect(fp(words.join('\uD800ｗ '))).toBe(fp(words.join(' ｗ ')));
  });

  it('weighs a shingle by its count: one shingle repeated, however often, gives its own fingerprint', () => {
    const opts = { minWords: 1, shingle: 2 };
    const once = simhash64('a a', opts);
    // 8-bit counters are emptied before they overflow (a bit set in 256 features in a row)
    for (const n of [3, 255, 256, 257, 258, 600])
      expect(simhash64('a '.repeat(n), opts), String(n)).toBe(once);
  });

  it('takes a shingle as large as MAX_SHINGLE, and needs a whole shingle for a fingerprint', () => {
    expect(simhash64(STARTER, { minWords: 20, shingle: MAX_SHINGLE })).toMatch(/^[0-9a-f]{16}$/);
    expect(simhash64('one two', { minWords: 1, shingle: 3 })).toBeNull();
    expect(simhash64('one two three', { minWords: 1, shingle: 3 })).not.toBeNull();
    expect(simhash64('one two three', { minWords: 1, shingle: 3 })).not.toBe(
      simhash64('one two four', { minWords: 1, shingle: 3 }),
    );
  });

  it('puts one sentence changed in a 500-word text, or a mirror with its own header and footer, within 3 bits', () => {
    expect(STARTER.split(/\s+/).length).toBeGreaterThan(500);
    expect(distance(STARTER, STARTER_VARIANTS['one sentence changed'])).toBeLessThanOrEqual(3);
    expect(
      distance(STARTER, STARTER_VARIANTS['a mirror with its own header and footer']),
    ).toBeLessThanOrEqual(3);
  });

  it('keeps near-duplicates a few bits away, far fewer than different articles on the same topic (> 20)', () => {
    const articles = pairs([...SAME_TOPIC, BICYCLE_CHAIN]);
    for (const d of articles) expect(d).toBeGreaterThan(20);
    // Boilerplate around the text (a print version adds 20 words: 6 bits here, past k = 3).
    for (const [what, text] of Object.entries(STARTER_VARIANTS)) {
      expect(distance(STARTER, text), what).toBeLessThanOrEqual(8);
    }
    // Any one sentence replaced: measured median 4, largest 9.
    const sentences = STARTER.split(/(?<=[.!?])\s+/).length;
    const moved = Array.from({ length: sentences }, (_, i) =>
      distance(
        STARTER,
        replaceSentence(STARTER, i, 'A kitchen scale makes this much easier than cups and spoons.'),
      ),
    ).sort((a, b) => a - b);
    expect(moved.length).toBeGreaterThan(25);
    expect(moved[Math.floor(moved.length / 2)]).toBeLessThanOrEqual(5);
    expect(2 * (moved.at(-1) ?? 64)).toBeLessThan(Math.min(...articles));
  });

  it('finds most small edits within 3 bits: 3 words replaced, at every 25th word of each article', () => {
    const moved = edits3(SIMHASH_DEFAULTS.shingle);
    // Measured: 49 of 67 within 3, mean 2.6, largest 6.
    expect(moved.length).toBe(67);
    expect(moved.filter((d) => d <= 3).length).toBeGreaterThanOrEqual(0.65 * moved.length);
    expect(moved.reduce((a, b) => a + b, 0) / moved.length).toBeLessThanOrEqual(3);
    expect(Math.max(...moved)).toBeLessThanOrEqual(8);
  });

  it('uses 2-word shingles: words bring different articles close, 3-word shingles find fewer edits', () => {
    const all = [...SAME_TOPIC, BICYCLE_CHAIN];
    // Words: articles on any topic 9–18 bits apart (their common words); shingles 26–36, as random
    // fingerprints (32).
    expect(Math.max(...pairs(all, 1))).toBeLessThan(20);
    expect(Math.min(...pairs(all, 2))).toBeGreaterThan(Math.max(...pairs(all, 1)) + 5);
    expect(Math.min(...pairs(all, 3))).toBeGreaterThan(20);
    // Both kinds of shingles keep articles apart; 2-word ones keep more small edits within 3 bits
    // (measured 49 and 37 of 67).
    const within = (shingle: number) => edits3(shingle).filter((d) => d <= 3).length;
    expect(within(2)).toBeGreaterThan(within(3) + 5);
  });

  it('refuses a shingle size it cannot hold', () => {
    expect(() => simhash64(STARTER, { minWords: 20, shingle: 0 })).toThrow(RangeError);
    expect(() => simhash64(STARTER, { minWords: 20, shingle: 9 })).toThrow(RangeError);
    expect(() => simhash64(STARTER, { minWords: 20, shingle: 1.5 })).toThrow(
      new RangeError('shingle: expected an integer from 1 to 8, got 1.5'),
    );
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
    // the message names both inputs, whichever is wrong
    for (const [a, b] of [
      ['x', '0000000000000000'],
      ['0000000000000000', 'y'],
      ['x', 'y'],
    ]) {
      expect(() => hammingDistance(a, b)).toThrow(
        new TypeError(`expected two 16-hex-digit fingerprints, got "${a}" and "${b}"`),
      );
    }
  });
});

describe('simhashParts and popcount32', () => {
  it('splits a fingerprint into its unsigned halves; null for anything else', () => {
    expect(simhashParts('ffffffff00000001')).toEqual({ hi: 0xffffffff, lo: 1 });
    expect(simhashParts('ffffffff0000000')).toBeNull();
    expect(simhashParts(12)).toBeNull();
    expect(simhashParts(undefined)).toBeNull();
    expect(simhashParts(1234567890123456)).toBeNull(); // 16 digits, but not a string
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
