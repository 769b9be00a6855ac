/**
 * Encoding-dependent query encoding (WHATWG URL "encoding-parse a URL"): expected bytes come from
 * the Encoding Standard's index tables (index-windows-1251, index-jis0208 for Shift_JIS, index-gb18030
 * for GBK), not from the encoder under test.
 */
import { describe, expect, it } from 'vitest';
import { canonicalizeIn, encodeQuery } from '../../src/url/legacy-query.js';

const base = 'http://h.example/dir/page.html';

describe('encodeQuery (percent-encode after encoding, special-query set)', () => {
  it('windows-1251: Привет is CF F0 E8 E2 E5 F2', () => {
    expect(encodeQuery('q=Привет', 'windows-1251')).toBe('q=%CF%F0%E8%E2%E5%F2');
  });

  it('Shift_JIS: 日 is 93 FA, 本 is 96 7B (the ASCII byte 7B `{` stays literal)', () => {
    expect(encodeQuery('q=日本', 'Shift_JIS')).toBe('q=%93%FA%96{');
  });

  it('GBK: 中 is D6 D0, 文 is CE C4; € is 80 (GBK flag)', () => {
    expect(encodeQuery('q=中文&e=€', 'GBK')).toBe('q=%D6%D0%CE%C4&e=%80');
  });

  it('a character the encoding lacks becomes &#NNNN; percent-encoded', () => {
    // 日 U+65E5 = 26085 is not in windows-1251
    expect(encodeQuery('q=日', 'windows-1251')).toBe('q=%26%2326085%3B');
    // an astral character: one code point, not two surrogates
    expect(encodeQuery('q=😀', 'GBK')).toBe('q=%26%23128512%3B');
  });

  it('ASCII follows the special-query set: space " # < > \' encoded, the rest literal', () => {
    expect(encodeQuery(`a b"<>'{}|^\`%41`, 'windows-1251')).toBe('a%20b%22%3C%3E%27{}|^`%41');
  });

  it('UTF-8 and UTF-16 documents encode the query as UTF-8', () => {
    expect(encodeQuery('q=é', 'UTF-8')).toBe('q=%C3%A9');
    expect(encodeQuery('q=é', 'UTF-16LE')).toBe('q=%C3%A9');
  });
});

describe('canonicalizeIn', () => {
  it('encodes the path as UTF-8 and the query in the document encoding', () => {
    expect(canonicalizeIn('страница.html?q=Привет', base, 'windows-1251')).toBe(
      'http://h.example/dir/%D1%81%D1%82%D1%80%D0%B0%D0%BD%D0%B8%D1%86%D0%B0.html?q=%CF%F0%E8%E2%E5%F2',
    );
    expect(canonicalizeIn('/日本.html?q=日本#frag', base, 'Shift_JIS')).toBe(
      'http://h.example/%E6%97%A5%E6%9C%AC.html?q=%93%FA%96{',
    );
    expect(canonicalizeIn('?q=中文', base, 'GBK')).toBe('http://h.example/dir/page.html?q=%D6%D0%CE%C4');
  });

  it('is the plain canonical URL for UTF-8 pages, ASCII queries and a "?" only in the fragment', () => {
    expect(canonicalizeIn('a.html?q=Привет', base, 'UTF-8')).toBe(
      'http://h.example/dir/a.html?q=%D0%9F%D1%80%D0%B8%D0%B2%D0%B5%D1%82',
    );
    expect(canonicalizeIn('a.html?q=x y', base, 'windows-1251')).toBe('http://h.example/dir/a.html?q=x%20y');
    expect(canonicalizeIn('a.html#?q=Привет', base, 'windows-1251')).toBe('http://h.example/dir/a.html');
  });

  it('removes tabs and newlines, trims the end, and keeps the canonical form a fixed point', () => {
    const u = canonicalizeIn(' a.html?q=При\nвет \t', base, 'windows-1251');
    expect(u).toBe('http://h.example/dir/a.html?q=%CF%F0%E8%E2%E5%F2');
    expect(canonicalizeIn(u as string, base, 'windows-1251')).toBe(u);
  });
});
