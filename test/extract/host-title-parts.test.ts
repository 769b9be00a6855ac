import { describe, expect, it } from 'vitest';
import { HostTitleParts, PAGES_TO_LEARN } from '../../src/extract/host-title-parts.js';
import { stripSiteName } from '../../src/extract/page-title.js';

const sphinx = (page: string) => `${page} — Python 3.11 documentation`;

describe('HostTitleParts', () => {
  it('learns a trailing part once three pages of the host share it, each beside another rest', () => {
    const t = new HostTitleParts();
    t.observe('docs.example', sphinx('Tutorial'));
    t.observe('docs.example', sphinx('Library'));
    expect(t.namesOf('docs.example')).toEqual([]);
    t.observe('docs.example', sphinx('Glossary'));
    expect(t.namesOf('docs.example')).toEqual(['Python 3.11 documentation']);
    expect(PAGES_TO_LEARN).toBe(3);
  });

  it('learns a leading part the same way', () => {
    const t = new HostTitleParts();
    for (const post of ['First post', 'Second post', 'Third post'])
      t.observe('blog.example', `Acme » ${post}`);
    expect(t.namesOf('blog.example')).toEqual(['Acme']);
  });

  it('does not learn from one page seen again, nor from titles without a separator', () => {
    const t = new HostTitleParts();
    for (let i = 0; i < 5; i++) t.observe('a.example', 'Home | Acme');
    for (const title of ['Acme', 'Spider-Man', 'TCP/IP basics', null, '']) t.observe('a.example', title);
    expect(t.namesOf('a.example')).toEqual([]);
  });

  it('keeps each host apart', () => {
    const t = new HostTitleParts();
    t.observe('a.example', 'One | Acme');
    t.observe('b.example', 'Two | Acme');
    t.observe('c.example', 'Three | Acme');
    for (const h of ['a.example', 'b.example', 'c.example']) expect(t.namesOf(h)).toEqual([]);
  });

  it('learns every part shared by a section and the site, and the longest is the one removed', () => {
    const t = new HostTitleParts();
    for (const p of ['Part 1', 'Part 2', 'Part 3']) t.observe('d.example', `${p} | Tutorial | Django`);
    const names = t.namesOf('d.example');
    expect(names).toEqual(expect.arrayContaining(['Tutorial | Django', 'Django']));
    const evidence = { names, pageUrl: 'https://d.example/intro/' };
    expect(stripSiteName('Part 4 | Tutorial | Django', evidence)).toBe('Part 4');
    expect(stripSiteName('Models | Django', evidence)).toBe('Models');
  });

  it('compares parts as site names are compared (case, spacing and punctuation aside)', () => {
    const t = new HostTitleParts();
    t.observe('e.example', 'A - The Verge');
    t.observe('e.example', 'B - the verge');
    t.observe('e.example', 'C -  THE-VERGE ');
    expect(t.namesOf('e.example')).toEqual(['THE-VERGE']);
  });

  it('ignores a title too long to be one', () => {
    const t = new HostTitleParts();
    for (const p of ['a', 'b', 'c']) t.observe('f.example', `${p.repeat(300)} | Acme`);
    expect(t.namesOf('f.example')).toEqual([]);
  });

  it('still learns a part shared late, after many titles that share none (each post’s own part forgotten)', () => {
    const t = new HostTitleParts();
    for (let i = 0; i < 200; i++) t.observe('g.example', `Post number ${i}`); // no separator
    for (let i = 0; i < 200; i++) t.observe('g.example', `Note ${i} | Draft ${i}`); // nothing shared
    expect(t.namesOf('g.example')).toEqual([]);
    for (const p of ['One', 'Two', 'Three']) t.observe('g.example', `${p} | Acme`);
    expect(t.namesOf('g.example')).toEqual(['Acme']);
  });

  it('stays bounded: the least recently seen host is forgotten after 1,000', () => {
    const t = new HostTitleParts();
    for (const p of ['One', 'Two', 'Three']) t.observe('first.example', `${p} | Acme`);
    for (const p of ['One', 'Two', 'Three']) t.observe('kept.example', `${p} | Acme`);
    for (let i = 0; i < 998; i++) t.observe(`h${i}.example`, 'Page | Site');
    t.observe('kept.example', 'Four | Acme'); // seen again: now the most recent
    t.observe('last.example', 'Page | Site'); // the 1,001st host
    expect(t.namesOf('first.example')).toEqual([]);
    expect(t.namesOf('kept.example')).toEqual(['Acme']);
  });
});
