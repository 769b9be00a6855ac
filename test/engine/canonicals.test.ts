/**
 * Canonical-link merging (issue 27 §4): the first page collected for a canonical URL claims it;
 * another page stating it, or the canonical URL itself fetched later, is not collected again;
 * another site's canonical claims nothing; claims read back from the state hold.
 */
import { describe, expect, it } from 'vitest';
import { Canonicals } from '../../src/engine/canonicals.js';
import { canonicalize } from '../../src/url/canonicalize.js';
import { SessionIdStripper } from '../../src/url/session-ids.js';

const strip = new SessionIdStripper();
const normalize = (u: string) => {
  const c = canonicalize(u);
  return c === null ? null : strip.strip(c);
};
const C = 'https://news.example/story';

describe('Canonicals', () => {
  it('the first page stating a canonical claims it; the others, and the canonical itself, are not collected', () => {
    const c = new Canonicals(normalize);
    expect(c.claim(`${C}?from=home`, `${C}?utm_source=x`)).toEqual({ canonical: C, collectedAs: null });
    expect(c.claim(`${C}?from=menu`, C)).toEqual({ canonical: C, collectedAs: `${C}?from=home` });
    // the canonical URL itself, stating itself or nothing
    expect(c.claim(C, C)).toEqual({ canonical: null, collectedAs: `${C}?from=home` });
    expect(c.claim(C, undefined)).toEqual({ canonical: null, collectedAs: `${C}?from=home` });
    // the claiming page fetched again (a later round) is collected as usual
    expect(c.claim(`${C}?from=home`, C)).toEqual({ canonical: C, collectedAs: null });
  });

  it('a canonical collected under its own URL is not collected again under another', () => {
    const collected = new Set([C]);
    const c = new Canonicals(normalize, (u) => collected.has(u));
    expect(c.claim(C, C)).toEqual({ canonical: null, collectedAs: null });
    expect(c.claim(`${C}?from=feed`, C)).toEqual({ canonical: C, collectedAs: C });
  });

  it('another site, or no canonical, claims nothing; www. and the scheme are the same site', () => {
    const c = new Canonicals(normalize);
    expect(c.claim(`${C}?a=1`, 'https://elsewhere.example/story')).toEqual({
      canonical: null,
      collectedAs: null,
    });
    expect(c.claim(`${C}?a=2`, 'mailto:x@y')).toEqual({ canonical: null, collectedAs: null });
    expect(c.claim(`${C}?a=3`, 42)).toEqual({ canonical: null, collectedAs: null });
    expect(c.claim('http://www.news.example/amp/story', C)).toEqual({ canonical: C, collectedAs: null });
  });

  it('claims read back from the state hold', () => {
    const c = new Canonicals(normalize);
    c.restore(`${C}?from=home`, C);
    c.restore(`${C}?from=menu`, C); // first claim wins
    expect(c.claim(`${C}?from=menu`, C).collectedAs).toBe(`${C}?from=home`);
  });
});
