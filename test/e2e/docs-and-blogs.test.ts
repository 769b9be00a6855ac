/**
 * Docs and blogs that do not run dry (issue 11), end to end over the built CLI against the local
 * blog fixture: `collector run` with the crawl source reading the site's sitemaps and feeds and
 * storing articles as Markdown, two rounds with new and edited posts between them (revisits with
 * conditional requests, or a sitemap's lastmod alone); the `sitemap`, `feed` and `urls` sources
 * by `collector crawl --source`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownerOf } from '../../src/url/ownership.js';
import { type BlogPost, type BlogSite, startBlog } from '../fixtures/blog-site.js';
import { readItems as readAll, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';

type Item = Record<string, any>;

/** The complete item lines written so far (a line being written is not read yet). */
function readItems(out: string): Item[] {
  const dir = path.join(out, 'items');
  if (!fs.existsSync(dir)) return [];
  const items: Item[] = [];
  for (const f of fs.readdirSync(dir)) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const line of text.slice(0, text.lastIndexOf('\n') + 1).split('\n'))
      if (line) items.push(JSON.parse(line));
  }
  return items;
}

let blog: BlogSite;
beforeEach(async () => {
  blog = await startBlog({ posts: 12 });
});
afterEach(async () => {
  await blog.close();
});

/**
 * A config of one crawl worker on the blog, continuous, with the given extra keys. Rounds start on
 * time (`interval` from the previous start, whatever is still queued), and these tests need round 0
 * over before round 1 starts: a page that round 1's hubs find first is round 1's. The first pass
 * takes ~1 s on an idle machine; with two suites at once it took more than 6 s, hence 15 s. Besides,
 * the blog's changes wait for round 1's first request and for the first pass to be complete
 * (`atNextRound` with `firstPassDone`), holding the later rounds' requests meanwhile: no request
 * of the first pass sees them, however late it comes.
 */
function writeConfig(dir: string, data: string, extra: string[]): string {
  const config = path.join(dir, 'collector.yaml');
  fs.writeFileSync(
    config,
    [
      `data: ${data}`,
      'workers:',
      '  - source: crawl',
      '    processes: 1',
      '    delay: 0',
      // Room for round 0's requests beside the requests of later rounds the blog holds.
      '    hostConcurrency: 8',
      '    interval: 15s',
      '    sitemaps: true',
      '    feeds: true',
      `    articlePatterns: ['/\\d{4}/\\d{2}/']`,
      `    seeds: ["${blog.origin}/"]`,
      ...extra.map((l) => `    ${l}`),
      '',
    ].join('\n'),
  );
  return config;
}

const postUrls = () => blog.posts.map((p) => blog.url(p.path));
const ofRound = (items: Item[], round: number) => items.filter((i) => i.data?.round === round);

/**
 * Whether round 0 is done: every post of the blog as it was at the start (`before`) has an item of
 * round 0 (the posts published at round 1's first request are round 1's).
 */
function firstPassDone(data: string, before: readonly BlogPost[]): boolean {
  const got = new Set(ofRound(readItems(data), 0).map((i) => i.url));
  return before.every((p) => got.has(blog.url(p.path)));
}

/** Waits for round 0 to be done (see {@link firstPassDone}). @returns the items of round 0. */
async function firstRound(data: string, before: readonly BlogPost[]): Promise<Item[]> {
  await waitFor(() => firstPassDone(data, before), 60_000).catch((e) => {
    if (process.env.DEBUG_S11)
      console.log(readItems(data).map((i) => [i.url, i.status, JSON.stringify(i.data)]));
    throw e;
  });
  return ofRound(readItems(data), 0);
}

/** Round 1 done: every post (the new ones too) has an item of round 1, or `only` of them. */
async function secondRound(data: string, only?: string[]): Promise<Item[]> {
  const want = only ?? postUrls();
  await waitFor(() => {
    const got = new Set(ofRound(readItems(data), 1).map((i) => i.url));
    return want.every((u) => got.has(u)) && got.has(blog.url('/feed.atom'));
  }, 60_000);
  return readItems(data);
}

