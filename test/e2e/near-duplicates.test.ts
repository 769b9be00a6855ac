/**
 * Near-duplicate marking end to end, without text extraction: the test source `simhash-json` gives
 * each JSON page's `simhash` as the item's `data.simhash`, as the built-in sources do for the main
 * text of HTML pages. The second of two near-identical pages is marked, a distinct page and an
 * exact duplicate are not, `--no-near-duplicates` marks nothing; the index comes back from the
 * items file after `--resume`, a `kill -9`, and a new `collector run`, with no state file of its own;
 * a seed fetched again by rounds is never marked against itself.
 */
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlArgs, readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { mulberry32 } from '../fixtures/prng.js';
import { type FixtureServer, startServer } from '../fixtures/site-server.js';
import { testSource } from '../fixtures/test-sources.js';

/** `hex` with the bits at `positions` (0 = the lowest) flipped. */
function flip(hex: string, ...positions: number[]): string {
  let hi = Number.parseInt(hex.slice(0, 8), 16);
  let lo = Number.parseInt(hex.slice(8), 16);
  for (const p of positions) {
    if (p < 32) lo ^= 1 << p;
    else hi ^= 1 << (p - 32);
  }
  return (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0');
}

const A = '0123456789abcdef';
/** 3 bits from A: a near-duplicate. */
const NEAR = flip(A, 3, 40, 63);
/** 32 bits from A. */
const FAR = flip(A, ...Array.from({ length: 32 }, (_, i) => i * 2));
/** 2 bits from A, fetched after a restart. */
const LATE = flip(A, 0, 33);
/** 2 bits from NEAR (a marked page), 5 from A: an original, since marked pages are not indexed. */
const LATE_NEAR_MARKED = flip(NEAR, 5, 6);

/** Pages of the kill test: 50 groups of 4 near-identical pages, spread over the crawl. */
const GROUP_PAGES = 200;
const GROUPS = 50;
const rand = mulberry32(11);
const groupBase = Array.from({ length: GROUPS }, () =>
  Array.from({ length: 16 }, () => Math.floor(rand() * 16).toString(16)).join(''),
);
/** Members differ from their group's base in at most one bit (at most 2 from each other). */
const groupSimhash = (i: number) => {
  const m = Math.floor(i / GROUPS);
  return m === 0 ? groupBase[i % GROUPS] : flip(groupBase[i % GROUPS], m - 1);
};

/** The output directory whose items the held pages wait for. */
let holdFor = '';
let site: FixtureServer;

/** Has the items file of `out` a line for `url`? */
function written(out: string, url: string): boolean {
  const dir = path.join(out, 'items');
  if (!fs.existsSync(dir)) return false;
  return fs
    .readdirSync(dir)
    .some((f) => fs.readFileSync(path.join(dir, f), 'utf8').includes(`"url":"${url}"`));
}

const A_BODY = JSON.stringify({ simhash: A, links: ['b.json', 'e.json'] });

beforeAll(async () => {
  site = await startServer({}, async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const p = (req.url ?? '').split('?')[0];
    const send = (body: string | object) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const group = /^\/nd\/g\/(\d+)\.json$/.exec(p);
    if (group) {
      const i = Number(group[1]);
      const links = [i + 1, i + 2, i + 3, Math.floor(i / 2)]
        .filter((j) => j < GROUP_PAGES)
        .map((j) => `${j}.json`);
      setTimeout(() => send({ simhash: groupSimhash(i), links }), 5);
      return;
    }
    // A seed whose body changes a little each round (one more bit of its simhash flipped).
    if (p === '/nd/round.json') {
      const n = site.hits('/nd/round.json') - 1;
      send({
        simhash: flip(A, ...Array.from({ length: Math.min(n, 3) }, (_, i) => 10 + i)),
        links: ['round-copy.json'],
        n,
      });
      return;
    }
    // b and e come once a's item is written: "the second of two" is the second written.
    if (p === '/nd/b.json' || p === '/nd/e.json') {
      const end = Date.now() + 30_000;
      while (!written(holdFor, `${site.origin}/nd/a.json`) && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const pages: Record<string, string | object> = {
      '/nd/index.json': { links: ['a.json', 'c.json', 'd.json'] },
      '/nd/a.json': A_BODY,
      '/nd/b.json': { simhash: NEAR },
      // The same bytes as a.json: an exact duplicate.
      '/nd/e.json': A_BODY,
      '/nd/c.json': { simhash: FAR },
      '/nd/d.json': {},
      '/nd/late.json': { simhash: LATE },
      '/nd/late-near-marked.json': { simhash: LATE_NEAR_MARKED },
      '/nd/round-copy.json': { simhash: flip(A, 60) },
    };
    if (pages[p] === undefined) {
      res.writeHead(404);
      res.end();
      return;
    }
    send(pages[p]);
  });
});

afterAll(async () => {
  await site.close();
});

const url = (name: string) => `${site.origin}/nd/${name}.json`;
const args = (out: string, seed: string, ...extra: string[]) =>
  crawlArgs(url(seed), out, '--source', testSource('simhash-json'), '--no-robots', ...extra);

/** Items of `out` by page name (`a` for /nd/a.json). */
function byName(out: string): Record<string, Record<string, any>> {
  return Object.fromEntries(readItems(out).map((i) => [path.basename(i.url, '.json'), i]));
}

/** Files of the worker's state dir. */
const stateFiles = (out: string) => fs.readdirSync(path.join(out, 'state', 'crawl-0')).sort();

describe('near-duplicate marking (data.nearDuplicateOf)', () => {
  let markedOut = '';

  it('marks the second of two near-identical pages, not a distinct page, an exact duplicate or a page without simhash', async () => {
    const out = tempDir();
    holdFor = out;
    markedOut = out;
    const r = await runCli(args(out, 'index'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const items = byName(out);
    expect(Object.keys(items).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'index']);
    expect(items.a.data).toEqual({ simhash: A });
    expect(items.b.data).toEqual({ simhash: NEAR, nearDuplicateOf: url('a') });
    expect(items.e.data).toEqual({ duplicateOf: url('a') });
    expect(items.c.data).toEqual({ simhash: FAR });
    expect(items.d.data?.nearDuplicateOf).toBeUndefined();
    expect(items.index.data?.nearDuplicateOf).toBeUndefined();
  });

  it('--no-near-duplicates: the simhash is kept, nothing is marked, and the state holds the same files', async () => {
    const out = tempDir();
    holdFor = out;
    const r = await runCli(args(out, 'index', '--no-near-duplicates'));
    expect(r.code).toBe(0);
    const items = byName(out);
    expect(items.b.data).toEqual({ simhash: NEAR });
    expect(readItems(out).filter((i) => i.data?.nearDuplicateOf !== undefined)).toEqual([]);
    // No state file of its own: the index is rebuilt from the items.
    expect(stateFiles(markedOut)).toEqual(stateFiles(out));
  });

  it('after --resume, a page is marked against one written before (and not against a marked one)', async () => {
    const out = tempDir();
    holdFor = out;
    expect((await runCli(args(out, 'index'))).code).toBe(0);
    const r = await runCli(args(out, 'late', '--resume'));
    expect(r.code).toBe(0);
    expect(byName(out).late.data).toEqual({ simhash: LATE, nearDuplicateOf: url('a') });
    const r2 = await runCli(args(out, 'late-near-marked', '--resume'));
    expect(r2.code).toBe(0);
    expect(byName(out)['late-near-marked'].data).toEqual({ simhash: LATE_NEAR_MARKED });
  });

  it('after kill -9 mid-crawl and --resume, each group of near-identical pages has one original, which every other member names', async () => {
    const out = tempDir();
    const seed = `${site.origin}/nd/g/0.json`;
    const kill = crawlArgs(seed, out, '--source', testSource('simhash-json'), '--no-robots');
    const child = startCli(kill);
    const exited = waitExit(child);
    const file = path.join(out, 'items', 'crawl-0.jsonl');
    await waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').split('\n').length > 80);
    child.kill('SIGKILL');
    expect((await exited).signal).toBe('SIGKILL');
    const before = readItems(out).length;
    expect(before).toBeLessThan(GROUP_PAGES);
    const r = await runCli([...kill, '--resume']);
    expect(r.code).toBe(0);
    const lines = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(GROUP_PAGES);
    const at = new Map(lines.map((item, n) => [item.url as string, n]));
    let straddling = 0;
    for (let g = 0; g < GROUPS; g++) {
      const members = [0, 1, 2, 3].map((m) => lines[at.get(`${site.origin}/nd/g/${g + m * GROUPS}.json`)!]);
      const originals = members.filter((i) => i.data.nearDuplicateOf === undefined);
      expect(originals, `group ${g}`).toHaveLength(1);
      const original = originals[0];
      for (const m of members) {
        if (m === original) continue;
        expect(m.data.nearDuplicateOf, `group ${g}`).toBe(original.url);
        expect(at.get(m.url)!).toBeGreaterThan(at.get(original.url)!);
      }
      // Members written before and after the kill: marked against the index rebuilt at resume.
      const sides = new Set(members.map((i) => at.get(i.url)! < before));
      if (sides.size === 2) straddling++;
    }
    expect(straddling).toBeGreaterThan(5);
  });

  it('collector run started again on its data marks a new page against one of the run before', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'collector.yaml');
    const config = (seeds: string[]) =>
      fs.writeFileSync(
        file,
        [
          'data: ./data',
          'workers:',
          '  - name: nd',
          `    source: ${testSource('simhash-json')}`,
          '    delay: 0',
          '    robots: false',
          `    seeds: [${seeds.map((s) => `"${s}"`).join(', ')}]`,
          '',
        ].join('\n'),
      );
    const data = path.join(dir, 'data');
    holdFor = data;
    config([url('index')]);
    expect((await runCli(['run', '--config', file])).code).toBe(0);
    config([url('index'), url('late')]);
    const r = await runCli(['run', '--config', file]);
    expect(r.code).toBe(0);
    const items = byName(data);
    expect(items.b.data).toEqual({ simhash: NEAR, nearDuplicateOf: url('a') });
    expect(items.late.data).toEqual({ simhash: LATE, nearDuplicateOf: url('a') });
  });

  it('collector run with rounds: a seed fetched again with a slightly changed body is never marked against itself', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'collector.yaml');
    fs.writeFileSync(
      file,
      [
        'data: ./data',
        'workers:',
        '  - name: nd',
        `    source: ${testSource('simhash-json')}`,
        '    delay: 0',
        '    interval: 1s',
        '    robots: false',
        `    seeds: ["${url('round')}"]`,
        '',
      ].join('\n'),
    );
    const data = path.join(dir, 'data');
    const child = startCli(['run', '--config', file, '--quiet']);
    const exited = waitExit(child);
    const seedItems = () => readItems(data).filter((i) => i.url === url('round'));
    await waitFor(() => seedItems().length >= 4);
    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
    const versions = seedItems();
    // Each round's body differs from the one before by one bit of its simhash (stored as a version).
    expect(new Set(versions.map((i) => i.data.simhash)).size).toBeGreaterThanOrEqual(4);
    for (const v of versions) expect(v.data.nearDuplicateOf, `round ${v.data.round}`).toBeUndefined();
    // Another URL with the same text is still marked against it.
    const copies = readItems(data).filter((i) => i.url === url('round-copy'));
    expect(copies).toHaveLength(1);
    expect(copies[0].data.nearDuplicateOf).toBe(url('round'));
  });
});
