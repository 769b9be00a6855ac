/**
 * The built-in `github-search` source: every round, the repository search of each configured
 * topic (`topic:<t>`, in a random order each round) and query, sorted by stars; further result
 * pages only from the `Link` header's `rel="next"`, within `searchPages` and the API's 1,000-result
 * cap; and each result's README, once per source (`github-readmes.ts`).
 */
import type { z } from 'zod';
import { GithubSearchOptionsSchema } from '../config/github-options.js';
import { GITHUB_API_VERSION, GITHUB_JSON } from '../extract/github-readme.js';
import { nextSearchUrl, parseSearchPage, searchRequests } from '../extract/github-search.js';
import { githubHooks, handleReadme, README_LABEL, readmeFollow, rejectedToken } from './github-readmes.js';
import { defineSource, type RequestSpec } from './source.js';

/** Label of search result pages. */
export const SEARCH_LABEL = 'search';

/** `github-search` options, parsed. */
export type GithubSearchOptions = z.output<typeof GithubSearchOptionsSchema>;

const API_HEADERS = { accept: GITHUB_JSON, 'x-github-api-version': GITHUB_API_VERSION };

/** A result page request: an API call, fetched again every round (results change). */
function searchPage(url: string, query: string, page: number): RequestSpec {
  return {
    url,
    label: SEARCH_LABEL,
    headers: API_HEADERS,
    robots: false,
    everyRound: true,
    store: false,
    userData: { query, page },
  };
}

/** The `github-search` source (see the module comment). */
export const githubSearchSource = defineSource<GithubSearchOptions>({
  name: 'github-search',
  options: GithubSearchOptionsSchema,
  threadSafe: true,
  ...githubHooks,

  seeds(ctx) {
    const o = ctx.options;
    return searchRequests(o.github.api, { topics: o.topics, query: o.query, perPage: o.perPage }).map((r) =>
      searchPage(r.url, r.query, 1),
    );
  },

  handle(page, ctx) {
    if (page.label === README_LABEL) return handleReadme(page, ctx);
    if (page.status === 401) throw rejectedToken(page, ctx.options);
    const { query, page: n } = (page.userData ?? {}) as { query?: string; page?: number };
    if (page.status === 404) return { data: { query, page: n }, missing: `search ${page.url}: not found` };
    const o = ctx.options;
    const result = parseSearchPage(page.json(), page.url);
    const follow: RequestSpec[] = result.results.map((r) =>
      readmeFollow(
        r,
        {
          query: r.query,
          rank: r.rank,
          stars: r.stars,
          language: r.language,
          description: r.description,
          defaultBranch: r.defaultBranch,
        },
        o,
      ),
    );
    const link = page.headers.link;
    const next = nextSearchUrl(
      Array.isArray(link) ? link.join(', ') : link,
      page.url,
      o.github.api,
      o.searchPages,
    );
    if (next !== null) follow.push(searchPage(next, result.results[0]?.query ?? query ?? '', (n ?? 1) + 1));
    if (result.incomplete) ctx.log.info('search results incomplete (timed out at GitHub)', { url: page.url });
    const data = { query, page: n, totalCount: result.totalCount, results: result.results.length };
    return { data, follow };
  },
});
