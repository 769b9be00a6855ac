/**
 * The built-in GitHub sources end to end, against the loopback stand-in for github.com
 * (`test/fixtures/github-server.ts`), never the real one: `collector run --config
 * examples/github.yaml` with its bases pointed at the fixture (two of its topics), with a token and tight limits
 * (6 searches per 3 s, 40 core requests per 5 s, a secondary limit with Retry-After 1 s on every
 * 5th API request), 4 worker processes sharing the token's budget through the supervisor; three
 * rounds, SIGTERM, a restart that collects nothing twice. And `collector crawl --source` on a
 * trending page whose layout changed.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type GithubFixture, startGithubFixture } from '../fixtures/github-server.js';
import { readStatus } from '../fixtures/ops.js';

const EXAMPLE = path.resolve(import.meta.dirname, '../../examples/github.yaml');
const TOKEN = 'ghp_fixtureToken0123456789abcdef';
const fixtures: GithubFixture[] = [];

afterAll(async () => {
  for (const f of fixtures) await f.close();
});

async function fixture(o: Parameters<typeof startGithubFixture>[0] = {}): Promise<GithubFixture> {
  const f = await startGithubFixture(o);
  fixtures.push(f);
  return f;
}

/** `crawl --source github-search` of topic `llm` against the fixture's bases, into `out`, no delay. */
function searchCrawl(gh: GithubFixture, out: string): string[] {
  const bases = Object.entries(gh.bases).flatMap(([k, v]) => ['--source-option', `github.${k}=${v}`]);
  return [
    'crawl',
    '--source',
    'github-search',
    ...bases,
    '--source-option',
    'topics=[llm]',
    '--out',
    out,
    '--delay',
    '0',
  ];
}

/** examples/github.yaml with its bases pointed at the fixture, two topics, smaller pages, 1 s rounds. */
function configFor(gh: GithubFixture, dir: string): string {
  const config = YAML.parse(fs.readFileSync(EXAMPLE, 'utf8'));
  config.data = path.join(dir, 'data');
  for (const w of config.workers) {
    w.github = { ...gh.bases };
    w.interval = '1s';
    w.delay = '0';
    if (w.source === 'github-search') {
      // Two of the example's three topics: an authenticated search goes every 2 s at most (the
      // documented 30 a minute, spread), so each topic adds 2 s × pages to every round.
      w.topics = w.topics.slice(0, 2);
      w.perPage = 5;
      w.searchPages = 2;
    }
  }
  const file = path.join(dir, 'github.yaml');
  fs.writeFileSync(file, YAML.stringify(config));
  return config.data;
}

/** Every file under `dir` as bytes: the token must be in none (items, files, state, logs, status). */
function expectNowhere(dir: string, secret: string): void {
  for (const f of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!f.isFile()) continue;
    const p = path.join(f.parentPath, f.name);
    expect(fs.readFileSync(p, 'latin1').includes(secret), p).toBe(false);
  }
}

/** Items of one source with one label. */
const itemsOf = (out: string, source: string, label: string) =>
  readItems(out).filter((i) => i.source === source && i.label === label);

/** Round items of the listings: each listing URL gets one item per round. */
function roundsDone(out: string): number {
  const listings = readItems(out).filter((i) => i.label === 'trending' || i.label === 'search');
  const perUrl = new Map<string, number>();
  for (const i of listings) perUrl.set(i.url, (perUrl.get(i.url) ?? 0) + 1);
  // The first-page URLs (3 trending pages and the 2 topics' page-1 searches) go every round.
  const firsts = [...perUrl.entries()].filter(([u]) => !/[?&]page=/.test(u));
  return firsts.length < 5 ? 0 : Math.min(...firsts.map(([, n]) => n));
}

