/**
 * Rounds that cost nothing when nothing changed (issue 27 §1–4, §13): `collector run` over five
 * rounds of the fixture site of bench/lib/rounds-site.js — honest feeds and sitemaps answering
 * 304, a feed that re-dates every entry and a sitemap whose `<lastmod>` is always now, a page
 * whose Last-Modified is in 2099 behind a server that compares dates naively, links whose
 * tracking parameters change at every fetch, one article under two URLs with a canonical link,
 * a bot challenge and a CAPTCHA wall. What it shows, from the fixture's own log: unchanged hubs
 * cost a 304 and no re-fetch of their entries; lying dates are no longer believed after a round;
 * the page behind the lying validator is fetched again whole and its change found in the round
 * after it changed; each article once across the rounds; a blocked answer never stored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RoundsSite, startRoundsSite } from '../../bench/lib/rounds-site.js';
import { readItemsSoFar, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';

const ARTICLES = 4;
let site: RoundsSite;

beforeAll(async () => {
  site = await startRoundsSite({ articles: ARTICLES, pageBytes: 2000, challenges: 2 });
});

afterAll(async () => {
  await site?.close();
});

const items = readItemsSoFar;

describe('collector run: five quiet rounds', () => {
  it('304 for unchanged hubs, lying dates dropped, a lying validator ignored, each article once, walls never stored', async () => {
    const dir = tempDir();
    const data = path.join(dir, 'data');
    const config = path.join(dir, 'collector.yaml');
    const worker = (name: string, source: string, seeds: string[], extra: string[] = []) => [
      `  - name: ${name}`,
      `    source: ${source}`,
      '    processes: 1',
      '    delay: 0',
      '    robots: false',
      '    interval: 1s',
      '    retries: 1',
      '    retryBackoff: 50ms',
      '    maxRetryAfter: 1',
      `    seeds: [${seeds.map((s) => `"${site.origin}${s}"`).join(', ')}]`,
      ...extra,
    ];
    fs.writeFileSync(
      config,
      [
        `data: ${data}`,
        'workers:',
        ...worker('feeds', 'feed', ['/feed.xml', '/redating.xml']),
        ...worker('sitemaps', 'sitemap', ['/sitemap-index.xml', '/now-sitemap.xml']),
        ...worker('pages', 'crawl', ['/future.html', '/tracked.html']),
        // walls slow their host down: a worker of their own, so the others' rounds are on time
        ...worker('walls', 'crawl', ['/challenge.html', '/wall.html']),
        '',
      ].join('\n'),
    );
    const child = startCli(['run', '--config', config, '--quiet']);
    const exited = waitExit(child);
    const roundOf = (p: string) =>
      Math.max(
        -1,
        ...items(data)
          .filter((i) => i.url === `${site.origin}${p}`)
          .map((i) => i.data?.round ?? 0),
      );
    // the page behind a lying validator changes after its round 2
    await waitFor(() => roundOf('/future.html') >= 2);
    site.change('/future.html');
    const changedAt = Date.now();
    await waitFor(() =>
      [
        '/feed.xml',
        '/redating.xml',
        '/sitemap-index.xml',
        '/now-sitemap.xml',
        '/future.html',
        '/challenge.html',
      ].every((p) => roundOf(p) >= 5),
    );
    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
    const all = items(data);
    const of = (p: string) => all.filter((i) => i.url === `${site.origin}${p}`);

    // §1: honest hubs cost a 304 after their first fetch, and their entries are fetched once
    for (const hub of ['/feed.xml', '/sitemap-index.xml', '/sitemap-1.xml']) {
      const reqs = site.requestsFor(hub);
      expect(reqs.length).toBeGreaterThanOrEqual(5);
      expect(reqs[0].status).toBe(200);
      for (const r of reqs.slice(1)) {
        expect(r.status).toBe(304);
        expect(r.ifNoneMatch).toMatch(/^"[0-9a-f]{16}"$/);
      }
      expect(
        of(hub)
          .slice(1)
          .every((i) => i.status === 304 && i.data?.unchanged === true),
      ).toBe(true);
    }
    for (let n = 1; n <= ARTICLES; n++) {
      expect(site.requestsFor(`/a/${n}`)).toHaveLength(1);
      expect(site.requestsFor(`/s/${n}`)).toHaveLength(1);
    }

    // §3: lying dates cost a conditional check per entry (a second one when the next round read
    // the hub before the first checks were answered: a loaded machine), then are not believed:
    // nothing from the liar's fourth read on
    for (const [hub, prefix] of [
      ['/redating.xml', '/r/'],
      ['/now-sitemap.xml', '/n/'],
    ]) {
      const fourth = site.requestsFor(hub)[3].at;
      for (let n = 1; n <= ARTICLES; n++) {
        const reqs = site.requestsFor(`${prefix}${n}`);
        expect(reqs.length).toBeLessThanOrEqual(3);
        expect(reqs.slice(1).every((r) => r.status === 304)).toBe(true);
        expect(reqs.filter((r) => r.at > fourth)).toEqual([]);
      }
    }
    const logs = ['feeds-0', 'sitemaps-0'].map((w) =>
      fs.readFileSync(path.join(data, 'logs', `${w}.log`), 'utf8'),
    );
    for (const [i, hub] of ['/redating.xml', '/now-sitemap.xml'].entries()) {
      const said = logs[i].split('\n').filter((l) => l.includes(`${hub}: its dates are not believed`));
      expect(said).toHaveLength(1);
    }
    const status = JSON.parse(fs.readFileSync(path.join(data, 'status.json'), 'utf8'));
    const counters = (id: string) => status.workers.find((w: { id: string }) => w.id === id)?.counters;
    expect(counters('feeds-0')?.sourceWarnings).toBeGreaterThanOrEqual(1);
    expect(counters('sitemaps-0')?.sourceWarnings).toBeGreaterThanOrEqual(1);

    // §2: a Last-Modified in 2099 is never sent back; the change is found within a round
    const future = site.requestsFor('/future.html');
    expect(future.every((r) => r.ifModifiedSince === null)).toBe(true);
    const firstAfter = future.find((r) => r.at > changedAt)!;
    expect(firstAfter.status).toBe(200);
    expect(firstAfter.at - changedAt).toBeLessThan(60_000); // a deadline for a stuck run, not a speed check
    expect(of('/future.html').map((i) => i.data?.version)).toContain(2);

    // §4: tracking parameters that change at every fetch: each article once, under its clean URL
    expect(site.requestsFor('/tracked.html').length).toBeGreaterThanOrEqual(5);
    for (let n = 1; n <= 3; n++) {
      expect(site.log.filter((r) => r.path.startsWith(`/t/${n}?`) || r.path === `/t/${n}`)).toHaveLength(1);
      expect(all.filter((i) => i.url.startsWith(`${site.origin}/t/${n}`)).map((i) => i.url)).toEqual([
        `${site.origin}/t/${n}`,
      ]);
    }
    // one article under two URLs: collected once, the other says where
    const home = of('/c/1?from=home');
    const menu = of('/c/1?from=menu');
    expect(home).toHaveLength(1);
    expect(menu).toHaveLength(1);
    const [first, second] = home[0].fetchedAt <= menu[0].fetchedAt ? [home[0], menu[0]] : [menu[0], home[0]];
    expect(first.data.canonical).toBe(`${site.origin}/c/1`);
    expect(first.file).toBeDefined();
    expect(second.data.duplicateOf).toBe(first.url);
    expect(second.file).toBeUndefined();
    expect(site.requestsFor('/c/1')).toHaveLength(2); // the two aliases only: the canonical URL is seen

    // §13: a challenge is a blocked error, retried; the page it hid is collected later; a wall never stored
    const challenge = of('/challenge.html');
    expect(challenge[0].error?.kind).toBe('blocked');
    expect(challenge[0].file).toBeUndefined();
    const real = challenge.find((i) => i.status === 200 && i.error === undefined);
    expect(real?.file).toBeDefined();
    expect(fs.readFileSync(path.join(data, real!.file), 'utf8')).not.toContain('Just a moment');
    const wall = of('/wall.html');
    expect(wall.length).toBeGreaterThanOrEqual(1);
    expect(wall.every((i) => i.error?.kind === 'blocked' && i.file === undefined)).toBe(true);
    expect(counters('walls-0')?.errorsByKind?.blocked).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
