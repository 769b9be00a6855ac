/**
 * How the built-in sources (`crawl`, `sitemap`, `feed`, `urls`) read a response: hubs by their
 * label (robots.txt, sitemaps, feeds: `hub-readers.ts`), HTML pages by `readHtmlPage`, and, with
 * `articlePatterns`, articles: marked (`data.article`), asked for before other pages of their
 * host (priority), their main content stored as Markdown next to the HTML with title, author and
 * dates. Their shared options are defined here.
 */
import * as z from 'zod';
import { compileArticlePatterns, isArticleUrl } from '../extract/article.js';
import { discoverFeeds } from '../extract/feed-links.js';
import { extractContent, type PageContent } from '../extract/page-content.js';
import { statedMetadata } from '../extract/page-metadata.js';
import { simhash64 } from '../extract/simhash.js';
import { contentLanguageOf, learnedSiteNames, readHtmlPage } from './html-page.js';
import {
  HUB_LABELS,
  HUB_PRIORITY,
  type PageRequest,
  readFeedHub,
  readRobotsHub,
  readSitemapHub,
  siteSitemaps,
  withMeta,
} from './hub-readers.js';
import type { EngineRequest } from './request.js';
import type { HandleResult, Page, SourceContext } from './source.js';

/** Priority of an article among its host's queued URLs (other pages have 0). */
export const ARTICLE_PRIORITY = 10;

/** Which links of a page are followed. */
export type FollowMode = 'all' | 'articles' | 'none';

/** Which HTML pages get their main content stored as Markdown (with their metadata in `data`). */
export type MarkdownMode = 'all' | 'articles' | 'none';

/** A regular expression's source, checked to compile. */
const pattern = z.string().superRefine((v, ctx) => {
  try {
    new RegExp(v);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: `invalid regular expression "${v}": ${(e as Error).message}` });
  }
});

/**
 * The options every built-in reads pages with.
 * @param follow the source's default `follow`.
 */
export function pageOptionKeys(follow: FollowMode) {
  return {
    /**
     * Regular expressions tested on a URL's path and query: matching pages are articles
     * (`data.article`, Markdown, title/author/dates, fetched first). Default none.
     */
    articlePatterns: z.array(pattern).default([]),
    /**
     * Links followed from a page: `all`; `articles` (from an article page only links to articles;
     * other pages — listings, archives — still lead everywhere); `none` (only hubs: sitemaps,
     * feeds).
     */
    follow: z.enum(['all', 'articles', 'none']).default(follow),
    /** Follow the feeds a page announces (`<link rel="alternate" type="…rss+xml|atom+xml">`). Default false. */
    feeds: z.boolean().default(false),
    /** Read each seed's site sitemaps (robots.txt `Sitemap:` lines and `/sitemap.xml`). Default false. */
    sitemaps: z.boolean().default(false),
    /**
     * Which HTML pages get their main content stored as Markdown beside the body (`data.markdown`),
     * with its word count and SimHash and the metadata their body states too (every HTML page has
     * what its markup's head states, `html-page.ts`): `all`, `articles` (pages matching
     * `articlePatterns`), `none`. Default `articles`.
     */
    markdown: z.enum(['all', 'articles', 'none']).default('articles'),
  };
}

/** The parsed page options. */
export interface PageOptions {
  articlePatterns: string[];
  follow: FollowMode;
  feeds: boolean;
  sitemaps: boolean;
  markdown: MarkdownMode;
}

/** What an unlabelled seed (depth 0) of a source is: a page, or a robots.txt / sitemap / feed to read. */
export type SeedKind = 'page' | 'robots' | 'sitemap' | 'feed';

/** Options read from a context, with their patterns compiled: once per options object. */
const readOptions = new WeakMap<object, { o: PageOptions; patterns: RegExp[] }>();

/**
 * The page options of a context: its parsed options, or the defaults for keys it lacks (a user
 * source calling `crawlSource.handle` with a context of its own).
 */
function optionsOf(raw: Record<string, unknown>): { o: PageOptions; patterns: RegExp[] } {
  let r = readOptions.get(raw);
  if (r === undefined) {
    const o: PageOptions = {
      articlePatterns: Array.isArray(raw.articlePatterns) ? (raw.articlePatterns as string[]) : [],
      follow: raw.follow === 'articles' || raw.follow === 'none' ? raw.follow : 'all',
      feeds: raw.feeds === true,
      sitemaps: raw.sitemaps === true,
      markdown: raw.markdown === 'all' || raw.markdown === 'none' ? raw.markdown : 'articles',
    };
    r = { o, patterns: compileArticlePatterns(o.articlePatterns) };
    readOptions.set(raw, r);
  }
  return r;
}

/** Whether nothing beyond the plain crawl is asked for (its hot path then runs alone). */
function plain(o: PageOptions): boolean {
  return (
    o.articlePatterns.length === 0 && o.follow === 'all' && !o.feeds && !o.sitemaps && o.markdown !== 'all'
  );
}

