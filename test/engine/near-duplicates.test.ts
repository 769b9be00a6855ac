/** The calendar-trap feedback: a streak of near-duplicate pages of one shape freezes it. */
import { describe, expect, it } from 'vitest';
import { NEAR_DUPLICATE_DEFAULTS, NearDuplicateWatch } from '../../src/engine/near-duplicates.js';
import { TextSketch } from '../../src/extract/text-sketch.js';
import { urlShape } from '../../src/url/shape-budget.js';

function sketch(text: string): number[] {
  const s = new TextSketch();
  s.add(text, 0, text.length);
  return s.finish();
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august'];

function recorder() {
  const frozen: string[] = [];
  const shapes = new Set<string | null>();
  const scope = {
    freezeShape: (url: string) => {
      if (shapes.has(urlShape(url))) return false;
      shapes.add(urlShape(url));
      frozen.push(url);
      return true;
    },
  };
  return { frozen, scope };
}

describe('NearDuplicateWatch', () => {
  it(`freezes a shape after ${NEAR_DUPLICATE_DEFAULTS.streak} near-duplicates in a row`, () => {
    const { frozen, scope } = recorder();
    const shapes: string[] = [];
    const w = new NearDuplicateWatch(scope, (shape) => shapes.push(shape));
    const results = MONTHS.slice(0, 6).map((m, i) =>
      w.observe(`http://h/cal/2024/0${i + 1}/`, sketch(`calendar ${m} 2024 mo tu we 1 2 3 no events`)),
    );
    expect(results).toEqual([false, false, false, false, false, true]);
    expect(frozen).toEqual(['http://h/cal/2024/06/']);
    expect(shapes).toEqual(['http://h/cal/#/#/']);
  });

  it('a distinct page breaks the streak; only date-like shapes are watched', () => {
    const { frozen, scope } = recorder();
    const w = new NearDuplicateWatch(scope);
    const same = sketch('calendar no events');
    for (let m = 1; m <= 4; m++) w.observe(`http://h/cal/2020/0${m}/`, same);
    w.observe('http://h/cal/2020/09/', sketch('a real post about gardening tomatoes and beans in june'));
    for (let m = 1; m <= 4; m++) w.observe(`http://h/cal/2021/0${m}/`, same);
    expect(frozen).toEqual([]);
    // numbered pages that are not dates: never watched, however alike
    for (let i = 0; i < 20; i++) expect(w.observe(`http://h/p/${i}.html`, same)).toBe(false);
    for (let i = 0; i < 10; i++) w.observe(`http://h/events?month=${i}`, same);
    expect(frozen).toEqual(['http://h/events?month=5']);
  });
});
