import { describe, expect, it } from 'vitest';
import { checkResult } from '../../src/sources/source-result.js';

const PAGE = 'http://127.0.0.1/docs/a.html';

describe('a handle() result, checked', () => {
  it("nothing is an empty result; a built-in's result is taken as it is", () => {
    expect(checkResult(undefined, PAGE, false)).toEqual({});
    const trusted = { title: 't', follow: ['http://127.0.0.1/x'] };
    expect(checkResult(trusted, PAGE, true)).toBe(trusted);
  });

  it('follow is normalized against the page; data is what JSON keeps; file bytes and extension', () => {
    const out = checkResult(
      {
        title: null,
        data: { n: 1, at: new Date(0), skip: undefined },
        follow: ['b.html', { url: '/c', label: 'c' }],
        file: { body: 'text', extension: '.md' },
      },
      PAGE,
      false,
    );
    expect(out).toEqual({
      title: null,
      data: { n: 1, at: '1970-01-01T00:00:00.000Z' },
      follow: ['http://127.0.0.1/docs/b.html', { url: 'http://127.0.0.1/c', meta: { label: 'c' } }],
      fileBody: Buffer.from('text'),
      extension: 'md',
    });
    expect(checkResult({ file: { body: new Uint8Array([1, 2]) } }, PAGE, false).fileBody).toEqual(
      Buffer.from([1, 2]),
    );
  });

  it.each([
    ['a string', /neither an object nor nothing/],
    [{ links: [] }, /unknown key "links"/],
    [{ title: 5 }, /title: expected a string or null/],
    [{ data: [1] }, /data: expected an object/],
    [{ data: { n: 1n } }, /data: not JSON/],
    [{ follow: 'a' }, /follow: expected an array/],
    [{ file: { body: 5 } }, /file\.body: expected a string or bytes/],
    [{ file: { extension: '../x' } }, /file\.extension: expected letters and digits/],
  ])('refuses %o', (result, message) => {
    expect(() => checkResult(result, PAGE, false)).toThrow(message);
  });
});
