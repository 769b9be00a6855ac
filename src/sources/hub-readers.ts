/**
 * The hub pages of the built-in sources — robots.txt (its `Sitemap:` lines), sitemaps and feeds —
 * read into the requests they lead to: child sitemaps and feeds are every-round requests (hubs are
 * read again each round, so new pages are found), listed pages carry their `lastmod` (a page
 * fetched before goes again only when it changed since).
 */
import { readFeed } from '../extract/feed.js';
import { readSitemap } from '../extract/sitemap.js';
import type { RequestMeta } from '../frontier/request-meta.js';
import { sitemapsInRobotsTxt } from '../http/robots.js';
import type { EngineRequest } from './request.js';
import type { HandleResult, Page, SourceContext } from './source.js';

/** Labels of the hub requests the built-ins make. */
export const HUB_LABELS = { robots: 'robots', sitemap: 'sitemap', feed: 'feed' } as const;

/** Bounds of hub reading; fixed, named here. */
export const HUB_DEFAULTS = {
  /**
   * Levels of sitemap indexes followed below a seed (the protocol allows one: an index lists
   * urlsets; real sites nest a few more). Deeper indexes are not read (a warning says so).
   */
  maxIndexDepth: 5,
} as const;

/** A request with metadata, as built-ins hand them to the engine (already canonical). */
export function withMeta(url: string, meta: RequestMeta): EngineRequest {
  return Object.keys(meta).length === 0 ? url : { url, meta };
}

/**
 * Priority of a hub among its host's queued URLs: before pages and articles (`ARTICLE_PRIORITY`
 * 10), so that the pages it lists are asked for with what it says of them (`lastmod`, priority),
 * and a hub that a page also links is read as one (the engine labels the queued plain request).
 */
export const HUB_PRIORITY = 20;

/** A navigation file (robots.txt, a sitemap): fetched each round whatever the scope, first. */
function hub(url: string, label: string): EngineRequest {
  return { url, meta: { label, everyRound: true, scope: false, priority: HUB_PRIORITY } };
}

/** The requests that add a site's sitemaps: its robots.txt (for `Sitemap:` lines) and `/sitemap.xml`. */
export function siteSitemaps(pageUrl: string): EngineRequest[] {
  const origin = new URL(pageUrl).origin;
  return [hub(`${origin}/robots.txt`, HUB_LABELS.robots), hub(`${origin}/sitemap.xml`, HUB_LABELS.sitemap)];
}

/** A page of a site: how the source wants it asked for (priority for articles, `lastmod`). */
export type PageRequest = (url: string, lastmod: number | null) => EngineRequest;

/** robots.txt: its `Sitemap:` lines as sitemap requests. */
export function readRobotsHub(page: Page): HandleResult {
  const urls = sitemapsInRobotsTxt(page.text(), page.finalUrl);
  return { follow: urls.map((u) => hub(u, HUB_LABELS.sitemap)) as never[], data: { sitemaps: urls.length } };
}

/**
 * A sitemap or sitemap index (XML, gzip, plain text; see `extract/sitemap.ts`): child sitemaps
 * as every-round requests (within {@link HUB_DEFAULTS}.maxIndexDepth), pages through `request`.
 * The reader's warnings (limits reached, not a sitemap) go to the source's log.
 */
export async function readSitemapHub(
  page: Page,
  ctx: SourceContext,
  request: PageRequest,
): Promise<HandleResult> {
  const sitemap = await readSitemap([page.body], { url: page.finalUrl, contentType: page.contentType });
  for (const w of sitemap.warnings) ctx.log.warn(w, { url: page.url });
  const follow: EngineRequest[] = [];
  if (sitemap.sitemaps.length > 0) {
    if (page.depth >= HUB_DEFAULTS.maxIndexDepth) {
      ctx.log.warn(
        `sitemap index ${page.url} nested deeper than ${HUB_DEFAULTS.maxIndexDepth} levels: not read`,
      );
    } else {
      for (const child of sitemap.sitemaps) follow.push(hub(child.url, HUB_LABELS.sitemap));
    }
  }
  for (const entry of sitemap.urls) follow.push(request(entry.url, entry.lastmod));
  const data: Record<string, unknown> = { sitemap: sitemap.kind, entries: sitemap.count };
  if (sitemap.gzip) data.gzip = true;
  if (sitemap.stopped !== null) data.stopped = sitemap.stopped;
  return { follow: follow as never[], data };
}

/**
 * A feed (RSS, RDF, Atom, JSON Feed): its entries' pages through `request`, each with the entry's
 * title and dates as userData (the entry page's item has them under `data.entry`), and a paged
 * feed's next page. Not a feed: a warning, and nothing followed.
 */
export function readFeedHub(page: Page, ctx: SourceContext, request: PageRequest): HandleResult {
  const feed = readFeed(page.body, page.contentType, page.finalUrl);
  if (feed === null) {
    ctx.log.warn(`${page.url} is not a feed (RSS, Atom or JSON Feed)`);
    return { data: { feed: null } };
  }
  const follow: EngineRequest[] = [];
  for (const e of feed.entries) {
    const changed = e.updated ?? e.published;
    const r = request(e.url, changed === null ? null : Date.parse(changed));
    const userData = { entry: { title: e.title, published: e.published, updated: e.updated } };
    follow.push(
      typeof r === 'string' ? { url: r, meta: { userData } } : { url: r.url, meta: { ...r.meta, userData } },
    );
  }
  if (feed.next !== null) follow.push({ url: feed.next, meta: { label: HUB_LABELS.feed } });
  return {
    title: feed.title,
    follow: follow as never[],
    data: { feed: feed.kind, entries: feed.entries.length },
  };
}
