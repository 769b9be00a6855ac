/**
 * Issue 28 (6), end to end: a directory link planted in `<out>/files` is never traversed — the
 * pages whose path runs through it get an item with a `storeError` naming the link, the others
 * are stored, and nothing appears where the link points (one process: bodies stored by the
 * body-writer thread; two: inline). A link at `state/`, `items/` or a worker's state file makes a
 * `--resume` refuse to start, in one line, before anything is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, runCli, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

let site: FixtureServer;

beforeAll(async () => {
  site = await startServer({
    '/index.html': html(page('home', ['docs/a.html', 'docs/b.html', 'pub/c.html'])),
    '/docs/a.html': html(page('a')),
    '/docs/b.html': html(page('b')),
    '/pub/c.html': html(page('c')),
  });
});

afterAll(async () => {
  await site.close();
});

function crawlArgs(out: string, processes: number): string[] {
  const seed = `${site.origin}/index.html`;
  return [
    'crawl',
    seed,
    '--scope',
    'host',
    '--delay',
    '0',
    '--no-robots',
    '--processes',
    String(processes),
    '--out',
    out,
  ];
}

describe('a directory link below <out>/files is never traversed', () => {
  it.each([1, 2])('%i process(es): the pages under it are not stored, and say why', async (processes) => {
    const dir = tempDir();
    const out = path.join(dir, 'out');
    const elsewhere = path.join(dir, 'elsewhere');
    fs.mkdirSync(elsewhere);
    const hostDir = path.join(out, 'files', `127.0.0.1_${site.port}`);
    fs.mkdirSync(hostDir, { recursive: true });
    fs.symlinkSync(elsewhere, path.join(hostDir, 'docs'));

    const r = await runCli(crawlArgs(out, processes));
    expect(r.code, r.stderr).toBe(0);
    const items = readItems(out);
    const byPath = Object.fromEntries(items.map((i) => [new URL(i.url).pathname, i]));
    expect(Object.keys(byPath).sort()).toEqual([
      '/docs/a.html',
      '/docs/b.html',
      '/index.html',
      '/pub/c.html',
    ]);
    for (const p of ['/docs/a.html', '/docs/b.html']) {
      expect(byPath[p].file, p).toBeUndefined();
      expect(byPath[p].data.storeError).toBe(
        `files/127.0.0.1_${site.port}/docs is a symbolic link: not followed (nothing below the output directory is written through a link)`,
      );
    }
    expect(fs.readFileSync(path.join(out, byPath['/pub/c.html'].file), 'utf8')).toContain('<title>c</title>');
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });
});

describe('--resume refuses a link where the collector writes its state', () => {
  it.each(['state', 'items', 'state/w0/frontier.log', 'items/w0.jsonl'])('%s', async (link) => {
    const dir = tempDir();
    const out = path.join(dir, 'out');
    const first = await runCli(crawlArgs(out, 1));
    expect(first.code, first.stderr).toBe(0);
    const worker = fs.readdirSync(path.join(out, 'state')).find((d) => d !== 'tmp' && !d.includes('.'))!;
    const real = link.replace('w0', worker);
    const at = path.join(out, real);
    const moved = path.join(dir, 'moved');
    fs.renameSync(at, moved);
    fs.symlinkSync(moved, at);
    const before = fs.statSync(moved).isDirectory() ? null : fs.readFileSync(moved, 'utf8');

    const r = await runCli([...crawlArgs(out, 1), '--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `collector: --out ${out}: ${real} is a symbolic link (to ${moved}); the collector never writes through a link ` +
        'below --out: replace it with a directory or file of its own (or link --out itself), or choose another --out',
    );
    if (before !== null) expect(fs.readFileSync(moved, 'utf8')).toBe(before);
  });
});
