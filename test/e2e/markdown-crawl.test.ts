/**
 * `collector crawl --markdown all` end to end on a small blog served on loopback: every HTML page
 * gets its main content as a `.md` beside the body and its metadata in the item; the same post
 * served under a second URL in another layout (a print version) is marked as a near-duplicate of
 * the first one written; a distinct post and the index are not; `--no-near-duplicates` marks
 * nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_LOAF, STARTER } from '../fixtures/articles.js';
import { crawlArgs, readItems, runCli, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, html, startServer } from '../fixtures/site-server.js';

const paragraphs = (text: string) =>
  text
    .split(/\n\s*\n/)
    .map((p) => `<p>${p.replace(/\s+/g, ' ').trim()}</p>`)
    .join('\n');

/** A blog page: site chrome around an article. */
function post(title: string, body: string, extraHead = '', layout: 'site' | 'print' = 'site'): string {
  const chrome =
    layout === 'site'
      ? '<header class="site-header"><a href="/">The Bakery Blog</a></header><nav><a href="/">Home</a> <a href="/about/">About</a></nav>'
      : '<p class="print-note">Printed from The Bakery Blog</p>';
  const footer =
    layout === 'site' ? '<footer>© The Bakery Blog · <a href="/privacy/">Privacy</a></footer>' : '';
  return `<!doctype html><html lang="en"><head><title>${title} | The Bakery Blog</title>
    <meta property="og:site_name" content="The Bakery Blog"><meta name="description" content="About ${title}.">
    <meta name="author" content="Ada Baker"><meta property="article:published_time" content="2026-11-01T08:00:00Z">${extraHead}</head>
    <body>${chrome}<article><h1>${title}</h1>${paragraphs(body)}</article>${footer}</body></html>`;
}

let site: FixtureServer;

beforeAll(async () => {
  site = await startServer({
    '/': html(
      '<!doctype html><html lang="en"><head><title>The Bakery Blog</title></head><body><h1>The Bakery Blog</h1><ul><li><a href="/starter/">Keeping a starter</a></li><li><a href="/first-loaf/">Your first loaf</a></li></ul></body></html>',
    ),
    '/starter/': html(
      post('Keeping a starter', STARTER, '', 'site').replace(
        '</article>',
        '<p><a href="/print/starter/">Print</a></p></article>',
      ),
    ),
    '/print/starter/': html(
      post('Keeping a starter', STARTER, `<link rel="canonical" href="/starter/">`, 'print'),
    ),
    '/first-loaf/': html(post('Your first loaf', FIRST_LOAF)),
  });
});

afterAll(async () => {
  await site.close();
});

describe('crawl --markdown all', () => {
  it('stores every page as Markdown with its metadata, and marks the print version as a near-duplicate', async () => {
    const out = tempDir('collector-markdown-');
    const r = await runCli(
      crawlArgs(`${site.origin}/`, out, '--markdown', 'all', '--no-robots', '--host-concurrency', '1'),
    );
    expect(r.code, r.stderr).toBe(0);
    // the chrome's /about/ and /privacy/ are 404s here: no Markdown for an error
    const all = readItems(out);
    expect(all.filter((i) => i.status !== 200).every((i) => i.data?.markdown === undefined)).toBe(true);
    const items = Object.fromEntries(
      all.filter((i) => i.status === 200).map((i) => [new URL(i.url).pathname, i]),
    );
    expect(Object.keys(items).sort()).toEqual(['/', '/first-loaf/', '/print/starter/', '/starter/']);
    for (const item of Object.values(items)) {
      const md = fs.readFileSync(path.join(out, item.data.markdown), 'utf8');
      expect(md.startsWith(`# ${item.data.title}\n`), item.url).toBe(true);
      expect(item.data).toMatchObject({ language: 'en', words: expect.any(Number) });
    }
    const starter = items['/starter/'];
    expect(starter.data).toMatchObject({
      title: 'Keeping a starter',
      description: 'About Keeping a starter.',
      author: 'Ada Baker',
      published: '2026-11-01T08:00:00.000Z',
      siteName: 'The Bakery Blog',
      markdown: expect.stringMatching(/^files\/.*\/starter\/index\.md$/),
      simhash: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const md = fs.readFileSync(path.join(out, starter.data.markdown), 'utf8');
    expect(md).toContain(
      STARTER.split(/\n\s*\n/)[0]
        .replace(/\s+/g, ' ')
        .trim(),
    );
    expect(md).not.toMatch(/Privacy|Home/);
    // the print version, fetched after the post (one request at a time, found on the post), names it
    expect(items['/print/starter/'].data).toMatchObject({
      canonical: `${site.origin}/starter/`,
      nearDuplicateOf: `${site.origin}/starter/`,
    });
    expect(starter.data.nearDuplicateOf).toBeUndefined();
    expect(items['/first-loaf/'].data.nearDuplicateOf).toBeUndefined();
    expect(items['/'].data.nearDuplicateOf).toBeUndefined();
  });

  it('--no-near-duplicates marks nothing, and without --markdown no page gets Markdown', async () => {
    const out = tempDir('collector-markdown-');
    await runCli(
      crawlArgs(`${site.origin}/`, out, '--markdown', 'all', '--no-near-duplicates', '--no-robots'),
    );
    const items = readItems(out).filter((i) => i.status === 200);
    expect(items).toHaveLength(4);
    expect(items.filter((i) => i.data?.nearDuplicateOf !== undefined)).toEqual([]);
    const plain = tempDir('collector-markdown-');
    await runCli(crawlArgs(`${site.origin}/`, plain, '--no-robots'));
    expect(readItems(plain).filter((i) => i.data?.markdown !== undefined)).toEqual([]);
  });
});
