/**
 * The GitHub sources end to end against answers GitHub gives in the wild (on the loopback
 * stand-in, `test/fixtures/github-server.ts`): READMEs that are symbolic links or live in
 * `.github/` or `docs/`, a README over the API's inline size, compressed rate-limit refusals
 * counted in status, README revisits that cost 304s outside the primary limit, and a token GitHub
 * rejects under `collector run` (its worker type stops, said once; the others go on).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type FixtureReadme, type GithubFixture, startGithubFixture } from '../fixtures/github-server.js';
import { readStatus } from '../fixtures/ops.js';

const TOKEN = 'ghp_fixtureToken0123456789abcdef';
const fixtures: GithubFixture[] = [];
afterAll(async () => {
  for (const f of fixtures) await f.close();
});

async function fixture(o: Parameters<typeof startGithubFixture>[0]): Promise<GithubFixture> {
  const f = await startGithubFixture(o);
  fixtures.push(f);
  return f;
}

const utf8 = (s: string) => Buffer.from(s, 'utf8');

/** READMEs where naive collectors go wrong, and one repository without any. */
const WILD: Record<string, FixtureReadme | null> = {
  'ann/linked': {
    name: 'README.md',
    path: 'docs/README.md',
    bytes: utf8('# Ann\n\nThe real file.\n'),
    linkedAs: 'README.md',
  },
  'ben/dotgithub': { name: 'README.md', path: '.github/README.md', bytes: utf8('# Ben\n') },
  'cat/docs': { name: 'README.md', path: 'docs/README.md', bytes: utf8('# Cat\r\n') },
  'dan/plain': { name: 'README.rst', bytes: utf8('Dan\r\n===\r\n') },
  'big/one': { name: 'README.md', bytes: utf8(`# Big\n\n${'x'.repeat(300)}\n`) },
  'eve/none': null,
};
const TRENDING = { '': Object.keys(WILD).map((slug) => ({ slug, stars: 1 })) };

function trendingCrawl(gh: GithubFixture, out: string, extra: string[] = []): string[] {
  const bases = Object.entries(gh.bases).flatMap(([k, v]) => ['--source-option', `github.${k}=${v}`]);
  return [
    'crawl',
    '--source',
    'github-trending',
    ...bases,
    '--out',
    out,
    '--delay',
    '0',
    '--quiet',
    ...extra,
  ];
}

/** Each repository with a README: exactly one item with a file, its exact bytes; none for the others. */
function expectEachReadmeOnceExact(gh: GithubFixture, out: string): void {
  const readmes = readItems(out).filter((i) => i.label === 'readme');
  for (const [slug, want] of Object.entries(WILD)) {
    const mine = readmes.filter((i) => i.data.repo === slug);
    const stored = mine.filter((i) => i.file !== undefined);
    if (want === null) {
      expect(stored, slug).toEqual([]);
      expect(mine.at(-1)?.error?.kind, slug).toBe('not-found');
      continue;
    }
    expect(stored, `${slug}: README items with a file`).toHaveLength(1);
    const bytes = fs.readFileSync(path.join(out, stored[0].file));
    expect(bytes.equals(want.bytes), `${slug}: bytes differ`).toBe(true);
    expect(stored[0].sha256).toBe(createHash('sha256').update(want.bytes).digest('hex'));
    expect(stored[0].data.readme).toMatchObject({ name: want.name, path: want.path ?? want.name });
  }
  expect(gh.readme('ann/linked')).toBeDefined();
}

describe('READMEs in the wild (collector crawl --source github-trending)', () => {
  it('raw host: a symbolic link stores the file it points to; .github/ and docs/ READMEs are found; each once, exact', async () => {
    const gh = await fixture({ trending: TRENDING, readmes: () => WILD });
    const out = tempDir();
    const r = await runCli(trendingCrawl(gh, out, ['--processes', '1']));
    // Without a token (it says so once): READMEs from the raw host.
    expect(r.stderr).toBe('collector: warning: GITHUB_TOKEN is not set: worker type crawl runs without it\n');
    expect(r.code).toBe(0);
    expectEachReadmeOnceExact(gh, out);
    const link = readItems(out).find((i) => i.data?.symlink !== undefined);
    expect(link).toMatchObject({
      url: `${gh.bases.raw}/ann/linked/HEAD/README.md`,
      data: { repo: 'ann/linked', readme: null, symlink: { path: 'README.md', target: 'docs/README.md' } },
    });
    expect(link?.file).toBeUndefined();
    // Nothing stored holds a link's target path instead of a README.
    for (const i of readItems(out).filter((x) => x.file))
      expect(fs.readFileSync(path.join(out, i.file), 'utf8')).not.toBe('docs/README.md');
  });

  it('API: a README over the inline size comes from its download_url; compressed refusals wait and are counted in status', async () => {
    const gh = await fixture({
      trending: TRENDING,
      readmes: () => WILD,
      tokens: [TOKEN],
      inlineLimit: 100,
      compress: 'br',
      secondaryEvery: 3,
      secondaryRetryAfterS: 1,
    });
    const out = tempDir();
    const r = await runCli(trendingCrawl(gh, out, ['--processes', '1']), { GITHUB_TOKEN: TOKEN });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The API's answer for big/one had no content: not stored; the raw file is, exact.
    const pointer = readItems(out).find((i) => i.data?.tooLarge !== undefined);
    expect(pointer).toMatchObject({
      data: { repo: 'big/one', readme: null, tooLarge: { size: WILD['big/one']?.bytes.length } },
    });
    expect(pointer?.file).toBeUndefined();
    expectEachReadmeOnceExact(gh, out);
    // Refusals (403, Retry-After, a br-compressed body) waited and went again: none is an item.
    expect(gh.log.filter((e) => e.status === 403).length).toBeGreaterThan(0);
    expect(readItems(out).filter((i) => i.status === 403)).toEqual([]);
    expect(gh.violations).toEqual([]);
    const counters = readStatus(out)?.totals.counters;
    expect(counters.rateLimitRefusals['retry-after']).toBe(gh.log.filter((e) => e.status === 403).length);
    expect(counters.rateLimitWaitsByKind.secondary).toBeGreaterThan(0);
    const st = await runCli(['status', '--data', out, '--json']);
    const json = JSON.parse(st.stdout);
    expect(json.totals.rateLimitRefusals['retry-after']).toBeGreaterThan(0);
    expect(json.totals.rateLimitWaits).toBeGreaterThan(0);
    const text = await runCli(['status', '--data', out]);
    expect(text.stdout).toMatch(
      /^rate-limit waits: [1-9]\d* \(secondary \d+; .* in all\) · refused for rate limits: [1-9]/m,
    );
  });
});

