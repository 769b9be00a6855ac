/**
 * The built-in `github-search` source: every round, the repository search of each configured
 * topic (`topic:<t>`, in a random order each round) and query, sorted by stars; further result
 * pages only from the `Link` header's `rel="next"`, written in one canonical form and never back
 * to a page of the same listing already fetched, within `searchPages` and the API's 1,000-result
 * cap; a page marked `incomplete_results` asked again (bounded), then kept and flagged; with
 * `sliceBy`, each query split into date windows, halved while one matches more than 1,000, so
 * that every repository is reached; and each result's README, once per source
 * (`github-readmes.ts`).
 */
import type { z } from 'zod';
import { GithubSearchOptionsSchema } from '../config/github-options.js';
import { GITHUB_API_VERSION, GITHUB_JSON } from '../extract/github-readme.js';
import {
  canonicalSearchUrl,
  type DateWindow,
  halveWindow,
  nextSearchUrl,
  parseSearchPage,
  SEARCH_RESULT_CAP,
  type SearchPage,
  searchPosition,
  searchRequests,
  searchUrl,
  windowQuery,
} from '../extract/github-search.js';
import {
  githubHooks,
  handleReadme,
  README_LABEL,
  readmeFollow,
  rejectedTokenStop,
} from './github-readmes.js';
import {
  defineSource,
  type HandleResult,
  type Page,
  type RequestSpec,
  type SourceContext,
} from './source.js';

/** Label of search result pages. */
export const SEARCH_LABEL = 'search';

/** `github-search` options, parsed. */
export type GithubSearchOptions = z.output<typeof GithubSearchOptionsSchema>;

const API_HEADERS = { accept: GITHUB_JSON, 'x-github-api-version': GITHUB_API_VERSION };

/** What a result page request carries. */
interface SearchUserData {
  /** The configured query (`topic:llm`), without a window's date range. */
  query: string;
  page: number;
  /** Pages of this listing fetched before this one, this round (a `next` back to one is not followed). */
  pages?: number[];
  /** The asking of this page, 1-based (a page marked `incomplete_results` is asked again). */
  attempt?: number;
  /** The date window of a sliced query. */
  window?: DateWindow;
}

/** A result page request: an API call, fetched again every round (results change). */
function searchPage(url: string, userData: SearchUserData): RequestSpec {
  return {
    url,
    label: SEARCH_LABEL,
    headers: API_HEADERS,
    robots: false,
    everyRound: true,
    store: false,
    userData,
  };
}

/** The `q` a page of `ud` searches: the query, with the window's date range when sliced. */
function qOf(ud: SearchUserData): string {
  return ud.window === undefined ? ud.query : windowQuery(ud.query, ud.window);
}

/** `created:2020-01-01..2020-06-30` */
function windowText(w: DateWindow): string {
  return `${w.field}:${w.from}..${w.to}`;
}

/** The `github-search` source (see the module comment). */
export const githubSearchSource = defineSource<GithubSearchOptions>({
  name: 'github-search',
  options: GithubSearchOptionsSchema,
  threadSafe: true,
  ...githubHooks,

  seeds(ctx) {
    const o = ctx.options;
    const today = new Date().toISOString().slice(0, 10);
    return searchRequests(o.github.api, { topics: o.topics, query: o.query, perPage: o.perPage }).map((r) => {
      if (o.sliceBy === undefined || o.sliceFrom > today)
        return searchPage(r.url, { query: r.query, page: 1 });
      const window: DateWindow = { field: o.sliceBy, from: o.sliceFrom, to: today };
      const ud: SearchUserData = { query: r.query, page: 1, window };
      return searchPage(searchUrl(o.github.api, qOf(ud), o.perPage), ud);
    });
  },

  handle(page, ctx) {
    if (page.label === README_LABEL) return handleReadme(page, ctx);
    if (page.status === 401) return rejectedTokenStop(page, ctx.options);
    const ud = (page.userData ?? {}) as Partial<SearchUserData>;
    if (page.status === 404)
      return { data: { query: ud.query, page: ud.page }, missing: `search ${page.url}: not found` };
    return handleSearchPage(page, ctx, ud);
  },
});

