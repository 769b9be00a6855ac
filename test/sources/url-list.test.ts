import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/config/usage-error.js';
import { inlineUrlList, parseUrlList, readUrlList, shareOf } from '../../src/sources/url-list.js';
import { tempDir } from '../fixtures/cli.js';

const FILE = { name: 'list.txt', isFile: true };

describe('parseUrlList', () => {
  it('reads one URL a line: BOM, CRLF, blanks, # comments, trailing comments, whitespace', () => {
    const text =
      '\uFEFF# my list\r\nhttps://example.org/a\r\n\r\n   http://example.org/b   \r\n  # indented comment\r\nhttps://example.org/c #why\r\nhttps://example.org/d#frag\r\n';
    expect(parseUrlList(text, FILE)).toEqual([
      'https://example.org/a',
      'http://example.org/b',
      'https://example.org/c',
      'https://example.org/d',
    ]);
  });

  it('keeps each URL once, by canonical form, at its first place', () => {
    const text =
      'https://Example.org:443/a\nhttps://example.org/b\nhttps://example.org/a#x\nHTTPS://EXAMPLE.ORG/a';
    expect(parseUrlList(text, FILE)).toEqual(['https://example.org/a', 'https://example.org/b']);
  });

  it('names the file and line of a bad URL', () => {
    const text = 'https://example.org/a\n\nhtp:/broken\n';
    expect(() => parseUrlList(text, FILE)).toThrow(UsageError);
    expect(() => parseUrlList(text, FILE)).toThrow(
      /^list\.txt:3: "htp:\/broken" is not an absolute http\(s\) URL/,
    );
    expect(() => parseUrlList('example.org/no-scheme', FILE)).toThrow(/^list\.txt:1: /);
    expect(() => parseUrlList('ftp://example.org/x', FILE)).toThrow(/^list\.txt:1: /);
  });

  it('refuses an absurdly long line (a binary file)', () => {
    expect(() => parseUrlList(`https://example.org/${'x'.repeat(9000)}`, FILE)).toThrow(
      /list\.txt:1: line longer/,
    );
  });

  it('an empty list is empty', () => {
    expect(parseUrlList('\n# nothing\n', FILE)).toEqual([]);
  });
});

describe('inlineUrlList', () => {
  it('checks and deduplicates, naming the entry', () => {
    expect(inlineUrlList(['https://example.org/a', ' https://example.org/a '], 'urls')).toEqual([
      'https://example.org/a',
    ]);
    expect(() => inlineUrlList(['https://example.org/a', 'nope'], 'workers[0].urls')).toThrow(
      /^workers\[0\]\.urls\[1\]: "nope" is not an absolute/,
    );
  });
});

describe('readUrlList', () => {
  it('reads a file relative to a base directory', () => {
    const dir = tempDir('url-list-');
    mkdirSync(path.join(dir, 'conf'));
    writeFileSync(path.join(dir, 'conf', 'list.txt'), 'https://example.org/1\nhttps://example.org/2\n');
    expect(readUrlList('list.txt', path.join(dir, 'conf'))).toEqual([
      'https://example.org/1',
      'https://example.org/2',
    ]);
    writeFileSync(path.join(dir, 'bad.txt'), 'https://example.org/1\n/relative\n');
    expect(() => readUrlList('bad.txt', dir)).toThrow(/^bad\.txt:2: "\/relative"/);
  });

  it('says clearly when the file is missing or a directory', () => {
    const dir = tempDir('url-list-');
    expect(() => readUrlList('missing.txt', dir)).toThrow(
      /^urls: cannot read missing\.txt: no such file; give a text file/,
    );
    expect(() => readUrlList('.', dir)).toThrow(/cannot read \.: it is a directory/);
  });
});

describe('shareOf', () => {
  it('is list[i::N], and the shares together are the list, each entry once', () => {
    const list = Array.from({ length: 10 }, (_, i) => i);
    expect(shareOf(list, 0, 3)).toEqual([0, 3, 6, 9]);
    expect(shareOf(list, 1, 3)).toEqual([1, 4, 7]);
    expect(shareOf(list, 2, 3)).toEqual([2, 5, 8]);
    expect([0, 1, 2].flatMap((i) => shareOf(list, i, 3)).sort((a, b) => a - b)).toEqual(list);
    expect(shareOf(list, 0, 1)).toEqual(list);
    expect(shareOf([], 1, 4)).toEqual([]);
  });

  it('refuses an index outside 0..count-1', () => {
    expect(() => shareOf([1], 3, 3)).toThrow(RangeError);
    expect(() => shareOf([1], 0, 0)).toThrow(RangeError);
    expect(() => shareOf([1], -1, 2)).toThrow(RangeError);
  });
});
