/** Text sketches and their difference (the near-duplicate measure of the trap defence). */
import { describe, expect, it } from 'vitest';
import { SKETCH_SIZE, sketchDifference, TextSketch } from '../../src/extract/text-sketch.js';

function sketch(...texts: string[]): number[] {
  const s = new TextSketch();
  for (const t of texts) s.add(t, 0, t.length);
  return s.finish();
}

describe('TextSketch', () => {
  it('takes distinct words, lowercased, digits generalised, tags splitting words', () => {
    expect(sketch('Hello hello HELLO')).toHaveLength(1);
    expect(sketch('page 1', 'page 22')).toEqual(sketch('Page 7'));
    expect(sketch('ab', 'cd')).not.toEqual(sketch('abcd'));
    expect(sketch('Привет мир')).toHaveLength(2);
  });

  it('keeps at most SKETCH_SIZE hashes, ascending', () => {
    const words = Array.from(
      { length: 1000 },
      (_, i) =>
        `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + (Math.floor(i / 26) % 26))}x${String.fromCharCode(97 + Math.floor(i / 676))}`,
    );
    const s = sketch(words.join(' '));
    expect(s).toHaveLength(SKETCH_SIZE);
    expect([...s].sort((a, b) => a - b)).toEqual(s);
  });
});

describe('sketchDifference', () => {
  it('counts words in only one page (exact for small pages)', () => {
    expect(sketchDifference(sketch('calendar may no events'), sketch('calendar june no events'))).toBe(2);
    expect(sketchDifference(sketch('a b c'), sketch('a b c'))).toBe(0);
    expect(sketchDifference(sketch(''), sketch('a b'))).toBe(2);
  });

  it('estimates on the bottom-k sample for large pages', () => {
    const common = Array.from(
      { length: 400 },
      (_, i) =>
        `common${'abcdefghij'[i % 10]}${'abcdefghij'[Math.floor(i / 10) % 10]}${'abcd'[Math.floor(i / 100)]}`,
    ).join(' ');
    const same = sketchDifference(sketch(common, 'june'), sketch(common, 'july'));
    expect(same).toBeLessThanOrEqual(2);
    const distinct = (tag: string) =>
      Array.from(
        { length: 60 },
        (_, i) => `${tag}${'abcdefghij'[i % 10]}${'abcdef'[Math.floor(i / 10)]}`,
      ).join(' ');
    expect(
      sketchDifference(sketch(common, distinct('posta')), sketch(common, distinct('postb'))),
    ).toBeGreaterThan(10);
  });
});
