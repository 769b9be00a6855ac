import { describe, expect, it } from 'vitest';
import { HashSet32 } from '../../src/url/hash-set32.js';
import {
  parseScopeMode,
  REQUISITE_LABEL,
  SCOPE_DEFAULTS,
  Scope,
  type ScopeOptions,
} from '../../src/url/scope.js';

function scope(opts: Partial<ScopeOptions> & Pick<ScopeOptions, 'mode' | 'seeds'>): Scope {
  return new Scope({ include: [], exclude: [], ...SCOPE_DEFAULTS, ...opts });
}

describe('parseScopeMode', () => {
  it('accepts the four modes, case-insensitively', () => {
    expect(parseScopeMode('prefix')).toBe('prefix');
    expect(parseScopeMode('host')).toBe('host');
    expect(parseScopeMode(' Domain ')).toBe('domain');
    expect(parseScopeMode('ANY')).toBe('any');
  });

  it('throws a clear error otherwise', () => {
    expect(() => parseScopeMode('x')).toThrow('--scope: expected prefix|host|domain|any, got "x"');
    expect(() => parseScopeMode('')).toThrow(Error);
  });
});

describe('SCOPE_DEFAULTS', () => {
  it('has the documented values', () => {
    expect(SCOPE_DEFAULTS).toEqual({ maxUrlLength: 2048, maxPathRepeat: 3, maxQueryVariants: 1000 });
  });
});

describe('Scope modes', () => {
  it('prefix: the seed directory, like wget -np', () => {
    const s = scope({ mode: 'prefix', seeds: ['http://h.example/pg/index.html'] });
    expect(s.check('http://h.example/pg/')).toBe('ok');
    expect(s.check('http://h.example/pg/index.html')).toBe('ok');
    expect(s.check('http://h.example/pg/sub/x.html?y=1')).toBe('ok');
    expect(s.check('http://h.example/pg')).toBe('out-of-scope');
    expect(s.check('http://h.example/pgx/')).toBe('out-of-scope');
    expect(s.check('http://h.example/')).toBe('out-of-scope');
    expect(s.check('http://other.example/pg/')).toBe('out-of-scope');
    expect(s.check('http://h.example:8080/pg/')).toBe('out-of-scope');
  });

  it('prefix: treats http and https alike', () => {
    const s = scope({ mode: 'prefix', seeds: ['http://h.example/docs/'] });
    expect(s.check('https://h.example/docs/a')).toBe('ok');
  });

  it('prefix: a seed without trailing slash allows its parent directory; query is ignored', () => {
    expect(scope({ mode: 'prefix', seeds: ['http://h.example/pg'] }).check('http://h.example/other')).toBe(
      'ok',
    );
    const s = scope({ mode: 'prefix', seeds: ['http://h.example/a/b?x=/c/'] });
    expect(s.check('http://h.example/a/z')).toBe('ok');
    expect(s.check('http://h.example/z')).toBe('out-of-scope');
  });

  it('prefix: several seeds, including on the same host', () => {
    const s = scope({
      mode: 'prefix',
      seeds: ['http://h.example/a/b/', 'http://h.example/c/', 'http://g.example/'],
    });
    expect(s.check('http://h.example/a/b/1')).toBe('ok');
    expect(s.check('http://h.example/a/1')).toBe('out-of-scope');
    expect(s.check('http://h.example/c/1')).toBe('ok');
    expect(s.check('http://g.example/anything')).toBe('ok');
    s.addSeed('http://h.example/a/');
    expect(s.check('http://h.example/a/1')).toBe('ok');
    expect(s.check('http://h.example/a/b/1')).toBe('ok');
  });

  it('host: same host and port as a seed, either scheme', () => {
    const s = scope({ mode: 'host', seeds: ['https://h.example/deep/page'] });
    expect(s.check('https://h.example/')).toBe('ok');
    expect(s.check('http://h.example/other')).toBe('ok');
    expect(s.check('http://sub.h.example/')).toBe('out-of-scope');
    expect(s.check('https://h.example:8443/')).toBe('out-of-scope');
    const p = scope({ mode: 'host', seeds: ['http://h.example:8080/'] });
    expect(p.check('http://h.example:8080/x')).toBe('ok');
    expect(p.check('http://h.example/x')).toBe('out-of-scope');
  });

  it('domain: same registrable domain, with multi-part public suffixes', () => {
    const s = scope({ mode: 'domain', seeds: ['http://a.example.co.uk/'] });
    expect(s.check('http://b.example.co.uk/x')).toBe('ok');
    expect(s.check('https://example.co.uk/')).toBe('ok');
    expect(s.check('http://deep.b.example.co.uk:8080/')).toBe('ok');
    expect(s.check('http://other.co.uk/')).toBe('out-of-scope');
    expect(s.check('http://example.com/')).toBe('out-of-scope');
  });

  it('domain: private suffixes separate sites (github.io)', () => {
    const s = scope({ mode: 'domain', seeds: ['https://alice.github.io/blog/'] });
    expect(s.check('https://www.alice.github.io/')).toBe('ok');
    expect(s.check('https://bob.github.io/')).toBe('out-of-scope');
  });

  it('domain: IPs and localhost compare by exact hostname', () => {
    const s = scope({ mode: 'domain', seeds: ['http://127.0.0.1:8080/', 'http://localhost/'] });
    expect(s.check('http://127.0.0.1:9090/x')).toBe('ok');
    expect(s.check('http://127.0.0.2/')).toBe('out-of-scope');
    expect(s.check('http://localhost:3000/')).toBe('ok');
    expect(s.check('http://a.localhost/')).toBe('out-of-scope');
    const v6 = scope({ mode: 'domain', seeds: ['http://[::1]:8080/'] });
    expect(v6.check('http://[::1]/')).toBe('ok');
    expect(v6.check('http://[::2]/')).toBe('out-of-scope');
  });

  it('any: everything in scope', () => {
    const s = scope({ mode: 'any', seeds: [] });
    expect(s.check('http://anything.example/')).toBe('ok');
  });

  it('addSeed widens the scope and rejects non-http seeds', () => {
    const s = scope({ mode: 'host', seeds: [] });
    expect(s.check('http://h.example/')).toBe('out-of-scope');
    s.addSeed('http://h.example/x');
    expect(s.check('http://h.example/')).toBe('ok');
    expect(() => s.addSeed('mailto:a@b')).toThrow(/not an http/);
  });
});

