/**
 * The library API as a user imports it: the built package entry (`dist/index.js`, what the
 * package's `exports` name), with crawl() in this process and with worker processes, a source
 * given as an object, an AbortSignal, run() with a config object, errors as UsageError; and the
 * example script `examples/crawl.mjs`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

// The built entry, as a project that installed the package loads it (`npm test` builds first).
const lib = (await import(
  path.resolve(import.meta.dirname, '../../dist/index.js')
)) as typeof import('../../src/index.js');
const N = 40;
let site: FixtureServer;

beforeAll(async () => {
  site = await startServer({}, (req, res) => {
    const m = /^\/l\/(\d+)\.html$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404);
      res.end();
      return;
    }
    const i = Number(m[1]);
    const links = [i + 1, i + 2].filter((j) => j < N).map((j) => `${j}.html`);
    setTimeout(() => html(page(`Page ${i}`, links))(req, res), 10);
  });
});
afterAll(() => site.close());

const seed = () => `${site.origin}/l/0.html`;
const base = { delay: 0, robots: false } as const;

describe('the library API (dist/index.js)', () => {
  it('crawl() in this process resolves with the summary, and prints nothing', async () => {
    const out = tempDir();
    const writes: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((s: string) => writes.push(s) > 0) as typeof process.stderr.write;
    let s: Awaited<ReturnType<typeof lib.crawl>>;
    try {
      s = await lib.crawl({ seeds: [seed()], out, processes: 1, ...base });
    } finally {
      process.stderr.write = write;
    }
    expect(writes).toEqual([]);
    expect(s).toMatchObject({ items: N, itemsThisRun: N, errors: 0, queued: 0, completed: true, out });
    expect(s.bytes).toBeGreaterThan(N * 100);
    expect(s.seconds).toBeGreaterThan(0);
    expect(readItems(out)).toHaveLength(N);
  });

  it('crawl() with 2 worker processes (the same defaults and output as the command line)', async () => {
    const out = tempDir();
    const s = await lib.crawl({ seeds: [seed()], out, processes: 2, ...base });
    expect(s).toMatchObject({ items: N, errors: 0, completed: true });
    expect(s.bytes).toBeGreaterThan(N * 100);
    expect(new Set(readItems(out).map((i) => i.worker))).toEqual(new Set(['crawl-0', 'crawl-1']));
  });

  it('a source given as an object runs in this process; a stop by AbortSignal, then resume', async () => {
    const out = tempDir();
    const stop = new AbortController();
    let pages = 0;
    const source = lib.defineSource({
      name: 'counting',
      handle(p, ctx) {
        if (++pages === 10) stop.abort();
        return { ...lib.crawlSource.handle(p, ctx), data: { n: pages } };
      },
    });
    const first = await lib.crawl({
      seeds: [seed()],
      out,
      source,
      concurrency: 1,
      signal: stop.signal,
      ...base,
    });
    expect(first.completed).toBe(false);
    expect(first.items).toBeGreaterThanOrEqual(10);
    expect(first.items).toBeLessThan(N);
    const second = await lib.crawl({ out, source, resume: true, ...base });
    expect(second).toMatchObject({ items: N, completed: true });
    expect(second.itemsThisRun).toBe(N - first.items);
    const items = readItems(out);
    expect(new Set(items.map((i) => i.url)).size).toBe(N);
    expect(items.every((i) => i.source === 'counting' && typeof i.data.n === 'number')).toBe(true);
    await expect(lib.crawl({ seeds: [seed()], out: tempDir(), source, processes: 2 })).rejects.toThrow(
      /a source given as an object runs in this process only/,
    );
  });

  it('refuses bad input with a UsageError, touching nothing', async () => {
    const out = path.join(tempDir(), 'never');
    const bad = lib.crawl({ seeds: ['not a url'], out });
    await expect(bad).rejects.toBeInstanceOf(lib.UsageError);
    await expect(bad).rejects.toThrow('bad URL "not a url"');
    await expect(lib.crawl({ seeds: [seed()], out, delay: 'soon' })).rejects.toThrow(/^--delay: /);
    await expect(lib.crawl({ seeds: [seed()], out, sourceOptions: { x: 1 } })).rejects.toThrow(
      'sourceOptions: unknown key "x"',
    );
    // an option the schema does not know, ignored before: a page option belongs in sourceOptions
    const misplaced = { seeds: [seed()], out, markdown: 'all' } as Parameters<typeof lib.crawl>[0];
    await expect(lib.crawl(misplaced)).rejects.toThrow(
      'crawl(): unknown option "markdown": a source\'s option, given as sourceOptions: { markdown: … }',
    );
    const misspelt = { seeds: [seed()], out, concurency: 4 } as Parameters<typeof lib.crawl>[0];
    await expect(lib.crawl(misspelt)).rejects.toThrow(/^crawl\(\): unknown option "concurency"/);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('run() takes a config object; module paths are relative to baseDir', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'sources'));
    // A source that needs no package at all, with a zod-like options schema of its own.
    fs.writeFileSync(
      path.join(dir, 'sources', 'tagger.mjs'),
      `export default {
  name: 'tagger',
  options: {
    shape: { tag: {} },
    safeParse: (v) => typeof v.tag === 'string'
      ? { success: true, data: v }
      : { success: false, error: { issues: [{ path: ['tag'], message: 'expected a string' }] } },
  },
  handle: (page, ctx) => ({
    data: { tag: ctx.options.tag },
    follow: [...page.text().matchAll(/href="([^"]+)"/g)].map((m) => m[1]),
  }),
};
`,
    );
    const config = lib.defineConfig({
      data: path.join(dir, 'data'),
      workers: [{ source: './sources/tagger.mjs', processes: 2, seeds: [seed()], tag: 'lib', ...base }],
    });
    const s = await lib.run(config, { baseDir: dir });
    expect(s).toMatchObject({ items: N, errors: 0, completed: true });
    expect(
      readItems(path.join(dir, 'data')).every((i) => i.data.tag === 'lib' && i.source === 'tagger'),
    ).toBe(true);
    const bad = lib.defineConfig({ workers: [{ source: './sources/tagger.mjs', seeds: [seed()], tag: 5 }] });
    await expect(lib.run(bad, { baseDir: dir })).rejects.toThrow('workers[0].tag: expected a string, got 5');
  });

  it('exports simhash64 and hammingDistance, for a source that gives data.simhash itself', () => {
    const text = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const h = lib.simhash64(text);
    expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(lib.hammingDistance(h as string, lib.simhash64(`${text} and a few more`) as string)).toBeLessThan(
      10,
    );
    expect(lib.simhash64('too short')).toBeNull();
  });
});

describe('examples/crawl.mjs', () => {
  it('crawls a site with the library and prints its summary; Ctrl-C stops gracefully, a second run continues', async () => {
    const out = path.join(tempDir(), 'data');
    const run = () =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['examples/crawl.mjs', seed(), out], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => {
          stdout += d;
        });
        child.stderr.on('data', (d) => {
          stderr += d;
        });
        // Stop it while it crawls (250 ms between pages of one host), once this run has written
        // an item (not after a fixed time: a loaded machine starts slowly): the summary still comes.
        const before = fs.existsSync(out) ? readItems(out).length : 0;
        const poll = setInterval(() => {
          if (fs.existsSync(path.join(out, 'items')) && readItems(out).length > before) {
            clearInterval(poll);
            child.kill('SIGINT');
          }
        }, 50);
        child.on('exit', (code) => {
          clearInterval(poll);
          resolve({ code, stdout, stderr });
        });
      });
    const first = await run();
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^\d+ items \(0 errors\), \d+ bytes in [\d.]+ s → /);
    const n = readItems(out).length;
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(N);
    const second = await run();
    expect(second.code).toBe(0);
    const urls = readItems(out).map((i) => i.url);
    expect(urls.length).toBeGreaterThan(n);
    expect(new Set(urls).size).toBe(urls.length);
  });
});
