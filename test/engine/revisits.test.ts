/**
 * Revisits of one worker: what each item says (round, version, unchanged), which pages a round
 * asks for again and with which validators, and the record log read back at resume (a torn last
 * line cut, a damaged line skipped).
 */
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Item } from '../../src/engine/item.js';
import { decodeKnown, Revisits } from '../../src/engine/revisits.js';
import { RevisitPolicy } from '../../src/frontier/revisit-policy.js';
import { tempDir } from '../fixtures/cli.js';

const SHA_A = 'a'.repeat(64);
const SHA_B = 'b'.repeat(64);

function item(url: string, status: number | null, sha256: string | null, extra: Partial<Item> = {}): Item {
  return {
    url,
    finalUrl: url,
    status,
    contentType: 'text/html',
    fetchedAt: new Date().toISOString(),
    depth: 2,
    source: 'crawl',
    worker: 'crawl-0',
    bytes: sha256 === null ? 0 : 10,
    sha256,
    ...extra,
  };
}

async function open(
  dir: string,
  resume = false,
  intervalMs: number | null = 1,
  compactMinLines?: number,
): Promise<Revisits> {
  const r = new Revisits({
    policy: new RevisitPolicy({ intervalMs }),
    stateDir: dir,
    log: pino({ level: 'silent' }),
    compactMinLines,
  });
  await r.open(resume, (e) => {
    throw e;
  });
  return r;
}

/** One answer of `url`: its validators noted, then its item observed. @returns the item's data. */
function answer(r: Revisits, it: Item, etag: string | null, meta?: Parameters<Revisits['observe']>[1]) {
  r.noteResponse(it, { etag: etag ?? undefined, 'last-modified': 'Tue, 10 Jun 2025 04:00:00 GMT' });
  r.observe(it, meta);
  return it.data;
}

