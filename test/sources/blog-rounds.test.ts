/**
 * Two rounds over the local blog fixture with the modules a sitemap/feed/article source is built
 * from (robots `Sitemap:` lines, sitemap reader and round, feed discovery and reader, article
 * extraction, revisit policy), driven by a plain loop instead of the engine: what the first round
 * collects, and that the second round, after two posts are published and one edited, fetches the
 * hubs again, collects exactly the new and the edited posts, and gets 304 for the rest.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileArticlePatterns, extractArticle, isArticleUrl } from '../../src/extract/article.js';
import { readFeed } from '../../src/extract/feed.js';
import { discoverFeeds } from '../../src/extract/feed-links.js';
import { readSitemap } from '../../src/extract/sitemap.js';
import { type PageRecord, RevisitPolicy } from '../../src/frontier/revisit-policy.js';
import { sitemapsInRobotsTxt } from '../../src/http/robots.js';
import { SitemapRound } from '../../src/sources/sitemap-round.js';
import { type BlogSite, startBlog } from '../fixtures/blog-site.js';

interface Response {
  status: number;
  body: Buffer;
  contentType: string | null;
  etag: string | null;
  lastModified: string | null;
}

/** GET over loopback; fetch removes Content-Encoding as the collector's fetcher does. */
async function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(url, { headers: { 'accept-encoding': 'gzip', ...headers } });
  return {
    status: res.status,
    body: Buffer.from(await res.arrayBuffer()),
    contentType: res.headers.get('content-type'),
    etag: res.headers.get('etag'),
    lastModified: res.headers.get('last-modified'),
  };
}

const ARTICLES = compileArticlePatterns(['/\\d{4}/\\d{2}/']);

/** What the loop keeps between rounds: the policy's records, and the articles it stored. */
interface State {
  records: Map<string, PageRecord>;
  articles: Map<
    string,
    { title: string | null; author: string | null; published: string | null; version: number }
  >;
}

/**
 * One round: hubs (robots.txt, sitemaps, feeds, home) fetched again; the pages they list fetched
 * when new, changed by lastmod, or due for a revisit (conditionally); articles extracted.
 * @returns the article URLs collected (200) and those found unchanged (304) this round.
 */