describe('Scope include/exclude', () => {
  it('requires an include match when includes are given', () => {
    const s = scope({ mode: 'any', seeds: [], include: [/\/docs\//, /\/blog\//] });
    expect(s.check('http://h.example/docs/a')).toBe('ok');
    expect(s.check('http://h.example/blog/a')).toBe('ok');
    expect(s.check('http://h.example/shop/a')).toBe('excluded');
  });

  it('excludes matches, even when included', () => {
    const s = scope({ mode: 'any', seeds: [], include: [/\/docs\//], exclude: [/\.pdf$/, /[?&]print=/] });
    expect(s.check('http://h.example/docs/a.pdf')).toBe('excluded');
    expect(s.check('http://h.example/docs/a?print=1')).toBe('excluded');
    expect(s.check('http://h.example/docs/a.html')).toBe('ok');
  });

  it('is not fooled by global regexes keeping lastIndex', () => {
    const s = scope({ mode: 'any', seeds: [], exclude: [/private/g] });
    for (let i = 0; i < 4; i++) expect(s.check('http://h.example/private')).toBe('excluded');
  });

  it("a page requisite is in scope on a seed's site in every mode; --include does not apply to it, --exclude does", () => {
    // docs/config.md, --page-requisites: the label a source gives such a request
    expect(REQUISITE_LABEL).toBe('requisite');
    for (const mode of ['prefix', 'host', 'domain'] as const) {
      const s = scope({
        mode,
        seeds: ['http://www.h.example/docs/'],
        include: [/\/docs\//],
        exclude: [/\.exe$/],
      });
      expect(s.check('http://cdn.h.example/img/logo.png', true), mode).toBe('ok');
      expect(s.check('http://www.h.example/style.css', true), mode).toBe('ok');
      expect(s.check('http://cdn.h.example/img/logo.png'), mode).toBe(
        mode === 'domain' ? 'excluded' : 'out-of-scope',
      );
      expect(s.check('http://other.example/img/logo.png', true), mode).toBe('out-of-scope');
      expect(s.check('http://www.h.example/setup.exe', true), mode).toBe('excluded');
    }
    const any = scope({ mode: 'any', seeds: ['http://www.h.example/'] });
    expect(any.check('http://other.example/a.png', true)).toBe('ok');
  });

  it("a seed added after the first requisite check widens the requisites' site too", () => {
    // The seeds' sites are computed on the first requisite checked; later seeds join them.
    const s = scope({ mode: 'prefix', seeds: ['http://www.h.example/docs/'] });
    expect(s.check('http://cdn.h.example/a.png', true)).toBe('ok');
    expect(s.check('http://cdn.other.example/a.png', true)).toBe('out-of-scope');
    s.addSeed('http://www.other.example/');
    expect(s.check('http://cdn.other.example/a.png', true)).toBe('ok');
    expect(s.check('http://cdn.third.example/a.png', true)).toBe('out-of-scope');
  });

  it('checks scope before include/exclude', () => {
    const s = scope({ mode: 'host', seeds: ['http://h.example/'], exclude: [/x/] });
    expect(s.check('http://other.example/x')).toBe('out-of-scope');
  });
});

describe('Scope traps', () => {
  it('trap-length: longer than maxUrlLength, checked first', () => {
    const s = scope({ mode: 'host', seeds: ['http://h.example/'], maxUrlLength: 40 });
    const ok = 'http://h.example/'.padEnd(40, 'a');
    expect(s.check(ok)).toBe('ok');
    expect(s.check(`${ok}a`)).toBe('trap-length');
    expect(s.check('http://other.example/'.padEnd(41, 'a'))).toBe('trap-length');
    expect(
      scope({ mode: 'any', seeds: [], maxUrlLength: 0 }).check(`http://h.example/${'a'.repeat(5000)}`),
    ).toBe('ok');
  });

  it('trap-repeat: a segment sequence repeated more than maxPathRepeat times', () => {
    const s = scope({ mode: 'any', seeds: [] });
    expect(s.check('http://h.example/a/b/a/b/a/b/')).toBe('ok');
    expect(s.check('http://h.example/a/b/a/b/a/b/a/b/')).toBe('trap-repeat');
    expect(s.check('http://h.example/x/a/a/a/y')).toBe('ok');
    expect(s.check('http://h.example/x/a/a/a/a/y')).toBe('trap-repeat');
    expect(s.check('http://h.example/p/a/b/c/a/b/c/a/b/c/a/b/c')).toBe('trap-repeat');
    expect(s.check('http://h.example/a/x/a/y/a/z/a/w')).toBe('ok');
    expect(s.check('http://h.example/2024/01/01/01/post')).toBe('ok');
    // Only the path counts, not the query.
    expect(s.check('http://h.example/x?a/a/a/a/a')).toBe('ok');
  });

  it('trap-repeat honours a custom limit and 0 = unlimited', () => {
    expect(scope({ mode: 'any', seeds: [], maxPathRepeat: 1 }).check('http://h.example/a/a')).toBe(
      'trap-repeat',
    );
    expect(scope({ mode: 'any', seeds: [], maxPathRepeat: 0 }).check('http://h.example/a/a/a/a/a/a')).toBe(
      'ok',
    );
  });

  it('trap-query: at most maxQueryVariants distinct queries per path', () => {
    const s = scope({ mode: 'any', seeds: [], maxQueryVariants: 3 });
    expect(s.check('http://h.example/cal?d=1')).toBe('ok');
    expect(s.check('http://h.example/cal?d=2')).toBe('ok');
    expect(s.check('http://h.example/cal?d=3')).toBe('ok');
    expect(s.check('http://h.example/cal?d=4')).toBe('trap-query');
    // Already-counted variants and the bare path stay ok; other paths have their own budget.
    expect(s.check('http://h.example/cal?d=2')).toBe('ok');
    expect(s.check('http://h.example/cal')).toBe('ok');
    expect(s.check('http://h.example/other?d=4')).toBe('ok');
    expect(s.check('http://g.example/cal?d=4')).toBe('ok');
    // http and https share the budget.
    expect(s.check('https://h.example/cal?d=5')).toBe('trap-query');
  });

  it('trap-query counts only URLs that passed the earlier checks', () => {
    const s = scope({ mode: 'host', seeds: ['http://h.example/'], exclude: [/skip/], maxQueryVariants: 2 });
    expect(s.check('http://h.example/p?skip=1')).toBe('excluded');
    expect(s.check('http://h.example/p?skip=2')).toBe('excluded');
    expect(s.check('http://h.example/p?a=1')).toBe('ok');
    expect(s.check('http://h.example/p?a=2')).toBe('ok');
    expect(s.check('http://h.example/p?a=3')).toBe('trap-query');
  });

  it('trap-query handles a limit of 1, large limits, and 0 = unlimited', () => {
    const one = scope({ mode: 'any', seeds: [], maxQueryVariants: 1 });
    expect(one.check('http://h.example/p?a')).toBe('ok');
    expect(one.check('http://h.example/p?b')).toBe('trap-query');
    const big = scope({ mode: 'any', seeds: [] });
    for (let i = 0; i < 1000; i++) expect(big.check(`http://h.example/list?page=${i}`)).toBe('ok');
    expect(big.check('http://h.example/list?page=1000')).toBe('trap-query');
    expect(big.check('http://h.example/list?page=999')).toBe('ok');
    const unlimited = scope({ mode: 'any', seeds: [], maxQueryVariants: 0 });
    for (let i = 0; i < 3000; i++) expect(unlimited.check(`http://h.example/list?page=${i}`)).toBe('ok');
  });

  it('runs the checks in order: length, scope, include/exclude, repeat, query', () => {
    const s = scope({
      mode: 'host',
      seeds: ['http://h.example/'],
      exclude: [/nope/],
      maxUrlLength: 60,
      maxQueryVariants: 1,
    });
    expect(s.check('http://other.example/a/a/a/a/nope')).toBe('out-of-scope');
    expect(s.check('http://h.example/a/a/a/a/nope')).toBe('excluded');
    expect(s.check(`http://other.example/${'a/'.repeat(30)}nope`)).toBe('trap-length');
    expect(s.check('http://h.example/a/a/a/a?x=1')).toBe('trap-repeat');
    expect(s.check('http://h.example/q?x=1')).toBe('ok');
    expect(s.check('http://h.example/q?x=2')).toBe('trap-query');
  });
});

describe('HashSet32 (the query-variant set)', () => {
  it('adds and finds members, 0 standing for 1, and tells new from known', () => {
    const set = new HashSet32();
    expect(set.has(0)).toBe(false);
    expect(set.has(1)).toBe(false);
    expect(set.add(5)).toBe(true);
    expect(set.add(5)).toBe(false);
    expect(set.size).toBe(1);
    expect(set.add(0)).toBe(true);
    expect(set.has(1)).toBe(true);
    expect(set.add(1)).toBe(false);
    expect(set.size).toBe(2);
  });

  it('finds colliding members (same low bits) and keeps them through growth', () => {
    const set = new HashSet32();
    // multiples of 1024 plus 3 collide in every table up to 1024 slots
    const members = Array.from({ length: 600 }, (_, i) => i * 1024 + 3);
    for (const m of members) expect(set.add(m)).toBe(true);
    expect(set.size).toBe(600);
    for (const m of members) expect(set.has(m)).toBe(true);
    for (const m of members) expect(set.add(m)).toBe(false);
    for (let i = 0; i < 600; i++) expect(set.has(i * 1024 + 4)).toBe(false);
    expect(set.has(0xffffffff)).toBe(false);
  });
});

describe('Scope: edge cases (mutation testing)', () => {
  it('prefix: a seed whose query holds a slash keeps the directory of its path', () => {
    const s = scope({ mode: 'prefix', seeds: ['http://h.example/dir/page?/x'] });
    expect(s.check('http://h.example/dir/other.html')).toBe('ok');
    expect(s.check('http://h.example/elsewhere.html')).toBe('out-of-scope');
  });

  it('prefix: a seed is covered only by a prefix it starts with, and only covered prefixes are dropped', () => {
    const s = scope({ mode: 'prefix', seeds: ['http://h.example/a/', 'http://h.example/b/a/'] });
    expect(s.check('http://h.example/b/a/x')).toBe('ok');
    expect(s.check('http://h.example/b/x')).toBe('out-of-scope');
    const t = scope({ mode: 'prefix', seeds: ['http://h.example/x/a/', 'http://h.example/a/'] });
    expect(t.check('http://h.example/x/a/y')).toBe('ok');
    expect(t.check('http://h.example/a/y')).toBe('ok');
    expect(t.check('http://h.example/x/y')).toBe('out-of-scope');
  });

  it('any: seeds change nothing', () => {
    const s = scope({ mode: 'any', seeds: ['http://a.example/x/'] });
    expect(s.check('http://b.example/')).toBe('ok');
  });

  it('trap-repeat looks at the path only, never the host', () => {
    const s = scope({ mode: 'any', seeds: [], maxPathRepeat: 2 });
    // the host "xx" ends in x: counted as a segment, x would repeat 3 times
    expect(s.check('http://xx/x/x/y')).toBe('ok');
    expect(s.check('http://x/x/x/y')).toBe('ok');
  });

  it('trap-repeat counts repeats back to back only', () => {
    const s = scope({ mode: 'any', seeds: [], maxPathRepeat: 2 });
    expect(s.check('http://h.example/a/a/b/b/')).toBe('ok');
    expect(s.check('http://h.example/a/a/a/b/')).toBe('trap-repeat');
  });

  it('trap-repeat: empty segments repeat too (the pre-check counts slashes, not letters)', () => {
    const s = scope({ mode: 'any', seeds: [], maxPathRepeat: 3 });
    expect(s.check('http://h.example//////')).toBe('trap-repeat');
  });

  it('trap-query: with a limit of 1, the one query seen is still ok when checked again', () => {
    const s = scope({ mode: 'any', seeds: [], maxQueryVariants: 1 });
    expect(s.check('http://h.example/p?a=1')).toBe('ok');
    expect(s.check('http://h.example/p?a=1')).toBe('ok');
    expect(s.check('http://h.example/p?a=2')).toBe('trap-query');
  });

  it('trap-query forgets the oldest path once 65,536 paths are tracked, not before', () => {
    const s = scope({ mode: 'any', seeds: [], maxQueryVariants: 1 });
    expect(s.check('http://h.example/first?a=1')).toBe('ok');
    expect(s.check('http://h.example/first?a=2')).toBe('trap-query');
    let refused = 0; // (one expect at the end: 65,535 of them take seconds under mutation testing)
    for (let i = 1; i < 65_536; i++) if (s.check(`http://h.example/p${i}?a=1`) !== 'ok') refused++;
    expect(refused).toBe(0);
    // 65,536 paths tracked: the first is still full
    expect(s.check('http://h.example/first?a=2')).toBe('trap-query');
    // one more path: the first is forgotten, and counts afresh
    expect(s.check('http://h.example/one-more?a=1')).toBe('ok');
    expect(s.check('http://h.example/first?a=2')).toBe('ok');
  });
});
