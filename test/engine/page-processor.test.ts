import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { InlinePageProcessor } from '../../src/engine/inline-page-processor.js';
import { PagePool } from '../../src/engine/page-pool.js';
import { type PageProcessor, PageThreadLost } from '../../src/engine/page-processor.js';
import { prestartPageThread, takePrestartedPageThread } from '../../src/engine/page-thread-prestart.js';
import { pageThreadLimits, youngGenerationMb } from '../../src/engine/page-threads.js';
import type { PageJob } from '../../src/engine/page-work.js';
import { ThreadedPageProcessor } from '../../src/engine/threaded-page-processor.js';
import { crawlSource } from '../../src/sources/crawl.js';
import { runSource, sourceLog } from '../../src/sources/source-runner.js';

// The thread runs the compiled worker (`npm test` builds dist/ first).
const FILES = {
  pageWorker: path.resolve('dist/engine/page-worker.js'),
  bodyWriter: path.resolve('dist/engine/body-writer.js'),
};
const dirs: string[] = [];
const WORKER = { id: 'crawl-0', index: 0, count: 1 };
/** The crawl source as a page thread loads it. */
const CRAWL = { ref: { kind: 'builtin' as const, name: 'crawl' }, options: {}, seeds: [], worker: WORKER };
const crawlRunning = () =>
  runSource(
    { def: crawlSource, ref: CRAWL.ref, builtin: true },
    {},
    [],
    WORKER,
    sourceLog(() => {}),
  );
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const HTML = Buffer.from(
  '<!doctype html><title>Caf\u00e9 page</title><a href="/b">b</a><a href="c.html#x">c</a>',
);

function job(id: number, over: Partial<PageJob> = {}): PageJob {
  return {
    id,
    url: 'http://127.0.0.1/a/',
    finalUrl: 'http://127.0.0.1/a/',
    status: 200,
    contentType: 'text/html; charset=utf-8',
    contentEncoding: 'gzip',
    headers: {},
    depth: 0,
    maxBytes: 1 << 20,
    extract: true,
    body: zlib.gzipSync(HTML),
    ...over,
  };
}

const kinds: Array<[string, (out: string) => PageProcessor | Promise<PageProcessor>]> = [
  ['inline', (out) => new InlinePageProcessor(crawlRunning(), { outDir: out, storeBodies: true })],
  [
    'page thread',
    async (out) => {
      const p = new ThreadedPageProcessor(FILES, CRAWL, out, 1 << 20);
      await p.whenReady();
      return p;
    },
  ],
  [
    // Pages that come while the page thread starts are handled on the caller's thread.
    'page thread, while starting',
    (out) => new ThreadedPageProcessor(FILES, CRAWL, out, 1 << 20),
  ],
  [
    // Started before the crawl knew its source (as `collector crawl` does), taken by the processor.
    'prestarted page thread',
    (out) => {
      prestartPageThread(FILES.pageWorker, pageThreadLimits(CRAWL, 1 << 20));
      return new ThreadedPageProcessor(FILES, CRAWL, out, 1 << 20);
    },
  ],
  [
    // Spilling at 1: of two pages in flight, the second goes to the second thread.
    'pool of two page threads',
    (out) =>
      new PagePool(
        [
          new ThreadedPageProcessor(FILES, CRAWL, out, 1 << 20),
          new ThreadedPageProcessor(FILES, CRAWL, out, 1 << 20),
        ],
        1,
      ),
  ],
];

