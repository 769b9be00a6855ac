/**
 * How the built-in sources read pages: the plain crawl unchanged without options; articles marked,
 * extracted as Markdown and asked for first; `follow` modes; feeds a page announces; a seed's site
 * sitemaps; hubs by label; a feed entry's title and dates on its page's item.
 */
import { describe, expect, it } from 'vitest';
import { readHtmlPage } from '../../src/sources/html-page.js';
import { HUB_PRIORITY } from '../../src/sources/hub-readers.js';
import { ResponsePage } from '../../src/sources/page.js';
import { ARTICLE_PRIORITY, readPage, type SeedKind } from '../../src/sources/page-reader.js';
import type { HandleResult, SourceContext } from '../../src/sources/source.js';

const ORIGIN = 'http://blog.test';

function page(
  path: string,
  body: string,
  opts: { depth?: number; label?: string; userData?: unknown; type?: string } = {},
) {
  return new ResponsePage({
    url: ORIGIN + path,
    finalUrl: ORIGIN + path,
    status: 200,
    contentType: opts.type ?? 'text/html; charset=utf-8',
    headers: {},
    body: Buffer.from(body),
    depth: opts.depth ?? 1,
    label: opts.label,
    userData: opts.userData,
  });
}

function ctx(options: Record<string, unknown>): SourceContext {
  const log = { info() {}, warn() {}, error() {} };
  return { options, seeds: [], log, worker: { id: 'w-0', index: 0, count: 1 } };
}

const PATTERNS = ['/\\d{4}/\\d{2}/'];
const ARTICLE = `<!doctype html><html><head><title>A post | Blog</title>
<link rel="alternate" type="application/atom+xml" href="/feed.atom">
<meta property="og:title" content="A post"><meta name="author" content="Ada Lovelace"><meta property="article:published_time" content="2024-05-01T10:00:00Z"></head>
<body><nav><a href="/about/">About</a> <a href="/archive/">Archive</a></nav><article><h1>A post</h1>
<p>${'Crawlers keep a frontier of URLs and fetch them politely. '.repeat(12)}</p>
<p>See <a href="/2024/04/older/">the older post</a> and <a href="/tags/x/">a tag</a>.</p></article></body></html>`;

const urls = (r: HandleResult) =>
  (r.follow ?? []).map((l) => (typeof l === 'string' ? l : (l as { url: string }).url));
const metaOf = (r: HandleResult, url: string) =>
  (r.follow ?? [])
    .map((l) => l as unknown as { url: string; meta?: Record<string, unknown> })
    .find((l) => l.url === url)?.meta;

async function read(
  path: string,
  body: string,
  options: Record<string, unknown>,
  kind: SeedKind = 'page',
  o = {},
) {
  return await readPage(page(path, body, o), ctx(options), kind);
}

