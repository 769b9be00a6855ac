/**
 * GitHub trending pages: their URLs, and the repositories a page lists, read with CSS selectors
 * over htmlparser2's DOM (css-select). Only an entry's heading link counts as a repository; the
 * page's menus, sponsor and star buttons, "Built by" avatars and links in comments never do.
 */
import { selectAll, selectOne } from 'css-select';
import type { AnyNode, Element } from 'domhandler';
import { DomUtils, parseDocument } from 'htmlparser2';
import { joinBase } from '../url/join-base.js';
import { type RepoRef, repoOfWebUrl } from './github-repo.js';

/** The periods trending pages are computed over (`?since=`). */
export const TRENDING_PERIODS = ['daily', 'weekly', 'monthly'] as const;
/** One trending period. */
export type TrendingPeriod = (typeof TRENDING_PERIODS)[number];

/**
 * Selectors for GitHub's trending markup as of 2024–2025: each listed repository is an
 * `article.Box-row` whose heading (`h2.h3`, older `h1.h3`) links to `/owner/repo`; language in
 * `[itemprop=programmingLanguage]`; star and fork counts on links to `/o/r/stargazers` and
 * `/o/r/forks`; the explicit empty state is a `.blankslate`. Named here so a layout change is one
 * edit.
 */
export const TRENDING_SELECTORS = {
  entry: 'article.Box-row',
  headingLink: 'h1 a[href], h2 a[href], h3 a[href]',
  description: 'p',
  language: '[itemprop="programmingLanguage"]',
  stars: 'a[href$="/stargazers"]',
  forks: 'a[href$="/forks"], a[href$="/network/members"]',
  emptyState: '.blankslate',
} as const;

/** "1,234 stars today" / "56 stars this week" / "1 star this month". */
const PERIOD_STARS = /([\d][\d,.]*k?)\s+stars?\s+(today|this week|this month)/i;
const PERIOD_OF: Record<string, TrendingPeriod> = {
  today: 'daily',
  'this week': 'weekly',
  'this month': 'monthly',
};
/** Text of the empty state: "It looks like we don't have any trending repositories for …". */
const EMPTY_STATE_TEXT = /trending repositories/i;
const WHITESPACE = /\s+/g;

/** One repository as a trending page lists it. */
export interface TrendingRepo extends RepoRef {
  /** 1-based place of its entry on the page. */
  position: number;
  /** The entry's description, whitespace collapsed; null when absent or empty. */
  description: string | null;
  /** Programming language shown, or null. */
  language: string | null;
  /** Total stars shown ("1,234" → 1234), or null. */
  stars: number | null;
  /** Forks shown, or null. */
  forks: number | null;
  /** Stars gained in the page's period ("123 stars today"), or null when not shown. */
  starsInPeriod: number | null;
  /** The period `starsInPeriod` covers, from its wording, or null. */
  period: TrendingPeriod | null;
  /** URL of the trending page it was listed on. */
  page: string;
}

/**
 * What a trending page holds:
 * - `listed`: the repositories, in page order (`skipped`: entries without a repository heading
 *   link, or repeating an earlier repository);
 * - `empty`: the page's explicit "no trending repositories" state — nothing to collect, no alarm;
 * - `unrecognized`: a page with neither — the layout may have changed and the caller should warn
 *   (`entries` entry elements were found, all without a repository link, when > 0).
 */
export type TrendingPage =
  | { kind: 'listed'; repos: TrendingRepo[]; skipped: number }
  | { kind: 'empty' }
  | { kind: 'unrecognized'; entries: number };

/**
 * Parse a displayed count: "1,234" → 1234, "1.2k" → 1200, " 56 " → 56.
 * @returns the count, or null when the text holds no number.
 */
export function parseCount(text: string): number | null {
  const m = /(\d[\d,]*(?:\.\d+)?)\s*(k)?/i.exec(text);
  if (!m) return null;
  const n = Number(m[1].replace(/,/g, ''));
  if (!Number.isFinite(n)) return null;
  return m[2] ? Math.round(n * 1000) : n;
}