/** A `collector run` config in `dir` with these worker entries (bases pointed at the fixture). */
function runConfig(gh: GithubFixture, dir: string, workers: Array<Record<string, unknown>>): string {
  const data = path.join(dir, 'data');
  const config = {
    data,
    workers: workers.map((w) => ({ github: { ...gh.bases, ...(w.github as object) }, delay: '0', ...w })),
  };
  for (const w of config.workers) w.github = { ...gh.bases, ...((w.github as object) ?? {}) };
  fs.writeFileSync(path.join(dir, 'collector.yaml'), YAML.stringify(config));
  return data;
}

describe('README revisits (collector run, revisit)', () => {
  it('a README asked again costs a 304 that GitHub does not count: rounds go on under a tight core limit', async () => {
    // 4 READMEs under a limit of 5 core requests a minute: a second round of full answers would be refused.
    const readmes: Record<string, FixtureReadme> = Object.fromEntries(
      ['a', 'b', 'c', 'd'].map((x) => [`${x}/r`, { name: 'README.md', bytes: utf8(`# ${x}\n`) }]),
    );
    const gh = await fixture({
      trending: { '': Object.keys(readmes).map((slug) => ({ slug, stars: 1 })) },
      readmes: () => readmes,
      tokens: [TOKEN],
      limits: { core: { limit: Object.keys(readmes).length + 1, windowMs: 60_000 } },
    });
    const dir = tempDir();
    const out = runConfig(gh, dir, [
      { name: 'trending', source: 'github-trending', processes: 1, interval: '1s', revisit: '1s' },
    ]);
    const child = startCli(['run', '--config', path.join(dir, 'collector.yaml'), '--quiet'], {
      GITHUB_TOKEN: TOKEN,
    });
    const exited = waitExit(child);
    const revisited = () => readItems(out).filter((i) => i.label === 'readme' && i.status === 304);
    await waitFor(() => revisited().length >= 2 * Object.keys(readmes).length, 60_000).catch((e) => {
      child.kill('SIGKILL');
      throw e;
    });
    child.kill('SIGTERM');
    const r = await exited;
    expect(r.code).toBe(0);
    const api = gh.log.filter((e) => e.service === 'api');
    // Each README: one full answer, then only 304s (sent with If-None-Match); none refused.
    expect(api.filter((e) => e.status === 200)).toHaveLength(Object.keys(readmes).length);
    expect(api.filter((e) => e.status === 304).length).toBeGreaterThanOrEqual(
      2 * Object.keys(readmes).length,
    );
    expect(api.filter((e) => e.status === 403)).toEqual([]);
    expect(gh.violations).toEqual([]);
    for (const i of revisited()) {
      expect(i.data.unchanged).toBe(true);
      expect(i.file).toBeUndefined();
    }
  });
});

describe('a token GitHub rejects (collector run)', () => {
  it('its worker type stops, said once, nothing of it restarted or sent again; another type goes on; exit 78', async () => {
    const gh = await fixture({ trending: TRENDING, readmes: () => WILD, tokens: [TOKEN] });
    const dir = tempDir();
    const out = runConfig(gh, dir, [
      { name: 'topics', source: 'github-search', processes: 2, topics: ['llm'], perPage: 5 },
      // Another type without the token (its own variable, unset): READMEs from the raw host.
      { name: 'trending', source: 'github-trending', processes: 1, github: { tokenEnv: 'NO_SUCH_TOKEN' } },
    ]);
    const r = await runCli(['run', '--config', path.join(dir, 'collector.yaml'), '--quiet'], {
      GITHUB_TOKEN: 'ghp_notTheRightToken000000000000000',
    });
    expect(r.code).toBe(78);
    const said = r.stderr.split('\n').filter((l) => l.includes('GitHub rejected the token'));
    expect(said).toEqual([
      'collector: worker type topics stopped: source github-search: GitHub rejected the token (Bad credentials): check GITHUB_TOKEN',
    ]);
    // One API request met the 401 (requests of a credential go one at a time); none after it.
    expect(gh.log.filter((e) => e.service === 'api')).toHaveLength(1);
    // The other type collected its READMEs.
    expectEachReadmeOnceExact(gh, out);
    const status = readStatus(out);
    const topics = status?.workers.filter((w: { type: string }) => w.type === 'topics');
    expect(topics.map((w: { state: string }) => w.state)).toEqual(['done', 'done']);
    expect(
      topics.some((w: { lastError?: string }) => /GitHub rejected the token/.test(w.lastError ?? '')),
    ).toBe(true);
    expect(topics.every((w: { restarts: number }) => w.restarts === 0)).toBe(true);
  });
});
