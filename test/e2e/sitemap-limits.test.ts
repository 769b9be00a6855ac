/**
 * The `sitemap` source against messy and oversized sitemaps, end to end over the built CLI: an
 * index that lists itself and a child that lists the index again (each sitemap read once), a
 * sitemap of 50,001 URLs (the protocol's 50,000 kept, a warning), a gzipped sitemap of 60 MB
 * uncompressed (read up to the protocol's 50 MB as a stream, a warning; the worker's memory stays
 * far below the file's size).
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, runCli, tempDir } from '../fixtures/cli.js';
import { REAL_BLOG_ORIGIN, startRealBlog } from '../fixtures/real-blog.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

let site: FixtureServer;
let big: Buffer;
const BIG_BYTES = 60 * 1024 * 1024;

const xml =
  (body: string, type = 'application/xml') =>
  (_q: unknown, r: import('node:http').ServerResponse) => {
    r.writeHead(200, { 'content-type': type });
    r.end(body);
  };

beforeAll(async () => {
  const origin = () => site.origin;
  const entry = (i: number) => `<url><loc>${origin()}/p/${i}</loc></url>\n`;
  site = await startServer(
    {
      // an index listing itself, a child, and the child again; the child lists the index back
      '/index.xml': (q, r) =>
        xml(
          `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>${origin()}/index.xml</loc></sitemap><sitemap><loc>${origin()}/child.xml</loc></sitemap>
<sitemap><loc>${origin()}/child.xml</loc></sitemap></sitemapindex>`,
        )(q, r),
      '/child.xml': (q, r) =>
        xml(
          `\uFEFF <urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc> ${origin()}/a </sm:loc></sm:url>
<sitemap><loc>${origin()}/index.xml</loc></sitemap><url><loc>/b</loc><lastmod>2024-02-30</lastmod></url></urlset>`,
        )(q, r),
      '/robots.txt': (q, r) =>
        xml(`User-agent: *\nAllow: /\n\nSitemap: ${origin()}/sm-site.xml\n`, 'text/plain')(q, r),
      '/sm-site.xml': (q, r) =>
        xml(
          `<urlset><url><loc>${origin()}/docs/listed</loc></url><url><loc>${origin()}/other/listed</loc></url></urlset>`,
        )(q, r),
      '/many.xml': (q, r) =>
        xml(`<urlset>${Array.from({ length: 50_001 }, (_, i) => entry(i)).join('')}</urlset>`)(q, r),
      '/big.xml.gz': (_q, r) => {
        r.writeHead(200, { 'content-type': 'application/x-gzip' });
        r.end(big);
      },
    },
    (req, res) => html(page(`Page ${req.url}`, []))(req, res),
  );
  // entries of ~1.5 KB (an image caption each): 50 MB holds fewer than 50,000 of them
  const unit = `<url><loc>${site.origin}/p/x</loc><image:caption>${'x'.repeat(1500)}</image:caption></url>\n`;
  big = gzipSync(`<urlset>${unit.repeat(Math.ceil(BIG_BYTES / unit.length))}</urlset>`);
});

afterAll(async () => {
  await site.close();
});

const crawl = (out: string, ...args: string[]) =>
  runCli([
    'crawl',
    '--source',
    'sitemap',
    '--processes',
    '1',
    '--out',
    out,
    '--delay',
    '0',
    '--quiet',
    '--no-robots',
    ...args,
  ]);

/** The worker's log lines (JSON) under `<out>/logs`. */
function logLines(out: string): Array<Record<string, any>> {
  const dir = path.join(out, 'logs');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n'))
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

describe('sitemap source: cycles and limits', () => {
  it('an index cycle and a child listed twice: each sitemap and each page fetched once', async () => {
    const out = tempDir();
    const r = await crawl(out, `${site.origin}/index.xml`);
    expect(r.code).toBe(0);
    expect(site.hits('/index.xml')).toBe(1);
    expect(site.hits('/child.xml')).toBe(1);
    const urls = readItems(out)
      .map((i) => i.url)
      .sort();
    expect(urls).toEqual([
      `${site.origin}/a`,
      `${site.origin}/b`,
      `${site.origin}/child.xml`,
      `${site.origin}/index.xml`,
    ]);
  });

  it('crawl --sitemaps from /docs/: robots.txt and the sitemaps are read whatever the scope, the pages they list are checked against it', async () => {
    const out = tempDir();
    const r = await runCli([
      'crawl',
      '--sitemaps',
      '--processes',
      '1',
      '--out',
      out,
      '--delay',
      '0',
      '--quiet',
      `${site.origin}/docs/`,
    ]);
    expect(r.code).toBe(0);
    const urls = readItems(out)
      .map((i) => i.url)
      .sort();
    expect(urls).toEqual(
      ['/docs/', '/docs/listed', '/robots.txt', '/sitemap.xml', '/sm-site.xml'].map((p) => site.origin + p),
    );
    expect(site.hits('/other/listed')).toBe(0);
  });

  it('50,001 URLs: the first 50,000 read, the rest refused with a warning', async () => {
    const out = tempDir();
    // --max-depth 0: the listed pages are not fetched (50,000 pages would take a while); the
    // sitemap's item says what was read.
    const r = await crawl(out, '--max-depth', '0', `${site.origin}/many.xml`);
    expect(r.code).toBe(0);
    const item = readItems(out).find((i) => i.url === `${site.origin}/many.xml`)!;
    expect(item.data).toMatchObject({ sitemap: 'urlset', entries: 50_000, stopped: 'max-urls' });
    expect(logLines(out).some((l) => l.level === 40 && /more than 50000 entries/.test(l.msg))).toBe(true);
  });

  it('a gzipped 60 MB sitemap: read as a stream up to 50 MB, the rest refused with a warning', async () => {
    const out = tempDir();
    const r = await crawl(out, '--max-depth', '0', `${site.origin}/big.xml.gz`);
    expect(r.code).toBe(0);
    const item = readItems(out).find((i) => i.url === `${site.origin}/big.xml.gz`)!;
    expect(item.data).toMatchObject({ sitemap: 'urlset', gzip: true, stopped: 'max-bytes' });
    expect(item.data.entries).toBeGreaterThan(30_000);
    expect(item.data.entries).toBeLessThan(40_000);
    expect(item.bytes).toBe(big.length);
    expect(
      logLines(out).some((l) => l.level === 40 && /big\.xml\.gz is larger than 52428800 bytes/.test(l.msg)),
    ).toBe(true);
  });
});

describe('a local copy of a real blog (WordPress + Yoast): sitemap and feed round-trip', () => {
  it('robots.txt → index → children: every listed URL once; the feed: every entry, all of them in the sitemap', async () => {
    const blog = await startRealBlog();
    try {
      const listed = new Set<string>();
      const dir = path.join(import.meta.dirname, '../fixtures/real-blog');
      for (const f of fs.readdirSync(dir).filter((f) => /-sitemap\.xml$/.test(f))) {
        for (const m of fs.readFileSync(path.join(dir, f), 'utf8').matchAll(/<loc>([^<]+)<\/loc>/g)) {
          if (!/\.(jpe?g|png|gif|webp)$/i.test(m[1]))
            listed.add(m[1].trim().replace(REAL_BLOG_ORIGIN, blog.origin));
        }
      }
      const out = tempDir();
      expect((await crawl(out, `${blog.origin}/robots.txt`)).code).toBe(0);
      const items = readItems(out);
      const pages = items.filter(
        (i) => i.data?.sitemap === undefined && i.url !== `${blog.origin}/robots.txt`,
      );
      expect(new Set(pages.map((i) => i.url))).toEqual(listed);
      expect(pages).toHaveLength(listed.size);
      const feedOut = tempDir();
      const r = await runCli([
        'crawl',
        '--source',
        'feed',
        '--processes',
        '1',
        '--out',
        feedOut,
        '--delay',
        '0',
        '--quiet',
        '--no-robots',
        `${blog.origin}/feed/`,
      ]);
      expect(r.code).toBe(0);
      const entries = readItems(feedOut).filter((i) => i.data?.entry !== undefined);
      expect(entries.length).toBeGreaterThan(5);
      for (const e of entries) {
        expect(listed.has(e.url)).toBe(true);
        expect(e.status).toBe(200);
        expect(e.data.entry.title).toEqual(expect.any(String));
      }
    } finally {
      await blog.close();
    }
  });
});
