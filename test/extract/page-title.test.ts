import { describe, expect, it } from 'vitest';
import { siteSuffixes, stripSiteName } from '../../src/extract/page-title.js';

const on = (pageUrl: string, names: string[] = []) => ({ pageUrl, names });

describe('stripSiteName', () => {
  it('removes a trailing site name that the page names', () => {
    expect(stripSiteName('Foo bar | TheHill', on('https://example.org/a', ['TheHill']))).toBe('Foo bar');
    // compared by letters and digits, case ignored
    expect(stripSiteName('Foo bar | The Hill', on('https://example.org/a', ['THEHILL']))).toBe('Foo bar');
    expect(stripSiteName('Foo bar — the-hill', on('https://example.org/a', ['The Hill']))).toBe('Foo bar');
  });

  it('removes a trailing site name that the host names', () => {
    expect(stripSiteName('Why X - The Verge', on('https://www.theverge.com/2024/1/x'))).toBe('Why X');
    expect(stripSiteName('Foo bar | TheHill.com', on('https://thehill.com/a'))).toBe('Foo bar');
    expect(stripSiteName('Foo bar · thehill', on('https://news.thehill.com/a'))).toBe('Foo bar');
    // a private suffix (github.io) makes the user the site
    expect(stripSiteName('Notes on Rust » Alice', on('https://alice.github.io/rust/'))).toBe('Notes on Rust');
  });

  it('removes a leading site name', () => {
    expect(stripSiteName('TheHill :: Foo bar', on('https://example.org/', ['TheHill']))).toBe('Foo bar');
    expect(stripSiteName('The Verge / Why X', on('https://www.theverge.com/x'))).toBe('Why X');
  });

  it('removes a longer known suffix, which may contain separators', () => {
    expect(stripSiteName('Foo - News | Acme', on('https://example.org/', ['News | Acme']))).toBe('Foo');
    expect(stripSiteName('Foo - News | Acme', on('https://example.org/', ['Acme']))).toBe('Foo - News');
  });

  it('removes a part that contains the site name only when it is the shorter part', () => {
    expect(stripSiteName('Rates rise again in spring - BBC News', on('https://www.bbc.co.uk/news/1'))).toBe(
      'Rates rise again in spring',
    );
    expect(stripSiteName('BBC News – Rates rise again in spring', on('https://www.bbc.co.uk/news/1'))).toBe(
      'Rates rise again in spring',
    );
    // the part containing "apple" is the headline, not the site
    expect(stripSiteName('Apple unveils a new phone - Reviews', on('https://www.apple.com/x'))).toBe(
      'Apple unveils a new phone - Reviews',
    );
    expect(stripSiteName('Hi - BBC News', on('https://www.bbc.co.uk/news/1'))).toBe('Hi - BBC News');
    // containment needs 3 letters or digits: go.dev's "go" is in too many words
    expect(stripSiteName('Learning to go faster - Gopher notes', on('https://go.dev/x'))).toBe(
      'Learning to go faster - Gopher notes',
    );
    // containment applies to one part only, never to several
    expect(stripSiteName('Foo bar baz qux - Section | BBC', on('https://www.bbc.co.uk/'))).toBe(
      'Foo bar baz qux - Section',
    );
  });

  it('keeps a title without a separator or without a site match', () => {
    expect(stripSiteName('Python: the good parts', on('https://python.org/', ['Python']))).toBe(
      'Python: the good parts',
    );
    expect(stripSiteName('A – B', on('https://example.org/', ['Example Site']))).toBe('A – B');
    expect(stripSiteName('TheHill', on('https://thehill.com/', ['TheHill']))).toBe('TheHill');
    expect(stripSiteName('Spider-Man review', on('https://example.org/', ['Man review']))).toBe(
      'Spider-Man review',
    );
    expect(stripSiteName('TCP/IP explained', on('https://ip.example/', ['IP explained']))).toBe(
      'TCP/IP explained',
    );
  });

  it('never leaves a title without letters or digits', () => {
    expect(stripSiteName('… - TheHill', on('https://example.org/', ['TheHill']))).toBe('… - TheHill');
    expect(stripSiteName('TheHill | TheHill', on('https://example.org/', ['TheHill']))).toBe('TheHill');
  });

  it('removes one part at most', () => {
    expect(stripSiteName('Acme | Foo | Acme', on('https://example.org/', ['Acme']))).toBe('Acme | Foo');
  });

  it('a page URL that does not parse leaves only the given names', () => {
    expect(stripSiteName('Foo | Acme', on('not a url', ['Acme']))).toBe('Foo');
    expect(stripSiteName('Foo | Acme', on('not a url'))).toBe('Foo | Acme');
  });
});

describe('siteSuffixes', () => {
  it('finds the part one title adds to another', () => {
    expect(siteSuffixes(['Foo bar', 'Foo bar | Whatever Co'])).toEqual(['Whatever Co']);
    expect(siteSuffixes(['Whatever Co - Foo bar', 'foo BAR'])).toEqual(['Whatever Co']);
    expect(siteSuffixes(['Foo bar', 'Foo bar - Section | Whatever Co'])).toEqual(['Section | Whatever Co']);
  });

  it('finds nothing when the titles do not differ by a separated part', () => {
    expect(siteSuffixes(['Foo bar', 'Foo bar baz'])).toEqual([]);
    expect(siteSuffixes(['Foo bar', 'Foo bar'])).toEqual([]);
    expect(siteSuffixes(['Foo bar | Acme'])).toEqual([]);
    expect(siteSuffixes([])).toEqual([]);
  });
});
