import { describe, expect, it } from 'vitest';
import { scoreCorpus, scorePage, shingles, tokenize } from '../../bench/lib/aeb-score.js';

describe('tokenize', () => {
  it('keeps runs of Unicode letters, digits and _ with their case; drops the rest', () => {
    expect(tokenize('Naïve café, 東京 — snake_case 3.14!')).toEqual([
      'Naïve',
      'café',
      '東京',
      'snake_case',
      '3',
      '14',
    ]);
    expect(tokenize('')).toEqual([]);
    expect(tokenize(null)).toEqual([]);
  });

  it("splits at combining marks, as Python's \\w does", () => {
    // 'e' + U+0301 COMBINING ACUTE ACCENT: the mark is not alphanumeric for Python
    expect(tokenize('cafe\u0301 au lait')).toEqual(['cafe', 'au', 'lait']);
  });
});

describe('shingles', () => {
  it('counts every run of 4 tokens as a multiset', () => {
    expect(shingles(['a', 'b', 'c', 'd', 'e'])).toEqual(
      new Map([
        ['a b c d', 1],
        ['b c d e', 1],
      ]),
    );
    expect(shingles(tokenize('x y z w x y z w')).get('x y z w')).toBe(2);
  });

  it('makes one shorter shingle of 1–3 tokens, none of no token', () => {
    expect(shingles(['one'])).toEqual(new Map([['one', 1]]));
    expect(shingles(['one', 'two', 'three'])).toEqual(new Map([['one two three', 1]]));
    expect(shingles([])).toEqual(new Map());
  });
});

describe('scorePage', () => {
  it('gives P = R = 1 for the same tokens, whatever the punctuation and spacing', () => {
    const s = scorePage('The quick brown fox jumps over.', 'The  quick, brown fox\njumps over');
    expect(s).toMatchObject({ tp: 1, fp: 0, fn: 0, precision: 1, recall: 1, exact: true });
  });

  it('gives P = R = 0 for disjoint texts', () => {
    const s = scorePage('alpha beta gamma delta', 'one two three four');
    expect(s).toMatchObject({ tp: 0, fp: 0.5, fn: 0.5, precision: 0, recall: 0, exact: false });
  });

  it('compares short texts as one shingle each', () => {
    expect(scorePage('Hello, world!', 'Hello world')).toMatchObject({ precision: 1, recall: 1 });
    // one extra token: the single shingles differ, nothing matches
    expect(scorePage('Hello world', 'Hello there world')).toMatchObject({ precision: 0, recall: 0 });
  });

  it('divides TP/FP/FN by their sum', () => {
    // gold: 3 shingles; predicted: the same 3 plus 2 more → tp 3, fp 2, fn 0 → 0.6, 0.4, 0
    const s = scorePage('one two three four five six', 'one two three four five six seven eight');
    expect(s.tp).toBeCloseTo(0.6, 12);
    expect(s.fp).toBeCloseTo(0.4, 12);
    expect(s.fn).toBe(0);
    expect(s).toMatchObject({ recall: 1, goldWords: 6, predictedWords: 8 });
    expect(s.precision).toBeCloseTo(0.6, 12);
  });

  it('counts repeated shingles', () => {
    // gold has 'x y z w' twice among its 5 shingles; predicted has it once → tp 1, fn 4
    const s = scorePage('x y z w x y z w', 'x y z w');
    expect(s.precision).toBe(1);
    expect(s.recall).toBeCloseTo(0.2, 12);
  });

  it('applies the special cases of empty texts', () => {
    expect(scorePage('some gold text here', '')).toMatchObject({
      tp: 0,
      fp: 0,
      fn: 1,
      precision: 0,
      recall: 0,
    });
    expect(scorePage('', 'some predicted text')).toMatchObject({
      tp: 0,
      fp: 1,
      fn: 0,
      precision: 0,
      recall: 0,
    });
    expect(scorePage('', '')).toMatchObject({ tp: 0, fp: 0, fn: 0, precision: 1, recall: 1, exact: true });
  });
});

describe('scoreCorpus', () => {
  it('takes F1 of the mean precision and mean recall, not the mean of page F1s', () => {
    const gold = { a: 'one two three four five six', b: 'a b c d e' };
    // a: P 0.6, R 1 (page F1 0.75); b: tp 1, fn 1 → P 1, R 0.5 (page F1 2/3)
    const s = scoreCorpus(gold, { a: 'one two three four five six seven eight', b: 'a b c d' });
    expect(s.precision).toBeCloseTo(0.8, 12);
    expect(s.recall).toBeCloseTo(0.75, 12);
    expect(s.f1).toBeCloseTo((2 * 0.8 * 0.75) / 1.55, 12); // 0.7742, where the mean of page F1s is 0.7083
    expect(s.accuracy).toBe(0);
    expect(s.pages.map((p) => p.id)).toEqual(['a', 'b']);
  });

  it('leaves a page without prediction out of precision but not of recall', () => {
    const gold = new Map([
      ['a', 'the same four words'],
      ['b', 'nothing was found here'],
    ]);
    // b is missing from the predictions: it counts as '' (precision undefined, recall 0)
    const s = scoreCorpus(gold, new Map([['a', 'the same four words']]));
    expect(s.precision).toBe(1);
    expect(s.recall).toBe(0.5);
    expect(s.f1).toBeCloseTo(2 / 3, 12);
    expect(s.accuracy).toBe(0.5);
  });

  it('counts as accurate the pages whose token sequences are equal', () => {
    const gold = { a: 'Hello, world!', b: 'Hello world', c: 'one two three four five' };
    const s = scoreCorpus(gold, { a: 'Hello world', b: 'hello world', c: 'one two three four five.' });
    expect(s.pages.map((p) => p.exact)).toEqual([true, false, true]);
    expect(s.accuracy).toBeCloseTo(2 / 3, 12);
  });
});