/**
 * Read one response for a built-in source (see the module comment).
 * @param seedKind what an unlabelled seed is (the `sitemap` source's seeds are sitemaps).
 */
export function readPage(
  page: Page,
  ctx: SourceContext,
  seedKind: SeedKind,
): HandleResult | Promise<HandleResult> {
  const { o, patterns } = optionsOf(ctx.options);
  // The `feed` source's entries are what it is asked for, wherever they are (a feed at /feed/
  // lists posts elsewhere on the site): they are not checked against the scope.
  const anywhere = seedKind === 'feed' ? { scope: false as const } : {};
  const request: PageRequest = (url, lastmod) =>
    withMeta(url, {
      ...(isArticleUrl(url, patterns) ? { priority: ARTICLE_PRIORITY } : {}),
      ...(lastmod === null ? {} : { lastmod }),
      ...anywhere,
    });
  const kind = page.label ?? (page.depth === 0 ? seedKind : 'page');
  if (kind === HUB_LABELS.robots) return readRobotsHub(page);
  if (kind === HUB_LABELS.sitemap) return readSitemapHub(page, ctx, request);
  if (kind === HUB_LABELS.feed) return readFeedHub(page, ctx, request);
  const result = readHtmlPage(page);
  if (plain(o) && page.userData === undefined) return result;
  return readHtml(page, o, patterns, result);
}

/** The `data` fields of a page's content: those the page states, its word count and its text's SimHash. */
function contentData(c: PageContent): Record<string, unknown> {
  const data: Record<string, unknown> = statedMetadata(c);
  if (c.markdown !== null) {
    data.words = c.words;
    // the fingerprint the engine marks near-duplicates by (`data.nearDuplicateOf`)
    const fingerprint = simhash64(c.text);
    if (fingerprint !== null) data.simhash = fingerprint;
  }
  return data;
}

/** An HTML page with the options: articles, follow mode, priorities, feeds, sitemaps. */
function readHtml(page: Page, o: PageOptions, patterns: RegExp[], result: HandleResult): HandleResult {
  const data: Record<string, unknown> = { ...result.data };
  const entry = (page.userData as { entry?: unknown } | undefined)?.entry;
  if (entry !== undefined) data.entry = entry;
  const html = result.follow !== undefined; // readHtmlPage follows only from HTML
  const article = html && isArticleUrl(page.url, patterns);
  let links = (result.follow ?? []) as EngineRequest[];
  if (article) data.article = true;
  const markdown = o.markdown === 'all' ? html : o.markdown === 'articles' && article;
  if (markdown) {
    const c = extractContent(page.text(), page.finalUrl, {
      contentLanguage: contentLanguageOf(page.headers),
      siteNames: learnedSiteNames(page.finalUrl),
    });
    for (const [key, value] of Object.entries(contentData(c))) data[key] = value;
    if (article && c.modified !== null) data.updated = c.modified; // the field's name before `modified`
    if (c.markdown !== null) result.markdown = c.markdown;
    // links in the Markdown are mostly the HTML's own; any others are discovered too
    const known = new Set(links.map((l) => (typeof l === 'string' ? l : l.url)));
    links = [...links, ...c.links.filter((l) => !known.has(l))];
  }
  const isArticle = (r: EngineRequest) => isArticleUrl(typeof r === 'string' ? r : r.url, patterns);
  if (o.follow === 'none') links = [];
  else if (o.follow === 'articles' && article) links = links.filter(isArticle);
  // The hubs to read: the feeds the page announces, a seed's site sitemaps.
  const hubs: EngineRequest[] = [];
  if (html && o.feeds) {
    for (const f of discoverFeeds(page.text(), page.finalUrl)) {
      hubs.push({ url: f.url, meta: { label: HUB_LABELS.feed, everyRound: true, priority: HUB_PRIORITY } });
    }
  }
  if (html && o.sitemaps && page.depth === 0) hubs.push(...siteSitemaps(page.finalUrl));
  // A hub is often a link of the page too (a feed's `<link rel="alternate">`, a footer's link to
  // /sitemap.xml); the frontier keeps the first request for a URL, so that plain link would be
  // fetched as a page and the hub never read: the labelled request goes instead of it.
  const urlOf = (r: EngineRequest) => (typeof r === 'string' ? r : r.url);
  if (hubs.length > 0) {
    const hubUrls = new Set(hubs.map(urlOf));
    links = links.filter((l) => !hubUrls.has(urlOf(l)));
  }
  const follow: EngineRequest[] = links.map((l) =>
    typeof l === 'string' && isArticle(l) ? { url: l, meta: { priority: ARTICLE_PRIORITY } } : l,
  );
  follow.push(...hubs);
  const out: HandleResult = { ...result, follow: follow as never[] };
  if (Object.keys(data).length > 0) out.data = data;
  return out;
}
