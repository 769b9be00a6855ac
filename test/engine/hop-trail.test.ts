/** The redirect-loop rule: a loop is a loop only when the same request would be made again. */
import { describe, expect, it } from 'vitest';
import { HopTrail } from '../../src/engine/hop-trail.js';

describe('HopTrail', () => {
  it('a hop back to a URL with the same session state is a loop', () => {
    const t = new HopTrail('http://h/a', '');
    t.add('http://h/b', '');
    expect(t.repeats('http://h/a', '')).toBe(true);
    expect(t.repeats('http://h/c', '')).toBe(false);
    expect(t.urls).toEqual(['http://h/a', 'http://h/b']);
    expect(t.redirects).toBe(1);
    expect(t.last).toBe('http://h/b');
  });

  it('a hop back with changed cookies is not (the cookie wall), but the same change twice is', () => {
    const t = new HopTrail('http://h/wall', '');
    expect(t.repeats('http://h/wall', 'cookie-1')).toBe(false);
    t.add('http://h/wall', 'cookie-1');
    expect(t.has('http://h/wall')).toBe(true);
    expect(t.repeats('http://h/wall', 'cookie-1')).toBe(true);
    expect(t.redirects).toBe(1);
  });
});