async function round(blog: BlogSite, state: State, policy: RevisitPolicy, now: number) {
  const sm = new SitemapRound({ lastFetched: (u) => state.records.get(u)?.fetchedAt });
  const candidates = new Set<string>();

  const robots = await get(blog.url('/robots.txt'));
  const queue = sitemapsInRobotsTxt(robots.body.toString(), blog.url('/robots.txt'))
    .filter((u) => sm.seed(u))
    .map((url) => ({ url, depth: 0 }));
  while (queue.length > 0) {
    const { url, depth } = queue.shift()!;
    const res = await get(url);
    const sitemap = await readSitemap([res.body], { url, contentType: res.contentType });
    for (const child of sm.children(sitemap.sitemaps, depth))
      queue.push({ url: child.url, depth: depth + 1 });
    for (const page of sm.pagesOf(sitemap.urls)) candidates.add(page.url);
  }

  const home = await get(blog.url('/'));
  for (const link of discoverFeeds(home.body.toString(), blog.url('/'))) {
    const res = await get(link.url);
    const feed = readFeed(res.body, res.contentType, link.url)!;
    for (const entry of feed.entries) candidates.add(entry.url);
  }
  // known pages due for a revisit come back even when no hub lists them as changed
  for (const record of state.records.values()) if (policy.isDue(record, now)) candidates.add(record.url);

  const collected: string[] = [];
  const unchanged: string[] = [];
  for (const url of [...candidates].filter((u) => isArticleUrl(u, ARTICLES)).sort()) {
    const record = state.records.get(url);
    const res = await get(url, policy.conditionalHeaders(record));
    const sha256 = res.status === 200 ? createHash('sha256').update(res.body).digest('hex') : null;
    const out = policy.observe(record, url, { ...res, sha256, at: now });
    if (out.record) state.records.set(url, out.record);
    if (out.outcome === 'unchanged') unchanged.push(url);
    if (out.outcome === 'new' || out.outcome === 'changed') {
      const article = extractArticle(res.body.toString(), url);
      expect(article.markdown).toMatch(/^# /);
      state.articles.set(url, { ...article, version: out.record!.version });
      collected.push(url);
    }
  }
  return { collected, unchanged, skipped: sm.skipped };
}

describe('blog fixture, two rounds with the source modules', () => {
  let blog: BlogSite;
  beforeEach(async () => {
    blog = await startBlog({ posts: 12, gzipMode: 'application/gzip' });
  });
  afterEach(async () => {
    await blog.close();
  });

  it('collects every article once, then exactly the 2 new and the 1 edited, with 304 for the rest', async () => {
    const DAY = 86_400_000;
    const policy = new RevisitPolicy({ intervalMs: DAY });
    const state: State = { records: new Map(), articles: new Map() };
    const t0 = Date.now();

    const first = await round(blog, state, policy, t0);
    const allPosts = blog.posts.map((p) => blog.url(p.path)).sort();
    expect(first.collected).toEqual(allPosts);
    expect(first.unchanged).toEqual([]);
    // the index lists the gzipped posts sitemap twice: fetched once
    expect(blog.statusesFor('/sitemap-posts.xml.gz')).toEqual([200]);
    expect(first.skipped.seen).toBeGreaterThan(0);
    for (const post of blog.posts) {
      const a = state.articles.get(blog.url(post.path))!;
      expect(a).toMatchObject({
        title: post.title,
        author: post.author,
        published: new Date(post.published).toISOString(),
        version: 1,
      });
    }
    // the 12 posts: once each
    for (const post of blog.posts) expect(blog.statusesFor(post.path)).toEqual([200]);

    const added = blog.publish(2);
    const edited = blog.edit('post-05');
    blog.clearLog();
    const second = await round(blog, state, policy, t0 + DAY);

    const addedUrls = added.map((p) => blog.url(p.path));
    expect(second.collected.sort()).toEqual([...addedUrls, blog.url(edited.path)].sort());
    expect(state.articles.get(blog.url(edited.path))).toMatchObject({ title: edited.title, version: 2 });
    // hubs fetched again
    for (const hub of [
      '/robots.txt',
      '/sitemap_index.xml',
      '/sitemap-posts.xml.gz',
      '/feed.atom',
      '/feed.rss',
    ]) {
      expect(blog.statusesFor(hub)).toEqual([200]);
    }
    // every other post: one conditional request, answered 304
    for (const post of blog.posts) {
      if (post === edited || added.includes(post)) continue;
      expect(blog.statusesFor(post.path)).toEqual([304]);
      const req = blog.log.find((r) => r.path === post.path)!;
      expect(req.ifNoneMatch).toMatch(/^"[0-9a-f]{16}"$/);
      expect(req.ifModifiedSince).toBeNull(); // the ETag is preferred
    }
    expect(second.unchanged).toHaveLength(11);
    for (const post of added) {
      const req = blog.log.find((r) => r.path === post.path)!;
      expect([req.status, req.ifNoneMatch]).toEqual([200, null]);
    }
  });

  for (const mode of ['content-encoding', 'both'] as const) {
    it(`reads the gzipped posts sitemap served with ${mode}`, async () => {
      blog.setGzipMode(mode);
      const res = await get(blog.url('/sitemap-posts.xml.gz'));
      const sitemap = await readSitemap([res.body], {
        url: blog.url('/sitemap-posts.xml.gz'),
        contentType: res.contentType,
      });
      expect(sitemap.gzip).toBe(mode === 'both'); // one gzip layer left after Content-Encoding
      expect(sitemap.urls.map((e) => e.url).sort()).toEqual(blog.posts.map((p) => blog.url(p.path)).sort());
      expect(blog.log.at(-1)!.acceptEncoding).toMatch(/gzip/);
    });
  }

  it('serves a plain-text sitemap and paginated archives', async () => {
    const text = await readSitemap([(await get(blog.url('/sitemap.txt'))).body], {
      url: blog.url('/sitemap.txt'),
    });
    expect(text.kind).toBe('text');
    expect(text.count).toBe(13);
    const page3 = (await get(blog.url('/archive/page/3/'))).body.toString();
    expect(page3).toContain('rel="prev" href="/archive/page/2/"');
    expect(page3).not.toContain('rel="next"');
    expect((await get(blog.url('/archive/page/4/'))).status).toBe(404);
  });
});