describe('readPage (built-in sources)', () => {
  it('without options: the plain crawl (title, links and the metadata the markup states), nothing more', async () => {
    const r = await read('/2024/05/post/', ARTICLE, {});
    expect(r.title).toBe('A post | Blog');
    expect(r.data).toEqual({
      title: 'A post',
      author: 'Ada Lovelace',
      published: '2024-05-01T10:00:00.000Z',
    });
    expect(r.markdown).toBeUndefined();
    expect(urls(r)).toContain(`${ORIGIN}/2024/04/older/`);
    expect(metaOf(r, `${ORIGIN}/feed.atom`)).toBeUndefined(); // a plain link, not read as a feed
  });

  it('an article: data.article, title/author/date, Markdown; article links first (priority)', async () => {
    const r = await read('/2024/05/post/', ARTICLE, { articlePatterns: PATTERNS });
    expect(r.data).toMatchObject({
      article: true,
      title: 'A post',
      author: 'Ada Lovelace',
      published: '2024-05-01T10:00:00.000Z',
    });
    expect(r.markdown).toMatch(/^# A post\n/);
    expect(r.markdown).toContain(`[the older post](${ORIGIN}/2024/04/older/)`);
    expect(metaOf(r, `${ORIGIN}/2024/04/older/`)).toEqual({ priority: ARTICLE_PRIORITY });
    expect(metaOf(r, `${ORIGIN}/about/`)).toBeUndefined();
    // a page that is not an article: no Markdown
    const other = await read('/about/', ARTICLE, { articlePatterns: PATTERNS });
    expect(other.data?.article).toBeUndefined();
    expect(other.markdown).toBeUndefined();
  });

  it('markdown: all gives every HTML page Markdown and metadata; none gives articles none', async () => {
    const all = await read('/about/', ARTICLE, { markdown: 'all' });
    expect(all.markdown).toMatch(/^# A post\n\nCrawlers keep a frontier/);
    expect(all.data).toMatchObject({ title: 'A post', author: 'Ada Lovelace', language: 'en', words: 127 });
    expect(all.data?.article).toBeUndefined();
    expect(urls(all)).toContain(`${ORIGIN}/2024/04/older/`);
    // the declared language and the Content-Language header come before detection
    const declared = await readPage(
      new ResponsePage({
        url: `${ORIGIN}/x/`,
        finalUrl: `${ORIGIN}/x/`,
        status: 200,
        contentType: 'text/html',
        headers: { 'content-language': 'en-GB' },
        body: Buffer.from(ARTICLE),
        depth: 1,
      }),
      ctx({ markdown: 'all' }),
      'page',
    );
    expect(declared.data?.language).toBe('en-GB');
    const none = await read('/2024/05/post/', ARTICLE, { articlePatterns: PATTERNS, markdown: 'none' });
    // no Markdown: the metadata the markup states, no words or fingerprint
    expect(none.data).toEqual({
      article: true,
      title: 'A post',
      author: 'Ada Lovelace',
      published: '2024-05-01T10:00:00.000Z',
    });
    expect(none.markdown).toBeUndefined();
    // not HTML: nothing to extract
    const text = await read('/notes.txt', 'plain text', { markdown: 'all' }, 'page', { type: 'text/plain' });
    expect(text.markdown).toBeUndefined();
  });

  it('follow: articles keeps only article links on articles, all links elsewhere; none keeps none', async () => {
    const options = { articlePatterns: PATTERNS, follow: 'articles' };
    expect(urls(await read('/2024/05/post/', ARTICLE, options))).toEqual([`${ORIGIN}/2024/04/older/`]);
    expect(urls(await read('/archive/', ARTICLE, options))).toContain(`${ORIGIN}/tags/x/`);
    expect(
      urls(await read('/2024/05/post/', ARTICLE, { articlePatterns: PATTERNS, follow: 'none' })),
    ).toEqual([]);
  });

  it("feeds: the feeds a page announces, as every-round hubs; sitemaps: a seed's robots.txt and /sitemap.xml", async () => {
    const r = await read('/', ARTICLE, { feeds: true, sitemaps: true }, 'page', { depth: 0 });
    expect(metaOf(r, `${ORIGIN}/feed.atom`)).toEqual({
      label: 'feed',
      everyRound: true,
      priority: HUB_PRIORITY,
    });
    // once: not also as the plain page its <link rel="alternate"> is, which the frontier would keep
    expect(urls(r).filter((u) => u === `${ORIGIN}/feed.atom`)).toHaveLength(1);
    expect(metaOf(r, `${ORIGIN}/robots.txt`)).toEqual({
      label: 'robots',
      everyRound: true,
      scope: false,
      priority: HUB_PRIORITY,
    });
    expect(metaOf(r, `${ORIGIN}/sitemap.xml`)).toEqual({
      label: 'sitemap',
      everyRound: true,
      scope: false,
      priority: HUB_PRIORITY,
    });
    // a seed that links to its /sitemap.xml: the sitemap is asked for once, to be read as one
    const linking = ARTICLE.replace(
      '<a href="/about/">',
      '<a href="/sitemap.xml">Sitemap</a> <a href="/about/">',
    );
    const seed = await read('/', linking, { sitemaps: true }, 'page', { depth: 0 });
    expect(urls(seed).filter((u) => u === `${ORIGIN}/sitemap.xml`)).toHaveLength(1);
    expect(metaOf(seed, `${ORIGIN}/sitemap.xml`)).toEqual({
      label: 'sitemap',
      everyRound: true,
      scope: false,
      priority: HUB_PRIORITY,
    });
    // sitemaps only from seeds
    expect(urls(await read('/x/', ARTICLE, { sitemaps: true }))).not.toContain(`${ORIGIN}/robots.txt`);
  });

  it('hubs by label or seed kind: robots.txt, a sitemap index, a sitemap with lastmods, a feed', async () => {
    const robots = await read('/robots.txt', `Sitemap: ${ORIGIN}/sm.xml\n`, {}, 'page', {
      label: 'robots',
      type: 'text/plain',
    });
    expect(metaOf(robots, `${ORIGIN}/sm.xml`)).toEqual({
      label: 'sitemap',
      everyRound: true,
      scope: false,
      priority: HUB_PRIORITY,
    });
    const index = await read(
      '/sm.xml',
      `<sitemapindex><sitemap><loc>${ORIGIN}/a.xml</loc></sitemap></sitemapindex>`,
      {},
      'sitemap',
      { depth: 0, type: 'application/xml' },
    );
    expect(metaOf(index, `${ORIGIN}/a.xml`)).toEqual({
      label: 'sitemap',
      everyRound: true,
      scope: false,
      priority: HUB_PRIORITY,
    });
    const set = await read(
      '/a.xml',
      `<urlset><url><loc>${ORIGIN}/2024/05/p/</loc><lastmod>2024-05-02</lastmod></url><url><loc>${ORIGIN}/about/</loc></url></urlset>`,
      { articlePatterns: PATTERNS },
      'sitemap',
      { label: 'sitemap', type: 'application/xml' },
    );
    expect(metaOf(set, `${ORIGIN}/2024/05/p/`)).toEqual({
      priority: ARTICLE_PRIORITY,
      lastmod: Date.UTC(2024, 4, 2),
    });
    expect(set.follow).toContain(`${ORIGIN}/about/`);
    expect(set.data).toMatchObject({ sitemap: 'urlset', entries: 2 });
    const feed = await read(
      '/feed.atom',
      `<feed xmlns="http://www.w3.org/2005/Atom"><title>B</title><entry><title>P</title><link href="/2024/05/p/"/><updated>2024-05-03T00:00:00Z</updated></entry></feed>`,
      {},
      'feed',
      { depth: 0, type: 'application/atom+xml' },
    );
    expect(metaOf(feed, `${ORIGIN}/2024/05/p/`)).toEqual({
      lastmod: Date.UTC(2024, 4, 3),
      scope: false, // the feed source's entries, wherever they are
      userData: { entry: { title: 'P', published: null, updated: '2024-05-03T00:00:00.000Z' } },
    });
    // the entry's page: its item carries the entry
    const entry = await read('/2024/05/p/', ARTICLE, {}, 'page', { userData: { entry: { title: 'P' } } });
    expect(entry.data).toMatchObject({ entry: { title: 'P' } });
  });
});

describe('site names learned from a host’s titles', () => {
  const docsPage = (origin: string, path: string, title: string) =>
    new ResponsePage({
      url: origin + path,
      finalUrl: origin + path,
      status: 200,
      contentType: 'text/html; charset=utf-8',
      headers: {},
      body: Buffer.from(
        `<!doctype html><html><head><title>${title} &#8212; Acme 2.1 documentation</title></head>` +
          `<body><div role="main"><h1>${title}</h1><p>${'Each page of the guide explains one part of Acme. '.repeat(8)}</p></div></body></html>`,
      ),
      depth: 1,
    });

  it('removes the part three pages of the host shared from the titles that follow', async () => {
    const origin = 'http://docs-a.test';
    const titles: unknown[] = [];
    for (const [i, t] of ['Install', 'Tutorial', 'Reference', 'Glossary'].entries()) {
      const r = await readPage(docsPage(origin, `/p${i}.html`, t), ctx({}), 'page');
      titles.push(r.data?.title);
      expect(r.title, 'the item’s title stays the page’s <title>').toBe(`${t} — Acme 2.1 documentation`);
    }
    expect(titles).toEqual([
      'Install — Acme 2.1 documentation',
      'Tutorial — Acme 2.1 documentation',
      'Reference',
      'Glossary',
    ]);
    // another host learns for itself
    const other = await readPage(docsPage('http://docs-b.test', '/x.html', 'Install'), ctx({}), 'page');
    expect(other.data?.title).toBe('Install — Acme 2.1 documentation');
  });

  it('removes it from the Markdown’s title too', async () => {
    const origin = 'http://docs-c.test';
    let last: HandleResult | undefined;
    for (const [i, t] of ['Install', 'Tutorial', 'Reference'].entries())
      last = await readPage(docsPage(origin, `/p${i}.html`, t), ctx({ markdown: 'all' }), 'page');
    expect(last?.data?.title).toBe('Reference');
    expect(last?.markdown?.split('\n')[0]).toBe('# Reference');
  });
});

describe('readHtmlPage: the bytes a page is read from', () => {
  const read = (body: Buffer, contentType: string, path = '/2024/05/06/') =>
    readHtmlPage({ url: ORIGIN + path, finalUrl: ORIGIN + path, contentType, headers: {}, body });
  const DOC = '<title>Café über</title><p>Straße 日本</p><a href="/é/">x</a>';

  it('a UTF-8 page with a byte order mark reads as the same page without it (its sketch too)', () => {
    const plain = read(Buffer.from(DOC), 'text/html');
    const bom = read(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(DOC)]), 'text/html');
    expect(plain).toMatchObject({ title: 'Café über', follow: [`${ORIGIN}/%C3%A9/`] });
    expect(plain.sketch?.length).toBeGreaterThan(0);
    expect(bom).toEqual(plain);
  });

  it('a page in another encoding is decoded by it, and says which', () => {
    const latin = read(Buffer.from(DOC.replace(' 日本', ''), 'latin1'), 'text/html; charset=windows-1252');
    expect(latin).toMatchObject({ title: 'Café über', data: { encoding: 'windows-1252' } });
    // its URLs' queries would be in windows-1252; the path is UTF-8 as in a browser
    expect(latin.follow).toEqual([`${ORIGIN}/%C3%A9/`]);
  });
});
