import { describe, expect, it } from 'vitest';
import { ReplayFilter } from '../../src/frontier/replay-filter.js';
import { ownerOf } from '../../src/url/ownership.js';
import { Scope } from '../../src/url/scope.js';

describe('ReplayFilter', () => {
  const scope = new Scope({
    mode: 'prefix',
    seeds: ['http://a.example/docs/'],
    include: [],
    exclude: [],
    maxUrlLength: 2048,
    maxPathRepeat: 3,
    maxQueryVariants: 1000,
  });

  it('keeps well-formed lines and counts each kind of damage once', () => {
    const f = new ReplayFilter({ scope: (u) => scope.check(u) });
    const lines = [
      '0\thttp://a.example/docs/',
      '0\tnot a url',
      '1\thttp://b.example/elsewhere', // out of scope
      'x\thttp://a.example/docs/x', // depth not a number
      '-1\thttp://a.example/docs/y',
      '1.5\thttp://a.example/docs/y',
      '\thttp://a.example/docs/y',
      'no tab at all',
      '2\tHTTP://A.example/docs/../docs/z', // not canonical
      '3\thttp://a.example/docs/deep',
    ];
    const kept = lines.map((l) => f.entry(l)).filter((e) => e !== null);
    expect(kept).toEqual([
      { url: 'http://a.example/docs/', depth: 0 },
      { url: 'http://a.example/docs/deep', depth: 3 },
    ]);
    expect(Object.fromEntries(f.rejected)).toEqual({
      'not a URL': 2,
      'out-of-scope': 1,
      'bad depth': 4,
      malformed: 1,
    });
    expect(f.total).toBe(8);
    expect(f.describe('state/crawl-0/frontier.log')).toBe(
      'state/crawl-0/frontier.log: 8 invalid lines skipped (not a URL 2, out-of-scope 1, bad depth 4, malformed 1)',
    );
  });

  it('rejects a URL owned by another worker', () => {
    const urls = Array.from({ length: 20 }, (_, i) => `http://a.example/docs/${i}`);
    const f = new ReplayFilter({ owner: (u) => ownerOf(u, 2, 'url'), self: 1 });
    const kept = urls.filter((u) => f.entry(`1\t${u}`) !== null);
    expect(kept).toEqual(urls.filter((u) => ownerOf(u, 2, 'url') === 1));
    expect(f.rejected.get('not owned')).toBe(urls.length - kept.length);
    // a handoff log is checked against the owner it was written for
    expect(urls.filter((u) => f.entry(`1\t${u}`, 0) !== null)).toEqual(
      urls.filter((u) => ownerOf(u, 2, 'url') === 0),
    );
  });

  it('says nothing when nothing was rejected', () => {
    expect(new ReplayFilter().describe('x')).toBeNull();
  });

  it('checks the metadata of a request line field by field: damaged metadata skips the line', () => {
    const f = new ReplayFilter({ scope: (u) => scope.check(u) });
    const url = 'http://a.example/docs/api';
    const good = { label: 'l', headers: { accept: 'application/json' }, priority: -1, userData: [1] };
    const lines = [
      `1\t${url}\t${JSON.stringify(good)}`,
      `1\t${url}\t{"label":`, // torn JSON
      `1\t${url}\t[]`,
      `1\t${url}\t{}`,
      `1\t${url}\t{"colour":"red"}`,
      `1\t${url}\t{"label":5}`,
      `1\t${url}\t{"store":true}`,
      `1\t${url}\t{"priority":1.5}`,
      // Credentials never come from state, whoever wrote them there.
      `1\t${url}\t{"headers":{"authorization":"Bearer x"}}`,
      `1\t${url}\t{"headers":{"Accept":"x"}}`,
    ];
    const kept = lines.map((l) => f.entry(l)).filter((e) => e !== null);
    expect(kept).toEqual([{ url, depth: 1, meta: good }]);
    expect(Object.fromEntries(f.rejected)).toEqual({ 'bad metadata': 9 });
    expect(f.describe('state/w/frontier.log')).toBe(
      'state/w/frontier.log: 9 invalid lines skipped (bad metadata 9)',
    );
  });
});
