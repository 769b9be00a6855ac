/**
 * Issue 28 (7): after a frontier log lost lines, the stored pages of the items file are read again
 * through the source (the real crawl source, inline) and their links followed; pages without a
 * stored body, errors and duplicates are not read; a stop midway is saved in relink.json and the
 * next run goes on from there, reading no page twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { CrawlStats } from '../../src/engine/crawl-stats.js';
import { InlinePageProcessor } from '../../src/engine/inline-page-processor.js';
import { LinkFollower } from '../../src/engine/link-follower.js';
import { LinkRecovery, pendingRelink, RELINK_FILE, saveRelink } from '../../src/engine/lost-links.js';
import type { PageProcessor } from '../../src/engine/page-processor.js';
import { crawlSource } from '../../src/sources/crawl.js';
import { runSource, sourceLog } from '../../src/sources/source-runner.js';
import { SCOPE_DEFAULTS, Scope } from '../../src/url/scope.js';
import { SessionIdStripper } from '../../src/url/session-ids.js';
import { tempDir } from '../fixtures/cli.js';

const ORIGIN = 'http://127.0.0.1:9';
const WORKER = { id: 'crawl-0', index: 0, count: 1 };

/** An output dir whose items file lists `items`, each stored page's body written under files/. */
function output(items: Array<{ path: string; links?: string[]; item?: Record<string, unknown> }>) {
  const out = tempDir();
  const stateDir = path.join(out, 'state', 'crawl-0');
  fs.mkdirSync(stateDir, { recursive: true });
  fs.mkdirSync(path.join(out, 'items'));
  const lines: string[] = [];
  for (const p of items) {
    const url = `${ORIGIN}${p.path}`;
    const it: Record<string, unknown> = {
      url,
      finalUrl: url,
      status: 200,
      contentType: 'text/html',
      depth: 1,
      ...p.item,
    };
    if (p.links !== undefined) {
      const file = `files/127.0.0.1_9${p.path}`;
      fs.mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
      const a = p.links.map((l) => `<a href="${l}">${l}</a>`).join('');
      fs.writeFileSync(path.join(out, file), `<!doctype html><title>${p.path}</title>${a}`);
      it.file = file;
    }
    lines.push(JSON.stringify(it));
  }
  const itemsPath = path.join(out, 'items', 'crawl-0.jsonl');
  fs.writeFileSync(itemsPath, `${lines.join('\n')}\n`);
  return { out, stateDir, itemsPath };
}

function recovery(o: ReturnType<typeof output>, fromLine: number, stopAfter = Number.POSITIVE_INFINITY) {
  const queued: Array<[string, number]> = [];
  const known = new Set<string>();
  const log = pino({ level: 'silent' });
  const running = runSource(
    { def: crawlSource, ref: null, builtin: true },
    {},
    [],
    WORKER,
    sourceLog(() => {}),
  );
  const pages = new InlinePageProcessor(running, { outDir: o.out, storeBodies: false });
  let worked = 0;
  // the processor as it is, its pages counted
  const counting: PageProcessor = {
    work: (job) => {
      worked++;
      return pages.work(job);
    },
    store: (id, url, extension) => pages.store(id, url, extension),
    drop: (id) => pages.drop(id),
    close: () => pages.close(),
  };
  const follower = new LinkFollower({
    scope: new Scope({ mode: 'host', seeds: [`${ORIGIN}/`], include: [], exclude: [], ...SCOPE_DEFAULTS }),
    sessionIds: new SessionIdStripper(),
    skipped: {} as CrawlStats['skipped'],
    log,
    maxDepth: undefined,
    handoff: null,
    enqueue: (url, depth) => {
      if (known.has(url)) return;
      known.add(url);
      queued.push([url, depth]);
    },
  });
  let id = 1;
  const r = new LinkRecovery({
    stateDir: o.stateDir,
    itemsPath: o.itemsPath,
    outDir: o.out,
    fromLine,
    pages: counting,
    pageId: () => id++,
    follower,
    round: () => 0,
    queued: () => queued.length,
    maxBytes: 1 << 20,
    log,
    isStopping: () => worked >= stopAfter,
    logName: 'state/crawl-0/frontier.log',
  });
  return { r, queued, worked: () => worked };
}

describe('reading stored pages again for their links', () => {
  it('reads each stored 2xx page through the source and follows its links at depth + 1; counts what it cannot read', async () => {
    const o = output([
      { path: '/a.html', links: ['x.html', 'y.html'] },
      { path: '/b.html', links: ['z.html', 'http://elsewhere.example/out.html'] },
      { path: '/not-stored.html' },
      { path: '/gone.html', links: [], item: { file: 'files/127.0.0.1_9/gone.html' } },
      { path: '/err.html', links: ['never.html'], item: { status: 500, error: { kind: 'http-status' } } },
      { path: '/dup.html', links: ['never2.html'], item: { data: { duplicateOf: `${ORIGIN}/a.html` } } },
    ]);
    fs.rmSync(path.join(o.out, 'files/127.0.0.1_9/gone.html'));
    await saveRelink(o.stateDir, 0);
    const { r, queued } = recovery(o, 0);
    const result = await r.run();
    expect(result).toEqual({ read: 2, unstored: 1, missing: 1, queued: 3, done: true });
    expect(queued).toEqual([
      [`${ORIGIN}/x.html`, 2],
      [`${ORIGIN}/y.html`, 2],
      [`${ORIGIN}/z.html`, 2],
    ]);
    // done: nothing is pending any more
    expect(fs.existsSync(path.join(o.stateDir, RELINK_FILE))).toBe(false);
    expect(await pendingRelink(o.stateDir)).toBeNull();
  });

  it('stopped midway: where it was is saved, and the next run goes on from there without reading a page twice', async () => {
    const pages = Array.from({ length: 5 }, (_, i) => ({ path: `/p${i}.html`, links: [`q${i}.html`] }));
    const o = output(pages);
    await saveRelink(o.stateDir, 0);
    const first = recovery(o, 0, 2);
    const stopped = await first.r.run();
    expect(stopped.done).toBe(false);
    expect(stopped.read).toBe(2);
    const from = await pendingRelink(o.stateDir);
    expect(from).toBe(2);
    const second = recovery(o, from!);
    const rest = await second.r.run();
    expect(rest).toMatchObject({ read: 3, done: true });
    expect([...first.queued, ...second.queued].map(([u]) => u)).toEqual(
      pages.map((_, i) => `${ORIGIN}/q${i}.html`),
    );
    expect(first.worked() + second.worked()).toBe(5);
  });

  it('a damaged progress file starts again from the first line (repeats work, loses nothing)', async () => {
    const o = output([]);
    fs.writeFileSync(path.join(o.stateDir, RELINK_FILE), '{"fromLi');
    expect(await pendingRelink(o.stateDir)).toBe(0);
  });
});
