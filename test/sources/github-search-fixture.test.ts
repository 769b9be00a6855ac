/**
 * The `github-search` source against the GitHub fixture's real answers, driven request by request
 * (seeds, fetch, handle, follow; a seen-set of URLs as the engine keeps one) without the engine's
 * rate-budget spacing, which would make a search of 30 pages take a minute: date windows that
 * reach past the 1,000-result cap, `Link` URLs spelt another way and leading back, and answers
 * marked `incomplete_results`.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { GithubSearchOptionsSchema } from '../../src/config/github-options.js';
import { ResponsePage } from '../../src/sources/page.js';
import { builtinSource } from '../../src/sources/registry.js';
import type { RequestSpec, SourceContext, SourceDefinition } from '../../src/sources/source.js';
import { canonicalize } from '../../src/url/canonicalize.js';
import { type GithubFixture, startGithubFixture } from '../fixtures/github-server.js';

const search = builtinSource('github-search') as SourceDefinition;
let gh: GithubFixture | null = null;
afterEach(async () => {
  await gh?.close();
  gh = null;
});

interface Drive {
  /** Items of the search pages: URL and data. */
  pages: Array<{ url: string; data: Record<string, unknown> }>;
  /** Repositories whose README was asked for (lowercase `owner/repo`). */
  readmes: string[];
  warnings: string[];
}

/** One round of the source on the fixture: search pages fetched, README requests only noted. */
async function drive(fixture: GithubFixture, options: Record<string, unknown>): Promise<Drive> {
  const warnings: string[] = [];
  const ctx: SourceContext = {
    options: GithubSearchOptionsSchema.parse({ github: fixture.bases, ...options }) as Record<
      string,
      unknown
    >,
    seeds: [],
    log: { info: () => {}, warn: (m) => warnings.push(m), error: () => {} },
    worker: { id: 'w-0', index: 0, count: 1 },
  };
  const queue = [...(((await search.seeds?.(ctx)) ?? []) as RequestSpec[])];
  const seen = new Set<string>();
  const out: Drive = { pages: [], readmes: [], warnings };
  while (queue.length > 0) {
    const spec = queue.shift() as RequestSpec;
    const url = canonicalize(spec.url) as string;
    if (seen.has(url)) continue;
    seen.add(url);
    if (spec.label === 'readme') {
      out.readmes.push((spec.userData as { repo: string }).repo.toLowerCase());
      continue;
    }
    const r = await request(url, { headers: { 'user-agent': 'collector-test', ...spec.headers } });
    const body = Buffer.from(await r.body.arrayBuffer());
    expect(r.statusCode, url).toBe(200);
    const page = new ResponsePage({
      url,
      finalUrl: url,
      status: r.statusCode,
      contentType: null,
      headers: r.headers as Record<string, string>,
      body,
      depth: 0,
      label: spec.label,
      userData: spec.userData,
    });
    const result = await search.handle(page, ctx);
    out.pages.push({ url, data: result?.data ?? {} });
    queue.push(...((result?.follow ?? []) as RequestSpec[]));
  }
  return out;
}

const searches = (f: GithubFixture) => f.log.filter((e) => e.path.includes('/search/'));

