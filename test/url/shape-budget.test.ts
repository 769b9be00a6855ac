/** URL shapes and the per-shape budget (calendar-trap defence). */
import { describe, expect, it } from 'vitest';
import { calendarShape, ShapeBudget, urlShape } from '../../src/url/shape-budget.js';

describe('urlShape', () => {
  it('generalises digit runs in path and query, never in the host', () => {
    expect(urlShape('http://127.0.0.1:8080/cal/2024/05/?d=17')).toBe('http://127.0.0.1:8080/cal/#/#/?d=#');
    expect(urlShape('http://h/archive/1999-12.html')).toBe('http://h/archive/#-#.html');
    expect(urlShape('http://h2/about.html')).toBeNull();
    expect(urlShape('http://h')).toBeNull();
  });
});

describe('calendarShape', () => {
  it('is the shape of URLs with a year and month, or a date-named parameter', () => {
    expect(calendarShape('http://h/cal/2024/05/')).toBe('http://h/cal/#/#/');
    expect(calendarShape('http://h/events/1999-12.html')).toBe('http://h/events/#-#.html');
    expect(calendarShape('http://h/e?month=5&year=2024')).toBe('http://h/e?month=#&year=#');
    expect(calendarShape('http://h/e?date=20240501')).toBe('http://h/e?date=#');
  });

  it('is null for numbered pages that are not dates', () => {
    for (const u of [
      'http://h/p/123.html',
      'http://h/t/456789/',
      'http://h/list?page=4',
      'http://h/2024/13/',
      'http://h/v1.2/x',
    ]) {
      expect([u, calendarShape(u)]).toEqual([u, null]);
    }
  });
});

describe('ShapeBudget', () => {
  it('admits up to the cap of distinct URLs per shape; repeats stay admitted', () => {
    const b = new ShapeBudget(3);
    for (const m of ['01', '02', '03']) expect(b.admit(`http://h/cal/2024/${m}/`)).toBe(true);
    expect(b.admit('http://h/cal/2024/04/')).toBe(false);
    expect(b.admit('http://h/cal/2024/02/')).toBe(true);
    expect(b.admit('http://h/other/2024/04/')).toBe(true);
    expect(b.admit('http://h/no-digits/')).toBe(true);
  });

  it('a frozen shape admits only the URLs it has; 0 means no cap', () => {
    const b = new ShapeBudget(0);
    for (let y = 1000; y < 3000; y++) expect(b.admit(`http://h/y/${y}/`)).toBe(true);
    expect(b.freeze('http://h/y/1/')).toBe(true);
    expect(b.freeze('http://h/y/2/')).toBe(false);
    expect(b.admit('http://h/y/1500/')).toBe(true);
    expect(b.admit('http://h/y/3000/')).toBe(false);
    expect(b.freeze('http://h/none/')).toBe(false);
  });
});

describe('Scope with a shape budget', async () => {
  const { Scope } = await import('../../src/url/scope.js');
  it('says trap-shape past the cap and after freezeShape, after the other checks', () => {
    const scope = new Scope({
      mode: 'host',
      seeds: ['http://h/'],
      include: [],
      exclude: [],
      maxUrlLength: 0,
      maxPathRepeat: 0,
      maxQueryVariants: 0,
      maxShapeVariants: 2,
    });
    expect(scope.check('http://h/a/1')).toBe('ok');
    expect(scope.check('http://h/a/2')).toBe('ok');
    expect(scope.check('http://h/a/3')).toBe('trap-shape');
    expect(scope.check('http://other/a/3')).toBe('out-of-scope');
    expect(scope.check('http://h/b/1')).toBe('ok');
    expect(scope.freezeShape('http://h/b/9')).toBe(true);
    expect(scope.check('http://h/b/1')).toBe('ok');
    expect(scope.check('http://h/b/2')).toBe('trap-shape');
  });
});