describe.each(kinds)('%s page processor', (_name, open) => {
  it('decodes, hashes, extracts, then stores or drops the kept body', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-pages-'));
    dirs.push(out);
    const p = await open(out);
    const [a, b] = await Promise.all([p.work(job(1)), p.work(job(2, { url: 'http://127.0.0.1/other' }))]);
    expect(a.bytes).toBe(HTML.length);
    expect(a.sha256).toBe(createHash('sha256').update(HTML).digest('hex'));
    expect(a.result?.title).toBe('Caf\u00e9 page');
    expect(a.result?.follow).toEqual(['http://127.0.0.1/b', 'http://127.0.0.1/a/c.html']);
    expect(b.sha256).toBe(a.sha256);
    const file = await p.store(1, 'http://127.0.0.1/a/');
    expect(file).toBe('files/127.0.0.1/a/index.html');
    expect(fs.readFileSync(path.join(out, file))).toEqual(HTML);
    p.drop(2);
    // A dropped body cannot be stored afterwards.
    await expect(p.store(2, 'http://127.0.0.1/other')).rejects.toThrow(/no body kept/);
    await p.close();
  });

  it('reports decompression failures and does not parse unknown encodings', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-pages-'));
    dirs.push(out);
    const p = await open(out);
    const bomb = zlib.gzipSync(Buffer.alloc(4096, 0x20));
    const corrupt = Buffer.from(zlib.gzipSync(HTML).subarray(0, 20));
    const oddBytes = zlib.gzipSync(HTML);
    const [big, bad, odd, notFor, plain] = await Promise.all([
      p.work(job(1, { body: bomb, maxBytes: 1000 })),
      p.work(job(2, { body: corrupt })),
      p.work(job(3, { contentEncoding: 'x-custom', body: oddBytes })),
      p.work(job(4, { extract: false })),
      // an unknown label on bytes that plainly are the declared HTML: used as is and parsed
      p.work(job(5, { contentEncoding: 'x-custom', body: HTML })),
    ]);
    expect(big.error?.kind).toBe('too-large');
    expect(bad.error?.kind).toBe('decode');
    expect(odd.flag).toBe('unknown-encoding');
    expect(odd.result).toBeUndefined();
    expect(odd.bytes).toBe(oddBytes.length);
    expect(plain.flag).toBe('not-encoded');
    expect(plain.result?.title).toBe('Caf\u00e9 page');
    expect(notFor.result).toBeUndefined();
    expect(notFor.bytes).toBe(HTML.length);
    await p.close();
  });
});

describe('page threads: failure and idle', () => {
  it('fails what a dead thread held, then starts new threads for the next page', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-pages-'));
    dirs.push(out);
    const p = new ThreadedPageProcessor(FILES, CRAWL, out, 1 << 20);
    await p.whenReady();
    await p.work(job(1));
    const pending = p.work(job(2));
    const failed = pending.catch((e: unknown) => e);
    // Simulate a crash of the page thread (its writer then ends too; either exit may come first).
    const threads = (p as unknown as { threads: { page: { terminate(): Promise<number> } } }).threads;
    await threads.page.terminate();
    const e = await failed;
    expect(e).toBeInstanceOf(PageThreadLost);
    expect((e as Error).message).toMatch(/thread exited/);
    // The body kept for job 1 went with it: it was not being worked on, so it is innocent.
    await expect(p.store(1, 'http://127.0.0.1/a/')).rejects.toMatchObject({ innocent: true });
    const again = await p.work(job(3));
    expect(again.result?.title).toBe('Caf\u00e9 page');
    expect(await p.store(3, 'http://127.0.0.1/a/')).toBe('files/127.0.0.1/a/index.html');
    await p.close();
  });

  it('replaces both threads when the body writer dies; what they held is lost, nothing hangs', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-pages-'));
    dirs.push(out);
    const p = new ThreadedPageProcessor(FILES, CRAWL, out, 1 << 20);
    await p.whenReady();
    await p.work(job(1));
    const threads = (p as unknown as { threads: { writer: { terminate(): Promise<number> } } }).threads;
    await threads.writer.terminate();
    await expect(p.store(1, 'http://127.0.0.1/a/')).rejects.toMatchObject({ innocent: true });
    await p.work(job(2));
    expect(await p.store(2, 'http://127.0.0.1/a/')).toBe('files/127.0.0.1/a/index.html');
    await p.close();
  });

  it('starts threads with the first page and ends them when idle', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-pages-'));
    dirs.push(out);
    const p = new ThreadedPageProcessor(FILES, CRAWL, out, 1 << 20, undefined, 100);
    expect(p.running).toBe(false);
    await p.work(job(1));
    expect(p.running).toBe(true);
    // A kept body keeps them alive: this timer fires after the 100 ms idle one would have.
    await new Promise((r) => setTimeout(r, 250));
    expect(p.running).toBe(true);
    p.drop(1);
    // then they end by themselves (however late a busy machine runs the idle timer)
    await vi.waitFor(() => expect(p.running).toBe(false), { timeout: 30_000, interval: 10 });
    const done = await p.work(job(2));
    expect(p.running).toBe(true);
    expect(done.bytes).toBe(HTML.length);
    expect(await p.store(2, 'http://127.0.0.1/a/')).toBe('files/127.0.0.1/a/index.html');
    await p.close();
    expect(p.running).toBe(false);
  });
});