describe('docs and blogs: sitemaps, feeds, articles, revisits (collector run)', () => {
  it('round 0: every article once as HTML + Markdown; round 1: the 2 new and the 1 edited, 304 for the rest', async () => {
    const dir = tempDir();
    const data = path.join(dir, 'data');
    // The posts as they are in round 0 (the change below edits one in place and adds two).
    const before = structuredClone(blog.posts);
    // Between the rounds, 2 posts are published and one edited (round 1 may start before the
    // test has read round 0: the change waits for round 1's first request, not for the test).
    const changes = blog.atNextRound(
      () => {
        const added = blog.publish(2);
        const edited = blog.edit('post-05');
        blog.clearLog();
        return { added, edited };
      },
      () => firstPassDone(data, before),
    );
    const child = startCli(['run', '--config', writeConfig(dir, data, ['revisit: 1ms']), '--quiet']);
    const exited = waitExit(child);
    try {
      const first = await firstRound(data, before);
      // every article once, as HTML with its Markdown, title, author and date
      for (const post of before) {
        const items = first.filter((i) => i.url === blog.url(post.path));
        expect(items).toHaveLength(1);
        const it = items[0];
        expect(it).toMatchObject({ status: 200, data: { article: true, version: 1, round: 0 } });
        expect(it.data).toMatchObject({
          title: post.title,
          author: post.author,
          published: new Date(post.published).toISOString(),
        });
        // A worker with rounds keeps every version of a page under its own immutable name (issue 18):
        // the item names that version, and the page's own path is a link to its current version.
        expect(it.file).toMatch(/^files\/[^/]+\/_versions\/[0-9a-f]{16}\/[0-9a-f]{16}\.html$/);
        expect(it.data.markdown).toMatch(/^files\/[^/]+\/_versions\/[0-9a-f]{16}\/[0-9a-f]{16}\.md$/);
        expect(path.dirname(it.data.markdown)).toBe(path.dirname(it.file));
        const md = fs.readFileSync(path.join(data, it.data.markdown), 'utf8');
        expect(md.startsWith(`# ${post.title}`)).toBe(true);
        expect(md).toContain(`(${post.slug})`);
      }
      // the hubs: robots.txt, the index, its gzipped child listed twice (once), the text sitemap, both feeds
      for (const hub of [
        '/robots.txt',
        '/sitemap_index.xml',
        '/sitemap-posts.xml.gz',
        '/sitemap.txt',
        '/feed.atom',
        '/feed.rss',
      ]) {
        expect(first.filter((i) => i.url === blog.url(hub) && i.data.round === 0)).toHaveLength(1);
      }
      expect(first.find((i) => i.url === blog.url('/sitemap-posts.xml.gz'))!.data).toMatchObject({
        sitemap: 'urlset',
        gzip: true,
        entries: 12,
      });

      const { added, edited } = await changes;
      const items = await secondRound(data);
      const log = [...blog.log];
      const round1 = ofRound(items, 1);
      // the hubs were fetched again
      for (const hub of ['/', '/sitemap_index.xml', '/sitemap-posts.xml.gz', '/feed.atom', '/feed.rss']) {
        expect(log.some((r) => r.path === hub && r.status === 200)).toBe(true);
      }
      // exactly the 2 new and the 1 edited article collected (a 200 with a new body)
      const collected = round1
        .filter((i) => i.data.article === true && i.status === 200 && i.data.unchanged !== true)
        .map((i) => i.url)
        .sort();
      expect(collected).toEqual([...added.map((p) => blog.url(p.path)), blog.url(edited.path)].sort());
      const editedItem = round1.find((i) => i.url === blog.url(edited.path))!;
      expect(editedItem.data).toMatchObject({ version: 2, title: edited.title });
      expect(fs.readFileSync(path.join(data, editedItem.data.markdown), 'utf8')).toContain('Update:');
      for (const p of added) expect(round1.find((i) => i.url === blog.url(p.path))!.data.version).toBe(1);
      // every other article: one conditional request, answered 304, an unchanged item, nothing stored
      for (const post of blog.posts) {
        if (post === edited || added.includes(post)) continue;
        const reqs = log.filter((r) => r.path === post.path);
        expect(reqs.map((r) => r.status)).toEqual([304]);
        expect(reqs[0].ifNoneMatch).toMatch(/^"[0-9a-f]{16}"$/);
        const it = round1.find((i) => i.url === blog.url(post.path))!;
        expect(it).toMatchObject({ status: 304, bytes: 0, data: { unchanged: true, version: 1, round: 1 } });
        expect(it.file).toBeUndefined();
      }
      // new posts: asked for without validators
      for (const p of added) {
        expect(log.filter((r) => r.path === p.path).map((r) => [r.status, r.ifNoneMatch])).toEqual([
          [200, null],
        ]);
      }
    } finally {
      child.kill('SIGTERM');
      expect((await exited).code).toBe(0);
    }
  });

  it('without revisit, a later round fetches only what the sitemap and feed say changed (lastmod)', async () => {
    const dir = tempDir();
    const data = path.join(dir, 'data');
    const before = structuredClone(blog.posts);
    const changes = blog.atNextRound(
      () => {
        const added = blog.publish(2);
        const edited = blog.edit('post-03');
        blog.clearLog();
        return { added, edited };
      },
      () => firstPassDone(data, before),
    );
    const child = startCli(['run', '--config', writeConfig(dir, data, []), '--quiet']);
    const exited = waitExit(child);
    try {
      await firstRound(data, before);
      const { added, edited } = await changes;
      const changed = [...added.map((p) => blog.url(p.path)), blog.url(edited.path)];
      const items = await secondRound(data, changed);
      const log = [...blog.log];
      for (const post of blog.posts) {
        const n = log.filter((r) => r.path === post.path).length;
        expect([post.slug, n]).toEqual([post.slug, post === edited || added.includes(post) ? 1 : 0]);
      }
      const it = ofRound(items, 1).find((i) => i.url === blog.url(edited.path))!;
      expect(it.data).toMatchObject({ version: 2, article: true });
      // the edited page was asked for conditionally (it was known), and answered 200
      expect(log.find((r) => r.path === edited.path)!.ifNoneMatch).not.toBeNull();
      // a round where nothing changed: the seed is unchanged, yet the hubs below it are read again
      await waitFor(() => {
        const r2 = ofRound(readItems(data), 2);
        const seed = r2.find((i) => i.url === blog.url('/'));
        return seed?.data.unchanged === true && r2.some((i) => i.url === blog.url('/sitemap-posts.xml.gz'));
      }, 60_000);
    } finally {
      child.kill('SIGTERM');
      expect((await exited).code).toBe(0);
    }
  });
});

