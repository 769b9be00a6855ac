import { describe, expect, it } from 'vitest';
import { canonicalize, hostKey } from '../../src/url/canonicalize.js';

const BASE = 'http://example.com/dir/page.html?q=1';

describe('canonicalize: resolution', () => {
  it('resolves relative references against the base', () => {
    expect(canonicalize('other.html', BASE)).toBe('http://example.com/dir/other.html');
    expect(canonicalize('/root', BASE)).toBe('http://example.com/root');
    expect(canonicalize('?x=2', BASE)).toBe('http://example.com/dir/page.html?x=2');
    expect(canonicalize('', BASE)).toBe('http://example.com/dir/page.html?q=1');
    expect(canonicalize('#top', BASE)).toBe('http://example.com/dir/page.html?q=1');
  });

  it('resolves protocol-relative references with the base scheme', () => {
    expect(canonicalize('//h.example/x', BASE)).toBe('http://h.example/x');
    expect(canonicalize('//h.example/x', 'https://example.com/')).toBe('https://h.example/x');
  });

  it('clamps ../ past the root and resolves dot segments', () => {
    expect(canonicalize('../../../../x', BASE)).toBe('http://example.com/x');
    expect(canonicalize('http://example.com/a/./b/../c/./d')).toBe('http://example.com/a/c/d');
    expect(canonicalize('http://example.com/a/%2e%2E/b')).toBe('http://example.com/b');
  });

  it('accepts a URL object as base', () => {
    expect(canonicalize('x', new URL('https://example.com/a/b'))).toBe('https://example.com/a/x');
  });

  it('treats http:foo as relative to an http base but absolute http:// as base-independent', () => {
    expect(canonicalize('http:foo', 'http://example.com/a/')).toBe('http://example.com/a/foo');
    expect(canonicalize('https://other.example/p', BASE)).toBe('https://other.example/p');
    expect(canonicalize('http:\\\\other.example\\p\\q', BASE)).toBe('http://other.example/p/q');
  });

  it('returns null for relative references without a usable base', () => {
    expect(canonicalize('/x')).toBeNull();
    expect(canonicalize('x', 'not a url')).toBeNull();
  });
});

describe('canonicalize: schemes', () => {
  it.each([
    'mailto:someone@example.com',
    'javascript:void(0)',
    'JavaScript:alert(1)',
    ' javascript:alert(1)',
    'java\nscript:alert(1)',
    'data:text/html,<p>hi</p>',
    'file:///etc/passwd',
    'ftp://ftp.example.com/file',
    'tel:+123',
    'ws://example.com/socket',
  ])('skips %j', (href) => {
    expect(canonicalize(href, BASE)).toBeNull();
  });

  it('keeps http and https, case-insensitive scheme', () => {
    expect(canonicalize('HTTP://example.com/')).toBe('http://example.com/');
    expect(canonicalize('HtTpS://example.com/')).toBe('https://example.com/');
  });

  it('returns null for invalid URLs', () => {
    expect(canonicalize('http://exa mple.com/')).toBeNull();
    expect(canonicalize('http://')).toBeNull();
    expect(canonicalize('http://[::1/')).toBeNull();
    expect(canonicalize('http://example.com:99999/')).toBeNull();
  });
});

