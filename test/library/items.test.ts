/**
 * The library's `items()` as a user imports it (the built package entry, dist/index.js): the items
 * of a crawl's data directory, each page once, with its Markdown as `text` when asked; filters; a
 * bad directory or `since` rejects with a UsageError.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

const lib = (await import(
  path.resolve(import.meta.dirname, '../../dist/index.js')
)) as typeof import('../../src/index.js');

let site: FixtureServer;
let out: string;

beforeAll(async () => {
  site = await startServer({
    '/': html(page('Home', ['/a/', '/b/', '/gone/'], '<p>The home page of a small site.</p>')),
    '/a/': html(page('Page A', [], '<p>All about a, at some length so that it is content.</p>')),
    '/b/': html(page('Page B', [], '<p>All about b, at some length so that it is content.</p>')),
  });
  out = tempDir('collector-items-');
  await lib.crawl({
    seeds: [`${site.origin}/`],
    out,
    processes: 1,
    delay: 0,
    robots: false,
    sourceOptions: { markdown: 'all' },
  });
});
afterAll(() => site.close());

describe('items() (dist/index.js)', () => {
  it('gives every item of the data directory once, in fetch order, as written', async () => {
    const got: Array<Record<string, unknown>> = [];
    for await (const item of lib.items(out)) got.push(item as unknown as Record<string, unknown>);
    expect(got).toEqual(readItems(out));
    expect(got.every((i) => !('text' in i))).toBe(true);
  });

  it('withContent: the Markdown of each page as text; null for a page without content', async () => {
    const texts = new Map<string, string | null | undefined>();
    for await (const item of lib.items(out, { withContent: true }))
      texts.set(new URL(item.url).pathname, item.text);
    const md = (p: string) => {
      const i = readItems(out).find((x) => new URL(x.url).pathname === p)!;
      return fs.readFileSync(path.join(out, i.data.markdown), 'utf8');
    };
    expect(texts.get('/a/')).toBe(md('/a/'));
    expect(texts.get('/a/')).toMatch(/^# Page A\n/);
    expect(texts.get('/b/')).toBe(md('/b/'));
    expect(texts.get('/gone/')).toBeNull();
    expect(texts.size).toBe(4);
  });

  it('okOnly and source filter; a source with no items gives none', async () => {
    const ok: string[] = [];
    for await (const item of lib.items(out, { okOnly: true })) ok.push(new URL(item.url).pathname);
    expect(ok.sort()).toEqual(['/', '/a/', '/b/']);
    const none = [];
    for await (const item of lib.items(out, { source: 'feed' })) none.push(item);
    expect(none).toEqual([]);
  });

  it('rejects a missing directory and a bad since with a UsageError', async () => {
    const first = (options?: Parameters<typeof lib.items>[1], dir = out) => lib.items(dir, options).next();
    await expect(first({}, path.join(out, 'nope'))).rejects.toMatchObject({ name: 'UsageError' });
    await expect(first({ since: 'tomorrow' })).rejects.toThrow(/since "tomorrow": expected an ISO 8601 date/);
    await expect(first({ since: new Date('2999-01-01') })).resolves.toEqual({ done: true, value: undefined });
  });
});
