/** Unit behaviour of filePathFor: naming rules for hosts, segments, queries, lengths. */
import { describe, expect, it } from 'vitest';
import { filePathFor, MAX_RELATIVE_PATH_BYTES, MAX_SEGMENT_BYTES } from '../../src/sinks/file-path.js';

function expectSafe(relative: string): void {
  expect(relative.startsWith('/')).toBe(false);
  expect(Buffer.byteLength(relative)).toBeLessThanOrEqual(MAX_RELATIVE_PATH_BYTES);
  expect(relative).not.toMatch(/[\\\u0000-\u001f\u007f]/);
  const segments = relative.split('/');
  expect(segments.length).toBeGreaterThanOrEqual(2);
  for (const segment of segments) {
    expect(segment).not.toBe('');
    expect(segment).not.toBe('.');
    expect(segment).not.toBe('..');
    expect(Buffer.byteLength(segment)).toBeLessThanOrEqual(MAX_SEGMENT_BYTES);
  }
}

describe('filePathFor', () => {
  it('stores directory-like URLs as index.html', () => {
    expect(filePathFor('https://example.org/')).toBe('example.org/index.html');
    expect(filePathFor('https://example.org')).toBe('example.org/index.html');
    expect(filePathFor('https://example.org/docs/guide/')).toBe('example.org/docs/guide/index.html');
    expect(filePathFor('https://example.org/docs/guide')).toBe('example.org/docs/guide');
  });

  it('names the host dir with _PORT and ignores the scheme', () => {
    expect(filePathFor('http://127.0.0.1:8081/a')).toBe('127.0.0.1_8081/a');
    expect(filePathFor('https://example.org:8443/a')).toBe('example.org_8443/a');
    expect(filePathFor('http://example.org/a')).toBe(filePathFor('https://example.org/a'));
    // Default ports are dropped by the URL parser, so they do not create a second dir.
    expect(filePathFor('https://example.org:443/a')).toBe('example.org/a');
    expect(filePathFor('http://[::1]:3000/a')).toBe('[::1]_3000/a');
  });

  it('gives query variants distinct names', () => {
    const a1 = filePathFor('https://h.test/a?x=1');
    const a2 = filePathFor('https://h.test/a?x=2');
    expect(a1).toBe('h.test/a@q=x=1');
    expect(a2).toBe('h.test/a@q=x=2');
    expect(filePathFor('https://h.test/a')).toBe('h.test/a');
    expect(filePathFor('https://h.test/dir/?page=2')).toBe('h.test/dir/index.html@q=page=2');
    // Long or odd queries are hashed, still distinct.
    const long1 = filePathFor(`https://h.test/a?${'k=v&'.repeat(40)}1`);
    const long2 = filePathFor(`https://h.test/a?${'k=v&'.repeat(40)}2`);
    expect(long1).toMatch(/^h\.test\/a@q~[0-9a-f]{16}$/);
    expect(long1).not.toBe(long2);
    expect(filePathFor('https://h.test/a?next=/../../etc')).toMatch(/^h\.test\/a@q~[0-9a-f]{16}$/);
  });

  it('does not let a path imitate a query suffix', () => {
    expect(filePathFor('https://h.test/a@q=x=1')).not.toBe(filePathFor('https://h.test/a?x=1'));
    expect(filePathFor('https://h.test/a%40q=x=1')).not.toBe(filePathFor('https://h.test/a?x=1'));
  });

  it('decodes safe percent-escapes and keeps unicode', () => {
    expect(filePathFor('https://h.test/caf%C3%A9/na%20me')).toBe('h.test/café/na me');
    expect(filePathFor('https://h.test/日本語/ページ')).toBe('h.test/日本語/ページ');
  });

  it('re-encodes separators, NUL, controls and invisible characters', () => {
    expect(filePathFor('https://h.test/a%2Fb')).toBe('h.test/a%2Fb');
    expect(filePathFor('https://h.test/a%5Cb')).toBe('h.test/a%5Cb');
    expect(filePathFor('https://h.test/a%00b%0A')).toBe('h.test/a%00b%0A');
    expect(filePathFor('https://h.test/x%E2%80%AEtxt.exe')).toBe('h.test/x%E2%80%AEtxt.exe');
    // `%` itself is escaped, so `%2F` (a slash) and `%252F` (the text "%2F") differ.
    expect(filePathFor('https://h.test/a%252Fb')).toBe('h.test/a%252Fb');
    // Invalid UTF-8 stays escaped byte by byte.
    expect(filePathFor('https://h.test/%FF%FEok')).toBe('h.test/%FF%FEok');
  });

  it('neutralises dot, empty and reserved segments', () => {
    expect(filePathFor('https://h.test/a/%2e%2e/b')).toBe('h.test/b'); // URL parser resolves it
    expect(filePathFor('https://h.test/a/..%2F..%2Fetc%2Fpasswd')).toBe('h.test/a/..%2F..%2Fetc%2Fpasswd');
    expect(filePathFor('https://h.test/a//b')).toBe('h.test/a/_/b');
    expect(filePathFor('https://h.test/a/_/b')).toBe('h.test/a/%5F/b');
    expect(filePathFor('http://../x')).toBe('%2E%2E/x');
    expect(filePathFor('https://h.test/_conflicts/0123456789abcdef')).toBe(
      'h.test/%5Fconflicts/0123456789abcdef',
    );
  });

  it('shortens long segments with a hash and bounds total length', () => {
    const long = 'x'.repeat(500);
    const out = filePathFor(`https://h.test/${long}/${long}y`);
    const [, first, second] = out.split('/');
    expect(first).toMatch(/^x{60}~[0-9a-f]{16}$/);
    expect(second).toMatch(/^x{60}~[0-9a-f]{16}$/);
    expect(first).not.toBe(second);
    // 4-byte characters: 60 of them would exceed NAME_MAX, so the byte cap applies.
    expectSafe(filePathFor(`https://h.test/${'😀'.repeat(300)}`));
    const deep = filePathFor(`https://h.test/${`${'d'.repeat(150)}/`.repeat(60)}end`);
    expectSafe(deep);
    expect(deep).toMatch(/\/_tail~[0-9a-f]{16}$/);
    expect(deep).not.toBe(filePathFor(`https://h.test/${`${'d'.repeat(150)}/`.repeat(60)}end2`));
  });

  it('rejects non-http URLs and garbage', () => {
    expect(() => filePathFor('ftp://h.test/a')).toThrow(/not an http/);
    expect(() => filePathFor('file:///etc/passwd')).toThrow(/not an http/);
    expect(() => filePathFor('not a url')).toThrow(TypeError);
  });
});

describe('filePathFor with an extension chosen by a source', () => {
  it('adds it to the last name unless it is there; a directory URL is index.<ext>', () => {
    expect(filePathFor('http://h/repos/a/readme', 'md')).toBe('h/repos/a/readme.md');
    expect(filePathFor('http://h/api/item/1.json', 'md')).toBe('h/api/item/1.json.md');
    expect(filePathFor('http://h/notes.MD', 'md')).toBe('h/notes.MD');
    expect(filePathFor('http://h/docs/', 'md')).toBe('h/docs/index.md');
    expect(filePathFor('http://h/x?ref=main', 'md')).toBe('h/x@q=ref=main.md');
    expect(filePathFor('http://h/docs/')).toBe('h/docs/index.html');
  });
});