describe('canonicalize: normalization', () => {
  it('lowercases scheme and host, drops default ports, keeps others', () => {
    expect(canonicalize('HTTP://WWW.Example.COM:80/Path')).toBe('http://www.example.com/Path');
    expect(canonicalize('https://example.com:443/')).toBe('https://example.com/');
    expect(canonicalize('http://example.com:443/')).toBe('http://example.com:443/');
    expect(canonicalize('https://example.com:8443/x')).toBe('https://example.com:8443/x');
  });

  it('converts IDN hosts to punycode', () => {
    expect(canonicalize('http://bücher.example/')).toBe('http://xn--bcher-kva.example/');
    expect(canonicalize('http://BÜCHER.example/')).toBe('http://xn--bcher-kva.example/');
  });

  it('percent-encodes non-ASCII path and query as UTF-8', () => {
    expect(canonicalize('/ü', 'http://example.com/')).toBe('http://example.com/%C3%BC');
    expect(canonicalize('http://example.com/a b?q=ü')).toBe('http://example.com/a%20b?q=%C3%BC');
  });

  it('uppercases percent-escapes and decodes unreserved ones (RFC 3986 §6.2.2)', () => {
    expect(canonicalize('http://example.com/a%2fb%3a')).toBe('http://example.com/a%2Fb%3A');
    expect(canonicalize('http://example.com/%7euser/%41%62%2D%5f%2e%30')).toBe(
      'http://example.com/~user/Ab-_.0',
    );
    expect(canonicalize('http://example.com/?q=%3d%7E&r=%c3%bc')).toBe('http://example.com/?q=%3D~&r=%C3%BC');
  });

  it('leaves malformed escapes alone', () => {
    expect(canonicalize('http://example.com/100%zz%2')).toBe('http://example.com/100%zz%2');
    expect(canonicalize('http://example.com/%')).toBe('http://example.com/%');
  });

  it('drops the fragment, including an empty one', () => {
    expect(canonicalize('http://example.com/p#section')).toBe('http://example.com/p');
    expect(canonicalize('http://example.com/p#')).toBe('http://example.com/p');
    expect(canonicalize('http://example.com/p?a=1#x?y')).toBe('http://example.com/p?a=1');
  });

  it('drops an empty query but keeps a non-empty one verbatim and in order', () => {
    expect(canonicalize('http://example.com/p?')).toBe('http://example.com/p');
    expect(canonicalize('http://example.com/p?#f')).toBe('http://example.com/p');
    expect(canonicalize('http://example.com/p?b=2&a=1&b=1')).toBe('http://example.com/p?b=2&a=1&b=1');
    expect(canonicalize('http://example.com/p?a?')).toBe('http://example.com/p?a?');
    expect(canonicalize('http://example.com/p?&')).toBe('http://example.com/p?&');
  });

  it('makes an empty path /', () => {
    expect(canonicalize('http://example.com')).toBe('http://example.com/');
    expect(canonicalize('http://example.com?x')).toBe('http://example.com/?x');
  });

  it('strips surrounding whitespace and tabs/newlines inside', () => {
    expect(canonicalize('  \n\t/a\n/b\r\n  ', 'http://example.com/')).toBe('http://example.com/a/b');
    expect(canonicalize('ht\ntp://exa\tmple.com/x')).toBe('http://example.com/x');
    expect(canonicalize('\u0000 http://example.com/ \u001f')).toBe('http://example.com/');
  });

  it('keeps userinfo and IPv6 hosts', () => {
    expect(canonicalize('http://User:Pw@Example.com:8080/x')).toBe('http://User:Pw@example.com:8080/x');
    expect(canonicalize('http://[0:0::1]:8080/x')).toBe('http://[::1]:8080/x');
    expect(canonicalize('http://0x7f.1/')).toBe('http://127.0.0.1/');
  });

  it('returns already canonical input unchanged', () => {
    const url = 'https://example.com/a/b%2Fc?x=1&y=%C3%BC';
    expect(canonicalize(url)).toBe(url);
  });

  it('is idempotent on random inputs', () => {
    // Deterministic PRNG so a failure is reproducible.
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const alphabet = [
      'a',
      'B',
      '/',
      '.',
      '..',
      '%',
      '%2e',
      '%7E',
      '%c3%bc',
      '?',
      '#',
      '&',
      '=',
      ' ',
      'ü',
      '\\',
      ':',
      '@',
      '~',
      '%2F',
    ];
    for (let n = 0; n < 2000; n++) {
      let href = '';
      const len = 1 + rand(12);
      for (let i = 0; i < len; i++) href += alphabet[rand(alphabet.length)];
      const once = canonicalize(href, 'http://example.com/x/y/');
      if (once !== null) expect(canonicalize(once), href).toBe(once);
    }
  });
});

describe('hostKey', () => {
  it('returns hostname[:port] of a canonical URL', () => {
    expect(hostKey('http://example.com/a?b')).toBe('example.com');
    expect(hostKey('https://example.com:8443/')).toBe('example.com:8443');
    expect(hostKey('http://[::1]:8080/x')).toBe('[::1]:8080');
  });

  it('omits userinfo', () => {
    expect(hostKey('http://user:pw@example.com:81/x@y')).toBe('example.com:81');
  });

  it('agrees with URL.host on canonical URLs', () => {
    for (const href of [
      'http://a.b.c/',
      'https://x.example:1/p?q=1',
      'http://u@[2001:db8::1]/',
      'http://127.0.0.1:8080/',
    ]) {
      const c = canonicalize(href)!;
      expect(hostKey(c)).toBe(new URL(c).host);
    }
  });
});

describe('canonicalize: the scheme scan never decides what the URL parser would not (mutation testing)', () => {
  const base = 'http://b.example/dir/x';

  it('a relative path with a colon after a non-scheme character is resolved, not taken for a scheme', () => {
    for (const href of ['a~~:b', 'a_b:c', 'a[b:c', '1ab:c', '~ab:c', '_ab:c']) {
      expect(canonicalize(href, base), href).toBe(new URL(href, base).href);
    }
  });

  it('"http:" with fewer than two slashes is relative to an http base', () => {
    expect(canonicalize('http:/foo', base)).toBe('http://b.example/foo');
    expect(canonicalize('http:x/y', base)).toBe('http://b.example/dir/x/y');
    expect(canonicalize('http:\\\\h.example/z', base)).toBe('http://h.example/z');
  });

  it('an absolute http URL ignores even an unusable base', () => {
    expect(canonicalize('http://a.example/', 'not a url')).toBe('http://a.example/');
  });

  it('schemes that only look like http once tabs are removed are still refused', () => {
    expect(canonicalize('ht\ttpx://a.example/')).toBeNull();
    expect(canonicalize('fi\tle:///etc/passwd')).toBeNull();
    expect(canonicalize('ht\ttp://a.example/')).toBe('http://a.example/');
  });

  it('percent-escapes: invalid ones are skipped one character at a time, lowercase hex uppercased', () => {
    expect(canonicalize('http://h.example/%%41')).toBe('http://h.example/%A');
    expect(canonicalize('http://h.example/%4%41')).toBe('http://h.example/%4A');
    expect(canonicalize('http://h.example/%0a')).toBe('http://h.example/%0A');
    expect(canonicalize('http://h.example/%a0')).toBe('http://h.example/%A0');
    expect(canonicalize('http://h.example/%f0')).toBe('http://h.example/%F0');
    // hex digits are 0-9, A-F, a-f: ':' (after '9') and 'g' (after 'f') are not
    expect(canonicalize('http://h.example/%:e')).toBe('http://h.example/%:e');
    expect(canonicalize('http://h.example/%ga')).toBe('http://h.example/%ga');
    // an escaped unreserved letter is decoded, Z included
    expect(canonicalize('http://h.example/%5A%41%7A%30%39')).toBe('http://h.example/ZAz09');
  });
});