describe('Revisits', () => {
  it('items say their round and version; the same body or a 304 is unchanged; a new body a new version', async () => {
    const r = await open(tempDir());
    const u = 'http://h/p';
    expect(answer(r, item(u, 200, SHA_A), '"1"')).toEqual({ round: 0, version: 1 });
    r.round = 1;
    expect(answer(r, item(u, 200, SHA_A), '"1"')).toEqual({ round: 1, version: 1, unchanged: true });
    r.round = 2;
    expect(answer(r, item(u, 304, null), '"1"')).toEqual({ round: 2, version: 1, unchanged: true });
    r.round = 3;
    expect(answer(r, item(u, 200, SHA_B), '"2"')).toEqual({ round: 3, version: 2 });
    // a failure keeps the record and says only its round
    expect(answer(r, item(u, null, null, { error: { kind: 'timeout', message: 't' } }), null)).toEqual({
      round: 3,
    });
    expect(r.changedSince(u, Date.now() + 60_000)).toBe(true);
    expect(r.changedSince(u, 0)).toBe(false);
    expect(r.changedSince('http://h/never', 0)).toBeUndefined();
    await r.close();
  });

  it("a lastmod no later than the stored version's Last-Modified is no change, even after the fetch time", async () => {
    const r = await open(tempDir());
    const u = 'http://h/new-post';
    const it = item(u, 200, SHA_A);
    // fetched within the second it was published: its Last-Modified is the next whole second
    const lastModified = new Date(Math.ceil((Date.now() + 1) / 1000) * 1000 + 1000);
    r.noteResponse(it, { etag: '"n1"', 'last-modified': lastModified.toUTCString() });
    r.observe(it, undefined);
    expect(r.changedSince(u, lastModified.getTime())).toBe(false);
    expect(r.changedSince(u, lastModified.getTime() + 1000)).toBe(true);
    await r.close();
  });

  it('a Last-Modified far in the future does not hide a later lastmod', async () => {
    const r = await open(tempDir());
    const u = 'http://h/liar';
    const it = item(u, 200, SHA_A);
    r.noteResponse(it, { 'last-modified': 'Thu, 01 Jan 2099 00:00:00 GMT' });
    r.observe(it, undefined);
    expect(r.changedSince(u, Date.now() + 3_600_000)).toBe(true);
    await r.close();
  });

  it('a round asks again for the pages due, conditionally; hubs and pages not due are left to their own paths', async () => {
    const dir = tempDir();
    const r = await open(dir, false, 60_000);
    answer(r, item('http://h/p', 200, SHA_A), '"p1"', { label: 'post' });
    answer(r, item('http://h/feed', 200, SHA_B), '"f1"', { everyRound: true });
    expect(r.headersFor('http://h/p')).toBeUndefined(); // not queued as a revisit
    const queued: Array<[string, number, unknown]> = [];
    const take = (url: string, depth: number, meta: unknown) => {
      queued.push([url, depth, meta]);
      return true;
    };
    r.startRound(1, take, Date.now()); // not due yet
    expect(queued).toEqual([]);
    r.startRound(1, take, Date.now() + 10 * 60_000);
    expect(queued).toEqual([['http://h/p', 2, { label: 'post' }]]);
    expect(r.headersFor('http://h/p')).toEqual({ 'if-none-match': '"p1"' }); // the ETag is preferred
    expect(r.headersFor('http://h/feed')).toBeUndefined();
    // its answer ends the conditional request
    answer(r, item('http://h/p', 304, null), '"p1"');
    expect(r.headersFor('http://h/p')).toBeUndefined();
    await r.close();
  });

  it('the record log is read back at resume: a torn last line cut, a damaged line skipped', async () => {
    const dir = tempDir();
    const r = await open(dir);
    answer(r, item('http://h/a', 200, SHA_A), '"a"', { label: 'x', lastmod: 5 });
    answer(r, item('http://h/b', 200, SHA_A), null);
    answer(r, item('http://h/b', 200, SHA_B), null);
    await r.close();
    const file = path.join(dir, 'revisits.log');
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(3);
    // a lastmod of the past is not kept with the request
    expect(decodeKnown(lines[0])?.meta).toEqual({ label: 'x' });
    fs.appendFileSync(
      file,
      '{"url":"http://h/c","etag":null,"lastModified":null,"sha256":"zz"}\n{"url":"http://h/d"',
    );
    const again = await open(dir, true);
    expect(again.size).toBe(2);
    expect(again.changedSince('http://h/c', 0)).toBeUndefined();
    again.round = 1;
    expect(answer(again, item('http://h/b', 200, SHA_B), null)).toEqual({
      round: 1,
      version: 2,
      unchanged: true,
    });
    await again.close();
    expect(fs.readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
  });

  it('the log is compacted to one line per page as rounds add lines, and at resume; nothing known is lost', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'revisits.log');
    const lineCount = () => fs.readFileSync(file, 'utf8').trim().split('\n').length;
    const r = await open(dir, false, 1, 20);
    const urls = ['http://h/a', 'http://h/b', 'http://h/c'];
    for (let round = 0; round < 12; round++) {
      r.round = round;
      for (const u of urls) answer(r, item(u, 200, round < 6 ? SHA_A : SHA_B), null);
      await r.flush();
      // 36 lines appended in all; past 20 the file is compacted at once
      expect(lineCount()).toBeLessThanOrEqual(20);
    }
    await r.close();
    // compacted once, when round 6 made it 21 lines, to 3; then 5 rounds of 3
    expect(lineCount()).toBe(18);
    // read back: every page at its last version
    const again = await open(dir, true, 1, 20);
    expect(again.size).toBe(3);
    again.round = 12;
    expect(answer(again, item('http://h/a', 200, SHA_B), null)).toEqual({
      round: 12,
      version: 2,
      unchanged: true,
    });
    await again.close();

    // a long log (and a damaged line) found at resume is compacted before anything is appended
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    fs.writeFileSync(
      file,
      `${[...lines, ...lines, 'garbage', ...lines, ...lines, ...lines, ...lines, ...lines].join('\n')}\n`,
    );
    const third = await open(dir, true, 1, 20);
    expect(third.size).toBe(3);
    expect(lineCount()).toBe(3);
    expect(fs.readdirSync(dir)).toEqual(['revisits.log']);
    await third.close();
  });

  it('below the floor, or with as many pages as lines, the log is left as appended', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'revisits.log');
    const r = await open(dir, false, 1, 20);
    for (let i = 0; i < 30; i++) answer(r, item(`http://h/${i}`, 200, SHA_A), null);
    r.round = 1;
    for (let i = 0; i < 5; i++) answer(r, item(`http://h/${i}`, 200, SHA_A), null);
    await r.close();
    expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(35);
  });

  it('a hub is asked for conditionally once its links are known; a 304 gives them back, also after a resume', async () => {
    const dir = tempDir();
    const r = await open(dir);
    const hub = 'http://h/sitemap-index.xml';
    const child = { url: 'http://h/sitemap-1.xml', meta: { label: 'sitemap', everyRound: true as const } };
    // first read: no links known yet, so no conditional request
    expect(r.headersFor(hub)).toBeUndefined();
    const first = item(hub, 200, SHA_A, { depth: 0 });
    r.noteHubLinks(first, [child]);
    answer(r, first, '"i1"');
    expect(r.headersFor(hub)).toEqual({ 'if-none-match': '"i1"' });
    expect(r.linksOf(hub)).toEqual([child]);
    // a 304 keeps them
    r.round = 1;
    expect(answer(r, item(hub, 304, null, { depth: 0 }), '"i1"')).toEqual({
      round: 1,
      version: 1,
      unchanged: true,
    });
    expect(r.linksOf(hub)).toEqual([child]);
    // a page that is not a hub has none, and is not asked for conditionally unless due
    answer(r, item('http://h/p', 200, SHA_B), '"p"');
    expect(r.linksOf('http://h/p')).toBeUndefined();
    expect(r.headersFor('http://h/p')).toBeUndefined();
    await r.close();
    const again = await open(dir, true);
    expect(again.linksOf(hub)).toEqual([child]);
    expect(again.headersFor(hub)).toEqual({ 'if-none-match': '"i1"' });
    await again.close();
    // a damaged link makes the line damaged (skipped), never a link fetched
    const bad = JSON.parse(fs.readFileSync(path.join(dir, 'revisits.log'), 'utf8').split('\n')[0]);
    expect(decodeKnown(JSON.stringify({ ...bad, links: ['not a url'] }))).toBeNull();
    expect(
      decodeKnown(JSON.stringify({ ...bad, links: [{ url: 'http://h/x', meta: { evil: 1 } }] })),
    ).toBeNull();
    expect(
      decodeKnown(JSON.stringify({ ...bad, dates: { lies: -1, truths: 0, untrusted: false } })),
    ).toBeNull();
  });

  it("a hub whose dates say 'changed' for pages that did not change stops being believed, said once", async () => {
    const dir = tempDir();
    const told: string[] = [];
    const r = new Revisits({
      policy: new RevisitPolicy({ intervalMs: 60_000 }),
      stateDir: dir,
      log: pino({ level: 'silent' }),
      untrustedDates: (hub) => told.push(hub),
    });
    await r.open(false, (e) => {
      throw e;
    });
    const feed = 'http://h/feed.xml';
    const pages = ['http://h/a', 'http://h/b', 'http://h/c', 'http://h/d'];
    answer(r, item(feed, 200, SHA_A, { depth: 0 }), null);
    for (const p of pages) answer(r, item(p, 200, SHA_B), null);
    for (let round = 1; round <= 2; round++) {
      r.round = round;
      const later = Date.now() + round * 3_600_000;
      const links = r.readDates(
        feed,
        pages.map((url) => ({ url, meta: { lastmod: later } })),
      );
      // believed so far: the dates are passed on
      expect(links.every((l) => typeof l !== 'string' && l.meta.lastmod === later)).toBe(true);
      for (const p of pages.slice(0, 2)) answer(r, item(p, 304, null), null);
    }
    expect(told).toEqual([feed]);
    const stripped = r.readDates(feed, [
      { url: pages[0], meta: { lastmod: Date.now() + 9e6, label: 'x' } },
      { url: pages[1], meta: { lastmod: 1 } },
    ]);
    expect(stripped).toEqual([{ url: pages[0], meta: { label: 'x' } }, pages[1]]);
    await r.close();
    // kept across a restart, and not said again
    const again = new Revisits({
      policy: new RevisitPolicy({ intervalMs: 60_000 }),
      stateDir: dir,
      log: pino({ level: 'silent' }),
      untrustedDates: (hub) => told.push(hub),
    });
    await again.open(true, (e) => {
      throw e;
    });
    expect(again.readDates(feed, [{ url: pages[2], meta: { lastmod: Date.now() + 9e6 } }])).toEqual([
      pages[2],
    ]);
    answer(again, item(pages[2], 304, null), null);
    expect(told).toEqual([feed]);
    await again.close();
  });

  it('a hub whose dated pages did change stays believed', async () => {
    const r = await open(tempDir(), false, 60_000);
    const feed = 'http://h/feed.xml';
    answer(r, item(feed, 200, SHA_A, { depth: 0 }), null);
    for (let i = 0; i < 6; i++) {
      const p = `http://h/${i}`;
      answer(r, item(p, 200, SHA_A), null);
      r.readDates(feed, [{ url: p, meta: { lastmod: Date.now() + 3_600_000 } }]);
      // half found unchanged, half changed: dates that are often right
      answer(r, i % 2 === 0 ? item(p, 304, null) : item(p, 200, SHA_B), null);
    }
    const l = r.readDates(feed, [{ url: 'http://h/0', meta: { lastmod: 7 } }]);
    expect(l).toEqual([{ url: 'http://h/0', meta: { lastmod: 7 } }]);
    await r.close();
  });
});
