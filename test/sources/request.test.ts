import { describe, expect, it } from 'vitest';
import { parseRequestMeta } from '../../src/frontier/request-meta.js';
import { normalizeRequest, normalizeRequests, REQUEST_LIMITS } from '../../src/sources/request.js';

const PAGE = 'http://127.0.0.1:8080/api/stories?page=1';

describe('a source request, normalized', () => {
  it('a URL string stays a string (canonical, resolved against the page); a non-http one is skipped', () => {
    expect(normalizeRequest('item/1.json', PAGE, 'follow[0]')).toBe('http://127.0.0.1:8080/api/item/1.json');
    expect(normalizeRequest('HTTP://127.0.0.1:8080/a/../b#frag', undefined, 's')).toBe(
      'http://127.0.0.1:8080/b',
    );
    expect(normalizeRequest('mailto:x@example.org', PAGE, 'f')).toBeNull();
    expect(normalizeRequest('relative.html', undefined, 's')).toBeNull();
  });

  it('an object keeps only what is not a default: no metadata left is a plain string', () => {
    expect(
      normalizeRequest({ url: 'a', priority: 0, store: true, robots: true, everyRound: false }, PAGE, 'f'),
    ).toBe('http://127.0.0.1:8080/api/a');
    expect(
      normalizeRequest(
        {
          url: 'a',
          label: 'item',
          headers: { Accept: 'application/json', 'If-None-Match': '"x"' },
          priority: -2,
          userData: { page: 1, when: new Date(0) },
          store: false,
          robots: false,
          everyRound: true,
        },
        PAGE,
        'f',
      ),
    ).toEqual({
      url: 'http://127.0.0.1:8080/api/a',
      meta: {
        label: 'item',
        headers: { accept: 'application/json', 'if-none-match': '"x"' },
        priority: -2,
        // What JSON keeps of it: the same before and after a resume.
        userData: { page: 1, when: '1970-01-01T00:00:00.000Z' },
        store: false,
        robots: false,
        everyRound: true,
      },
    });
  });

  it('scope: false marks a navigation file; lastmod is kept as epoch ms from a number, a Date or a date', () => {
    expect(normalizeRequest({ url: 'a', scope: true, lastmod: null }, PAGE, 'f')).toBe(
      'http://127.0.0.1:8080/api/a',
    );
    expect(normalizeRequest({ url: 'a', scope: false, lastmod: '2024-05-01' }, PAGE, 'f')).toEqual({
      url: 'http://127.0.0.1:8080/api/a',
      meta: { scope: false, lastmod: Date.UTC(2024, 4, 1) },
    });
    expect(normalizeRequest({ url: 'a', lastmod: new Date(5000) }, PAGE, 'f')).toEqual({
      url: 'http://127.0.0.1:8080/api/a',
      meta: { lastmod: 5000 },
    });
    // an unreadable date is no claim; a wrong type is the source's error
    expect(normalizeRequest({ url: 'a', lastmod: 'soon' }, PAGE, 'f')).toBe('http://127.0.0.1:8080/api/a');
    expect(() => normalizeRequest({ url: 'a', lastmod: true } as never, PAGE, 'f')).toThrow(
      /f\.lastmod: expected/,
    );
    expect(() => normalizeRequest({ url: 'a', scope: 'no' } as never, PAGE, 'f')).toThrow(
      /f\.scope: expected true or false/,
    );
    // and read back from a state line
    expect(parseRequestMeta('{"scope":false,"lastmod":5000}')).toEqual({ scope: false, lastmod: 5000 });
    expect(parseRequestMeta('{"scope":true}')).toBeNull();
    expect(parseRequestMeta('{"lastmod":-1}')).toBeNull();
  });

  it.each([
    [{ url: 'a', authorization: 'x' }, /f: unknown key "authorization"/],
    [
      { url: 'a', headers: { Authorization: 'Bearer t' } },
      /f\.headers\.Authorization: credentials are not stored.*authorize\(\)/,
    ],
    [{ url: 'a', headers: { cookie: 'a=b' } }, /credentials/],
    [{ url: 'a', headers: { host: 'x' } }, /set by the collector itself/],
    [{ url: 'a', headers: { 'x-a': 'line\nbreak' } }, /without control characters/],
    [{ url: 'a', headers: { 'bad name': 'v' } }, /"bad name" is not a header name/],
    [{ url: 'a', headers: ['accept'] }, /f\.headers: expected an object/],
    [{ url: 'a', label: 7 }, /f\.label: expected a string/],
    [{ url: 'a', label: 'x'.repeat(REQUEST_LIMITS.labelChars + 1) }, /at most 200 characters/],
    [{ url: 'a', priority: 1.5 }, /f\.priority: expected an integer/],
    [{ url: 'a', store: 'no' }, /f\.store: expected true or false/],
    [{ url: 'a', userData: { n: 1n } }, /f\.userData: not JSON/],
    [{ url: 'a', userData: () => 1 }, /f\.userData: not JSON/],
    [{ url: 'a', userData: 'x'.repeat(REQUEST_LIMITS.userDataBytes) }, /more than 65536 bytes/],
    [{ url: 5 }, /f\.url: expected a string, got number/],
    [null, /f: expected a URL string or \{ url, \.\.\. \}, got null/],
  ])('refuses %o', (request, message) => {
    expect(() => normalizeRequest(request as never, PAGE, 'f')).toThrow(message);
  });

  it('a list names the entry that is wrong; not a list is refused', () => {
    expect(normalizeRequests(['a', 'mailto:x', { url: 'b', label: 'l' }], PAGE, 'follow')).toEqual([
      'http://127.0.0.1:8080/api/a',
      { url: 'http://127.0.0.1:8080/api/b', meta: { label: 'l' } },
    ]);
    expect(() => normalizeRequests(['a', { url: 'b', label: 1 }], PAGE, 'follow')).toThrow(
      /^follow\[1\]\.label/,
    );
    expect(() => normalizeRequests('a', PAGE, 'seeds()')).toThrow(/^seeds\(\): expected an array/);
  });
});