describe('built-in sources by collector crawl --source', () => {
  const crawl = (out: string, ...args: string[]) =>
    runCli(['crawl', '--processes', '1', '--out', out, '--delay', '0', '--quiet', ...args]);
  void readAll;

  for (const mode of ['application/gzip', 'content-encoding', 'both'] as const) {
    it(`sitemap: from robots.txt, the index, its gzipped child (${mode}) once, the text sitemap: every page once`, async () => {
      blog.setGzipMode(mode);
      const out = tempDir();
      const r = await crawl(out, '--source', 'sitemap', blog.url('/robots.txt'));
      expect(r.code).toBe(0);
      const items = readItems(out);
      const urls = items.map((i) => i.url);
      for (const u of [...postUrls(), blog.url('/about/'), blog.url('/archive/page/1/')]) {
        expect(urls.filter((x) => x === u)).toHaveLength(1);
      }
      expect(blog.statusesFor('/sitemap-posts.xml.gz')).toEqual([200]);
      // pages listed are fetched, their links not followed (follow: none)
      expect(items.every((i) => i.source === 'sitemap' && i.error === undefined)).toBe(true);
      expect(urls).not.toContain(blog.url('/feed.atom'));
    });
  }

  it('feed: the entries of an Atom feed, with their title and dates in data.entry, as articles', async () => {
    const out = tempDir();
    const r = await crawl(
      out,
      '--source',
      'feed',
      '--article-pattern',
      '/\\d{4}/\\d{2}/',
      blog.url('/feed.atom'),
    );
    expect(r.code).toBe(0);
    const items = readItems(out);
    const entries = items.filter((i) => i.data?.entry !== undefined);
    expect(entries).toHaveLength(10); // the feed's size
    const newest = [...blog.posts].sort((a, b) => b.published - a.published)[0];
    const it = entries.find((i) => i.url === blog.url(newest.path))!;
    expect(it.data.entry).toEqual({
      title: newest.title,
      published: new Date(newest.published).toISOString(),
      updated: new Date(newest.updated).toISOString(),
    });
    expect(it.data).toMatchObject({ article: true, author: newest.author });
    expect(fs.existsSync(path.join(out, it.data.markdown))).toBe(true);
    expect(items.find((i) => i.url === blog.url('/feed.atom'))!.data).toMatchObject({
      feed: 'atom',
      entries: 10,
    });
  });

  it('feed: an RSS feed', async () => {
    const out = tempDir();
    const r = await crawl(out, '--source', 'feed', blog.url('/feed.rss'));
    expect(r.code).toBe(0);
    expect(readItems(out).filter((i) => i.data?.entry !== undefined)).toHaveLength(10);
  });

  it('urls: a file of URLs (comments, duplicates), each once, split across 2 processes; articles read inline', async () => {
    const out = tempDir();
    const list = path.join(tempDir(), 'list.txt');
    // Split by URL (one host): three URLs of each owner, so that both processes have work whatever
    // the fixture's port (six taken in order were all one process's 3% of the time).
    const urls = blog.posts.map((p) => blog.url(p.path));
    const wanted = [0, 1].flatMap((owner) => urls.filter((u) => ownerOf(u, 2, 'url') === owner).slice(0, 3));
    fs.writeFileSync(list, `# posts\n${wanted.join('\n')}\n${wanted[0]}\n\n`);
    const r = await runCli([
      'crawl',
      '--source',
      'urls',
      '--source-option',
      `urls=${list}`,
      '--article-pattern',
      '/\\d{4}/',
      '--processes',
      '2', // two processes on a 2-core box: pages are read inline, not in a page thread
      '--out',
      out,
      '--delay',
      '0',
      '--quiet',
    ]);
    expect(r.code).toBe(0);
    const items = readItems(out);
    expect(items.map((i) => i.url).sort()).toEqual([...wanted].sort());
    expect(new Set(items.map((i) => i.worker)).size).toBe(2);
    for (const it of items) expect(it.worker.endsWith(`-${ownerOf(it.url, 2, 'url')}`), it.url).toBe(true);
    for (const it of items)
      expect(fs.readFileSync(path.join(out, it.data.markdown), 'utf8')).toMatch(/^# Post number/);
  });

  it('urls: a missing file is a one-line usage error', async () => {
    const out = tempDir();
    const r = await runCli(['crawl', '--source', 'urls', '--source-option', 'urls=./nope.txt', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/nope\.txt: no such file/);
  });
});