describe('github-search on the fixture: past the 1,000-result cap', () => {
  it('sliceBy: created halves date windows until each matches ≤ 1,000, and every repository is listed once', async () => {
    gh = await startGithubFixture({ search: { 'topic:big': 2600 } });
    const d = await drive(gh, { topics: ['big'], perPage: 100, sliceBy: 'created', sliceFrom: '2011-01-01' });
    const want = Array.from({ length: 2600 }, (_, i) => gh!.searchRepo('topic:big', i + 1).toLowerCase());
    expect(new Set(d.readmes).size).toBe(d.readmes.length);
    expect([...d.readmes].sort()).toEqual([...want].sort());
    // Split windows list nothing themselves; the windows that fit each match at most 1,000.
    const split = d.pages.filter((p) => p.data.split !== undefined);
    expect(split.length).toBeGreaterThan(0);
    for (const p of split) expect(p.data.totalCount as number).toBeGreaterThan(1000);
    const listed = d.pages.filter((p) => p.data.split === undefined && p.data.page === 1);
    for (const p of listed) {
      expect(p.data.totalCount as number).toBeLessThanOrEqual(1000);
      expect(p.data.window).toMatch(/^created:\d{4}-\d\d-\d\d\.\.\d{4}-\d\d-\d\d$/);
    }
    // Windows tile the range: no day twice, none left out.
    const ranges = listed.map((p) => (p.data.window as string).slice(8).split('..')).sort();
    expect(ranges[0][0]).toBe('2011-01-01');
    for (let i = 1; i < ranges.length; i++) {
      const after = new Date(Date.parse(`${ranges[i - 1][1]}T00:00:00Z`) + 86_400_000)
        .toISOString()
        .slice(0, 10);
      expect(ranges[i][0]).toBe(after);
    }
    expect(ranges.at(-1)?.[1]).toBe(new Date().toISOString().slice(0, 10));
    expect(d.warnings).toEqual([]);
    // Without slicing, the same topic stops at the cap.
    const plain = await drive(gh, { topics: ['big'], perPage: 100, searchPages: 20 });
    expect(plain.readmes).toHaveLength(1000);
  });

  it('pushed works the same way; a repository listed by two windows would still be asked for once', async () => {
    gh = await startGithubFixture({ search: { 'topic:big': 1500 } });
    const d = await drive(gh, { topics: ['big'], perPage: 100, sliceBy: 'pushed', sliceFrom: '2011-01-01' });
    expect(new Set(d.readmes).size).toBe(1500);
    expect(d.pages.some((p) => String(p.data.window).startsWith('pushed:'))).toBe(true);
  });
});

describe('github-search on the fixture: Link URLs spelt another way', () => {
  it('each page once: a rel="next" in another parameter order is followed in the canonical form; one back to page 1 is not', async () => {
    gh = await startGithubFixture({ search: { 'topic:x': 250 }, quirkyLinks: true });
    const d = await drive(gh, { topics: ['x'], perPage: 100, searchPages: 10 });
    const paths = searches(gh).map((e) => new URL(e.path, 'http://x').searchParams.get('page') ?? '1');
    expect(paths).toEqual(['1', '2', '3']);
    // Followed in the form a round's first page is written in, whatever order the link had.
    expect(searches(gh)[1].path).toMatch(/\?q=topic%3Ax&sort=stars&order=desc&per_page=100&page=2$/);
    expect(d.readmes).toHaveLength(250);
    expect(d.pages.at(-1)?.data.nextSkipped).toBe('page 1 again');
  });
});

describe('github-search on the fixture: incomplete_results', () => {
  it('a page marked incomplete is asked again, and the results missing from the first answer are reached', async () => {
    const q = 'topic:x';
    gh = await startGithubFixture({ search: { [q]: 40 }, incomplete: { [q]: 1 } });
    const d = await drive(gh, { topics: ['x'], perPage: 40 });
    expect(searches(gh)).toHaveLength(2);
    expect(d.pages[0].data).toMatchObject({ incomplete: true, askedAgain: true, results: 20 });
    expect(d.pages[1].data).toMatchObject({ attempt: 2, results: 40 });
    expect(d.pages[1].data.incomplete).toBeUndefined();
    expect(new Set(d.readmes).size).toBe(40);
    expect(d.warnings).toEqual([]);
  });

  it('still incomplete after incompleteRetries: what came is kept, flagged, and a warning says so', async () => {
    const q = 'topic:x';
    gh = await startGithubFixture({ search: { [q]: 40 }, incomplete: { [q]: 10 } });
    const d = await drive(gh, { topics: ['x'], perPage: 40, incompleteRetries: 2 });
    expect(searches(gh)).toHaveLength(3);
    expect(d.pages.at(-1)?.data).toMatchObject({ incomplete: true, attempt: 3 });
    expect(d.pages.at(-1)?.data.askedAgain).toBeUndefined();
    expect(d.readmes).toHaveLength(20);
    expect(d.warnings).toHaveLength(1);
    expect(d.warnings[0]).toMatch(/search results incomplete after 3 askings .*topic:x page 1/);
  });
});