/** The repositories the run was shown: trending lists and the search pages it fetched. */
function listedRepos(gh: GithubFixture, out: string): Set<string> {
  const repos = new Set<string>();
  for (const l of ['', 'python', 'rust']) for (const r of gh.trendingRepos(l)) repos.add(r.toLowerCase());
  for (const s of itemsOf(out, 'github-search', 'search')) {
    const url = new URL(s.url);
    const per = Number(url.searchParams.get('per_page'));
    const page = Number(url.searchParams.get('page') ?? 1);
    for (let k = 0; k < s.data.results; k++)
      repos.add(gh.searchRepo(url.searchParams.get('q') as string, (page - 1) * per + k + 1).toLowerCase());
  }
  return repos;
}

/** Each README once per source, exact bytes, its own extension; a repository without one: one not-found item. */
function expectReadmesOnce(gh: GithubFixture, out: string): void {
  for (const source of ['github-trending', 'github-search']) {
    const readmes = itemsOf(out, source, 'readme');
    const repos = readmes.map((i) => i.data.repo.toLowerCase());
    expect(new Set(repos).size, `${source}: a README item twice`).toBe(repos.length);
    for (const i of readmes) {
      const want = gh.readme(i.data.repo);
      if (want === null) {
        expect(i.status).toBe(404);
        expect(i.error.kind).toBe('not-found');
        expect(i.file).toBeUndefined();
        continue;
      }
      expect(want, i.data.repo).toBeDefined();
      expect(i.error, i.data.repo).toBeUndefined();
      const bytes = fs.readFileSync(path.join(out, i.file));
      expect(bytes.equals(want!.bytes), `${i.data.repo}: bytes differ`).toBe(true);
      expect(i.sha256).toBe(createHash('sha256').update(want!.bytes).digest('hex'));
      expect(i.data.readme.name).toBe(want!.name);
      const ext = path.extname(want!.name);
      if (ext) expect(i.file.endsWith(ext)).toBe(true);
    }
  }
}