describe('a prestarted page thread', () => {
  const limits = pageThreadLimits(CRAWL, 1 << 20);
  const exited = (w: { once(e: 'exit', f: (code: number) => void): void }) =>
    new Promise<number>((resolve) => w.once('exit', resolve));

  it('is taken by the first processor that starts threads with its file and limits, once', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-pages-'));
    dirs.push(out);
    const w = prestartPageThread(FILES.pageWorker, limits);
    expect(prestartPageThread(FILES.pageWorker, limits)).toBe(w);
    const p = new ThreadedPageProcessor(FILES, CRAWL, out, 1 << 20);
    const done = await p.work(job(1));
    expect(done.result?.title).toBe('Caf\u00e9 page');
    expect((p as unknown as { threads: { page: unknown } }).threads.page).toBe(w);
    expect(takePrestartedPageThread(FILES.pageWorker, limits)).toBeNull();
    const end = exited(w);
    await p.close();
    await end;
  });

  it('is ended, not taken, by a processor whose pages need other heap limits', async () => {
    const w = prestartPageThread(FILES.pageWorker, limits);
    const end = exited(w);
    const markdown = { ...CRAWL, options: { markdown: 'all' } };
    const p = new ThreadedPageProcessor(FILES, markdown, null, 1 << 20);
    const done = await p.work(job(1));
    expect(done.result?.title).toBe('Caf\u00e9 page');
    expect((p as unknown as { threads: { page: unknown } }).threads.page).not.toBe(w);
    await end;
    await p.close();
  });

  it('is not taken when it failed to start (its error goes nowhere: the processor starts its own)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-pages-'));
    dirs.push(dir);
    const broken = path.join(dir, 'broken-worker.mjs');
    fs.writeFileSync(broken, 'throw new Error("cannot load");\n');
    const w = prestartPageThread(broken, limits);
    await exited(w);
    expect(takePrestartedPageThread(broken, limits)).toBeNull();
  });

  it('ends by itself when nobody takes it, and a processor then starts its own', async () => {
    const w = prestartPageThread(FILES.pageWorker, limits, 1);
    await exited(w);
    expect(takePrestartedPageThread(FILES.pageWorker, limits)).toBeNull();
    const p = new ThreadedPageProcessor(FILES, CRAWL, null, 1 << 20);
    expect((await p.work(job(1))).result?.title).toBe('Caf\u00e9 page');
    await p.close();
  });
});

describe('the page thread young generation', () => {
  it("is the thread's own under the collector command's --max-semi-space-size=2, which V8 reads first", () => {
    // A process started as the bin starts it; a thread asking for 16 MB, started before and after
    // threadsSizeTheirYoungGeneration, reports the new space it grew to (MB).
    const module = pathToFileURL(path.resolve('dist/engine/page-threads.js')).href;
    const script = `
      import { Worker } from 'node:worker_threads';
      import { threadsSizeTheirYoungGeneration } from ${JSON.stringify(module)};
      const code = "const v8 = require('node:v8'); let k = []; for (let i = 0; i < 3e6; i++) { k.push({ i }); if (k.length > 1e5) k = []; }" +
        "require('node:worker_threads').parentPort.postMessage(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576);";
      const grown = () => new Promise((resolve) => {
        const w = new Worker(code, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 16 } });
        w.once('message', (mb) => { resolve(mb); void w.terminate(); });
      });
      const before = await grown();
      threadsSizeTheirYoungGeneration();
      process.stdout.write(JSON.stringify([before, await grown()]));
    `;
    const probe = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'young-')), 'probe.mjs');
    fs.writeFileSync(probe, script);
    let out: string;
    try {
      out = execFileSync(process.execPath, ['--max-semi-space-size=2', probe], { encoding: 'utf8' });
    } finally {
      fs.rmSync(path.dirname(probe), { recursive: true, force: true });
    }
    const [before, after] = JSON.parse(out) as number[];
    expect(before).toBeLessThanOrEqual(4);
    expect(after).toBeGreaterThan(8);
  });

  const crawl = (options: Record<string, unknown>) => ({ ...CRAWL, options });
  it('is small for the plain crawl, larger where pages get main-content extraction or the source is unknown', () => {
    expect(youngGenerationMb(crawl({}))).toBe(4);
    expect(youngGenerationMb(crawl({ markdown: 'none', articlePatterns: ['/blog/'] }))).toBe(4);
    expect(youngGenerationMb(crawl({ markdown: 'articles', articlePatterns: [] }))).toBe(4);
    expect(youngGenerationMb(crawl({ markdown: 'all' }))).toBe(16);
    expect(youngGenerationMb(crawl({ articlePatterns: ['/blog/'] }))).toBe(16);
    expect(youngGenerationMb({ ...CRAWL, ref: { kind: 'module' as const, path: '/x/source.js' } })).toBe(16);
  });
});