/**
 * The URL of a trending page: `<web>/trending` or `<web>/trending/<language>`, with `?since=`.
 * @param web the web base (may carry a path prefix).
 * @param language a language as GitHub names it in these URLs (`python`, `c++`, `jupyter notebook`);
 *   lowercased, spaces become `-`, then percent-encoded. `''` means all languages.
 * @param since the period.
 * @throws TypeError when `web` is not a valid base URL.
 */
export function trendingUrl(web: string, language: string, since: TrendingPeriod): string {
  const slug = language.trim().toLowerCase().replace(WHITESPACE, '-');
  return joinBase(web, slug ? `/trending/${encodeURIComponent(slug)}` : '/trending', { since });
}

function text(el: Element | null): string {
  return el ? DomUtils.textContent(el).replace(WHITESPACE, ' ').trim() : '';
}

/** The repository of an entry's heading link, or null when it does not link to one. */
function headingRepo(entry: Element, pageUrl: string, web: string): RepoRef | null {
  const link = selectOne<AnyNode, Element>(TRENDING_SELECTORS.headingLink, entry);
  const href = link ? DomUtils.getAttributeValue(link, 'href') : undefined;
  if (href === undefined) return null;
  return repoOfWebUrl(href.trim(), web, { base: pageUrl });
}

function readEntry(entry: Element, position: number, repo: RepoRef, pageUrl: string): TrendingRepo {
  const all = text(entry);
  const period = PERIOD_STARS.exec(all);
  const count = (selector: string): number | null => {
    const el = selectOne<AnyNode, Element>(selector, entry);
    return el ? parseCount(text(el)) : null;
  };
  return {
    ...repo,
    position,
    description: text(selectOne<AnyNode, Element>(TRENDING_SELECTORS.description, entry)) || null,
    language: text(selectOne<AnyNode, Element>(TRENDING_SELECTORS.language, entry)) || null,
    stars: count(TRENDING_SELECTORS.stars),
    forks: count(TRENDING_SELECTORS.forks),
    starsInPeriod: period ? parseCount(period[1]) : null,
    period: period ? PERIOD_OF[period[2].toLowerCase()] : null,
    page: pageUrl,
  };
}

/**
 * Extract the repositories a trending page lists.
 *
 * Each `article.Box-row` entry contributes the `owner/repo` of its heading link, resolved against
 * `pageUrl` and accepted only when it is exactly `<web>/<owner>/<repo>` (see `repoOfWebUrl`);
 * everything else on the page (navigation, language and period menus, sponsor, star and login
 * buttons, "Built by" avatars, stargazer/fork links, links in descriptions, HTML comments) is
 * never read as a repository. A repository listed twice is kept once, at its first position.
 *
 * Never throws on odd HTML (htmlparser2 is lenient).
 * @param html the decoded page.
 * @param pageUrl the page's URL after redirects (base for relative links, and `page` of each repo).
 * @param web the web base (`https://github.com` by default in config; may carry a path prefix).
 */
export function extractTrending(html: string, pageUrl: string, web: string): TrendingPage {
  const doc = parseDocument(html);
  const entries = selectAll<AnyNode, Element>(TRENDING_SELECTORS.entry, doc);
  const repos: TrendingRepo[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  entries.forEach((entry, i) => {
    const repo = headingRepo(entry, pageUrl, web);
    if (repo === null || seen.has(repo.slug.toLowerCase())) {
      skipped++;
      return;
    }
    seen.add(repo.slug.toLowerCase());
    repos.push(readEntry(entry, i + 1, repo, pageUrl));
  });
  if (repos.length > 0) return { kind: 'listed', repos, skipped };
  const blank = selectAll<AnyNode, Element>(TRENDING_SELECTORS.emptyState, doc);
  if (entries.length === 0 && blank.some((el) => EMPTY_STATE_TEXT.test(text(el)))) return { kind: 'empty' };
  return { kind: 'unrecognized', entries: entries.length };
}

/**
 * The warning for an `unrecognized` trending page (one line, names the page; contains the word
 * "trending" so operators can grep for it).
 */
export function unrecognizedTrendingMessage(pageUrl: string, entries: number): string {
  const found =
    entries > 0
      ? `${entries} entr${entries === 1 ? 'y' : 'ies'} without a repository link`
      : `no "${TRENDING_SELECTORS.entry}" entries`;
  return `trending page ${pageUrl} lists no repositories (${found}): the page layout may have changed; nothing collected from it`;
}