describe('GitHub sources (collector run --config examples/github.yaml, on the fixture)', () => {
  it('three rounds with a token and tight limits, 4 processes on one budget; SIGTERM; a restart collects nothing twice', async () => {
    const gh = await fixture({
      tokens: [TOKEN],
      limits: { search: { limit: 6, windowMs: 3000 }, core: { limit: 40, windowMs: 5000 } },
      secondaryEvery: 5,
      secondaryRetryAfterS: 1,
    });
    const dir = tempDir();
    const out = configFor(gh, dir);
    const run = () =>
      startCli(['run', '--config', path.join(dir, 'github.yaml'), '--quiet'], { GITHUB_TOKEN: TOKEN });

    const first = run();
    const firstExit = waitExit(first);
    // Rounds start on time (every interval, whatever is still queued): three rounds of listings,
    // and the READMEs they listed, which the budget spaces out, collected.
    const readmesIn = () => {
      const got = new Set(
        readItems(out)
          .filter((i) => i.label === 'readme')
          .map((i) => i.data.repo.toLowerCase()),
      );
      return [...listedRepos(gh, out)].every((slug) => got.has(slug));
    };
    await waitFor(() => roundsDone(out) >= 3 && readmesIn(), 150_000).catch((e) => {
      first.kill('SIGKILL');
      throw e;
    });
    first.kill('SIGTERM');
    const r1 = await firstExit;
    expect(r1.stderr).toBe('');
    expect(r1.code).toBe(0);

    // Every listed repository's README, once, exact bytes (BOM, CRLF, Latin-1 kept).
    const listed = listedRepos(gh, out);
    expectReadmesOnce(gh, out);
    const got = new Set(
      readItems(out)
        .filter((i) => i.label === 'readme')
        .map((i) => i.data.repo.toLowerCase()),
    );
    for (const slug of listed) expect(got.has(slug), `README of ${slug} not collected`).toBe(true);
    for (const slug of ['alice/bom-readme', 'bob/crlf-rst', 'carol/latin1']) expect(got.has(slug)).toBe(true);

    // Nothing but listed repositories was asked for: no menu, sponsor, star, login or avatar link.
    for (const e of gh.log) {
      if (e.service === 'web')
        expect(e.path, e.path).toMatch(/^\/(robots\.txt|trending(\/[a-z]+)?\?since=daily)$/);
      const m =
        /^\/repos\/([^/]+\/[^/]+)\/readme$/.exec(e.path) ?? /^\/([^/]+\/[^/]+)\/HEAD\/[^/]+$/.exec(e.path);
      if (e.service !== 'web' && !e.path.startsWith('/search/')) {
        expect(m, e.path).not.toBeNull();
        expect(listed.has(m![1].toLowerCase()), `${e.path}: not a listed repository`).toBe(true);
      }
    }
    // The limits were met (403s with Retry-After happened) and never a request early after one.
    expect(gh.log.filter((e) => e.status === 403).length).toBeGreaterThan(0);
    expect(gh.violations).toEqual([]);
    // No item says 403: a rate-limit answer waits and goes again.
    expect(readItems(out).filter((i) => i.status === 403)).toEqual([]);
    // The token: on API requests only, and nowhere in the output.
    for (const e of gh.log) {
      expect(e.userAgent, e.path).toBeTruthy();
      expect(e.authorization, `${e.service} ${e.path}`).toBe(e.service === 'api' ? `Bearer ${TOKEN}` : null);
    }
    expectNowhere(out, TOKEN);
    // The budget was kept by the supervisor and saved.
    const saved = JSON.parse(fs.readFileSync(path.join(out, 'state', 'rate-budget.json'), 'utf8'));
    expect(saved.version).toBe(1);
    expect(JSON.stringify(saved)).not.toContain(TOKEN);
    expect(readStatus(out)?.rateLimits).toBeDefined();

    // A restart: the listings go again, no README is fetched or written twice.
    const readmeAnswers = () =>
      gh.log.filter((e) => e.service !== 'web' && !e.path.startsWith('/search/') && e.status !== 403).length;
    const before = readmeAnswers();
    const rounds = roundsDone(out);
    const second = run();
    const secondExit = waitExit(second);
    await waitFor(() => roundsDone(out) >= rounds + 1, 120_000).catch((e) => {
      second.kill('SIGKILL');
      throw e;
    });
    second.kill('SIGTERM');
    const r2 = await secondExit;
    expect(r2.code).toBe(0);
    expectReadmesOnce(gh, out);
    expect(readmeAnswers()).toBe(before);
    expect(gh.violations).toEqual([]);
  });
});

describe('github-trending: a changed layout (collector crawl --source)', () => {
  it('warns naming the page, counts it, collects nothing from it; an explicit empty page is no warning', async () => {
    const gh = await fixture();
    gh.setTrendingLayout('changed', '');
    const out = tempDir();
    const r = await runCli([
      'crawl',
      '--source',
      'github-trending',
      '--source-option',
      `github.web=${gh.bases.web}`,
      '--source-option',
      `github.api=${gh.bases.api}`,
      '--source-option',
      `github.raw=${gh.bases.raw}`,
      // go: not in the fixture's lists, so the page shows GitHub's explicit empty state.
      '--source-option',
      'languages=["", go]',
      '--out',
      out,
      '--delay',
      '0',
      '--processes',
      '1',
      '--quiet',
    ]);
    expect(r.code).toBe(0);
    const items = readItems(out);
    expect(items.map((i) => i.label).sort()).toEqual(['trending', 'trending']);
    const changed = items.find((i) => i.url.endsWith('/trending?since=daily'));
    expect(changed?.data).toMatchObject({ repos: 0, layoutChanged: true });
    expect(items.find((i) => i.url.includes('/trending/go'))?.data).toMatchObject({ repos: 0, empty: true });
    // Only the two pages (and robots.txt) were asked for.
    expect(gh.log.filter((e) => e.service !== 'web')).toEqual([]);
    const logs = fs
      .readdirSync(path.join(out, 'logs'))
      .map((f) => fs.readFileSync(path.join(out, 'logs', f), 'utf8'))
      .join('');
    const warnings = logs
      .split('\n')
      .filter((l) => l.includes('"level":40') || l.includes('"level":"warn"'))
      .filter((l) => /trending/.test(l));
    expect(warnings.length).toBe(1);
    expect(warnings[0]).toContain(`${gh.bases.web}/trending?since=daily`);
    expect(warnings[0]).toMatch(/layout may have changed/);
    // Counted in status.json (a warning of the source).
    const status = readStatus(out);
    expect(status?.totals.counters.sourceWarnings).toBe(1);
  });
});