/** Read one result page (see the module comment). */
function handleSearchPage(
  page: Page,
  ctx: SourceContext<GithubSearchOptions>,
  given: Partial<SearchUserData>,
): HandleResult {
  const o = ctx.options;
  const result = parseSearchPage(page.json(), page.url);
  const n = given.page ?? searchPosition(page.url)?.page ?? 1;
  const ud: SearchUserData = { ...given, query: given.query ?? result.results[0]?.query ?? '', page: n };
  const attempt = ud.attempt ?? 1;
  const data: Record<string, unknown> = {
    query: ud.query,
    page: n,
    totalCount: result.totalCount,
    results: result.results.length,
  };
  if (ud.window !== undefined) data.window = windowText(ud.window);
  if (attempt > 1) data.attempt = attempt;

  // A window that still matches more than the API lets through: its halves instead.
  if (ud.window !== undefined && n === 1 && (result.totalCount ?? 0) > SEARCH_RESULT_CAP) {
    const halves = halveWindow(ud.window);
    if (halves !== null) {
      const follow = halves.map((window) => {
        const half: SearchUserData = { query: ud.query, page: 1, window };
        return searchPage(searchUrl(o.github.api, qOf(half), o.perPage), half);
      });
      return { data: { ...data, split: halves.map(windowText) }, follow };
    }
    ctx.log.warn(
      `search window ${windowText(ud.window)} of ${ud.query} matches ${result.totalCount} repositories in one day: only the first ${SEARCH_RESULT_CAP} can be listed`,
      { url: page.url },
    );
    data.capped = true;
  }

  const follow: RequestSpec[] = readmesOf(result, ud, o);
  if (result.incomplete) {
    data.incomplete = true;
    if (attempt <= o.incompleteRetries) {
      // GitHub's search timed out: ask again (a distinct URL, so the seen-set lets it through);
      // the READMEs of what came are asked for now, the rest with the next answer.
      const again: SearchUserData = { ...ud, attempt: attempt + 1 };
      const url = searchUrl(
        o.github.api,
        qOf(ud),
        searchPosition(page.url)?.perPage ?? o.perPage,
        n,
        attempt + 1,
      );
      follow.push(searchPage(url, again));
      return { data: { ...data, askedAgain: true }, follow };
    }
    ctx.log.warn(
      `search results incomplete after ${attempt} askings (timed out at GitHub): ${ud.query} page ${n} kept as it came`,
      { url: page.url },
    );
  }

  const link = page.headers.link;
  const maxPages = ud.window === undefined ? o.searchPages : Number.POSITIVE_INFINITY;
  const next = nextSearchUrl(Array.isArray(link) ? link.join(', ') : link, page.url, o.github.api, maxPages);
  const at = next === null ? null : searchPosition(next);
  if (next !== null && at !== null) {
    const visited = [...(ud.pages ?? []), n];
    const canonical = canonicalSearchUrl(next, o.github.api) as string;
    if (at.query !== qOf(ud)) data.nextSkipped = `another search (${at.query})`;
    else if (visited.includes(at.page)) data.nextSkipped = `page ${at.page} again`;
    else
      follow.push(
        searchPage(canonical, {
          query: ud.query,
          page: at.page,
          pages: visited,
          ...(ud.window ? { window: ud.window } : {}),
        }),
      );
  }
  return { data, follow };
}

/** The README requests of a result page's repositories, with what the listing said. */
function readmesOf(result: SearchPage, ud: SearchUserData, o: GithubSearchOptions): RequestSpec[] {
  return result.results.map((r) => {
    const listing: Record<string, unknown> = {
      query: ud.query,
      rank: r.rank,
      stars: r.stars,
      language: r.language,
      description: r.description,
      defaultBranch: r.defaultBranch,
    };
    if (ud.window !== undefined) listing.window = windowText(ud.window);
    return readmeFollow(r, listing, o);
  });
}