describe('github-search: a primary limit spent by someone else (a 403 with X-RateLimit-Remaining: 0)', () => {
  it('waits for X-RateLimit-Reset, shows the wait in status, then collects every README; nothing early', async () => {
    // A window long enough that the collector starts within it on a loaded machine; a limit the
    // 8 READMEs fit in, so the test waits out one window, not two.
    const gh = await fixture({ tokens: [TOKEN], limits: { core: { limit: 10, windowMs: 20_000 } } });
    // Another client spends the token's core budget first.
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`${gh.bases.api}/repos/alice/bom-readme/readme`, {
        headers: { authorization: `Bearer ${TOKEN}`, 'user-agent': 'other-client' },
      });
      await r.arrayBuffer();
    }
    const spentAt = gh.log.length;
    const out = tempDir();
    const child = startCli(
      [...searchCrawl(gh, out), '--source-option', 'perPage=8', '--processes', '2', '--quiet'],
      { GITHUB_TOKEN: TOKEN },
    );
    const exited = waitExit(child);
    let waiting: string | undefined;
    const watch = setInterval(() => {
      const w = readStatus(out)?.rateLimits?.find((x: { scope: string }) => x.scope === 'core');
      if (w) waiting = w.message;
    }, 50);
    const r = await exited;
    clearInterval(watch);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const ours = gh.log.slice(spentAt).filter((e) => e.path.includes('/readme'));
    // The first README request could not know the window was spent: its 403 tells the budget...
    expect(ours[0].status).toBe(403);
    // ...and nothing more is sent into that window (one violation: that first request).
    expect(gh.violations.filter((v) => v.kind === 'primary')).toHaveLength(1);
    expect(gh.violations[0].path).toBe(ours[0].path);
    expect(waiting).toMatch(/^waiting for rate limit until \d{4}-\d\d-\d\dT.*Z \(core, primary\)$/);
    // Then every README (8 results), once, none as a 403 item.
    const readmes = itemsOf(out, 'github-search', 'readme');
    expect(readmes).toHaveLength(8);
    expect(readmes.filter((i) => i.status === 403)).toEqual([]);
    expectReadmesOnce(gh, out);
  });

  it('a token GitHub rejects is named by its variable, never by its value, said once; the crawl stops (exit 78)', async () => {
    const gh = await fixture({ tokens: [TOKEN] });
    const out = tempDir();
    const bad = 'ghp_notTheRightToken000000000000000';
    const r = await runCli(searchCrawl(gh, out), { GITHUB_TOKEN: bad });
    expect(r.code).toBe(78); // EX_CONFIG: stopped by its source, not retried
    const said = r.stderr.split('\n').filter((l) => l.includes('GitHub rejected the token'));
    expect(said).toEqual([
      'collector: worker type github-search stopped: source github-search: GitHub rejected the token (Bad credentials): check GITHUB_TOKEN',
    ]);
    const [item] = readItems(out);
    expect(item).toMatchObject({
      status: 401,
      error: {
        kind: 'source',
        message: 'source github-search: GitHub rejected the token (Bad credentials): check GITHUB_TOKEN',
      },
    });
    expect(gh.log.filter((e) => e.path.startsWith('/search/'))).toHaveLength(1); // not retried
    expectNowhere(out, bad);
    expect(r.stderr).not.toContain(bad);
    // In one process (no supervisor): the same line, the same code.
    const one = await runCli([...searchCrawl(gh, tempDir()), '--processes', '1'], { GITHUB_TOKEN: bad });
    expect(one.code).toBe(78);
    expect(one.stderr).toContain(said[0]);
  });
});
