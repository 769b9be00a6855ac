/**
 * GitHub repository search (REST `GET /search/repositories`): the request URLs of a round, the
 * repositories of one result page with their rank, the next page from the `Link` header within
 * the API's cap of 1,000 results (written in one canonical form, so a link back to a page already
 * fetched is known however it is spelt), and date windows (`created:`/`pushed:` ranges, halved
 * until each holds at most 1,000 results) that reach past the cap.
 */
import { linkTarget } from '../http/link-header.js';
import { joinBase, pathBelowBase } from '../url/join-base.js';
import { parseRepoSlug, type RepoRef } from './github-repo.js';

/** The search API returns at most this many results per query (GitHub REST docs, "Search"). */
export const SEARCH_RESULT_CAP = 1000;
/** Largest `per_page` the search API accepts. */
export const SEARCH_MAX_PER_PAGE = 100;
/** `per_page` the API uses when none is given. */
export const SEARCH_DEFAULT_PER_PAGE = 30;
/** The search path below the API base. */
const SEARCH_PATH = '/search/repositories';
/**
 * The parameter that tells a second asking of a page (after `incomplete_results`) from the first
 * (`attempt=2`): GitHub ignores parameters it does not know, and the seen-set lets it through.
 */
const ATTEMPT_PARAM = 'attempt';
/** Default start of the first date window: GitHub opened in October 2007. */
export const DEFAULT_SLICE_FROM = '2007-10-01';
const DAY_MS = 86_400_000;

/** The date qualifier a sliced search splits on (GitHub search syntax: `created:`, `pushed:`). */
export type SliceField = 'created' | 'pushed';

/** A date window of a sliced search, both ends included, `YYYY-MM-DD`. */
export interface DateWindow {
  field: SliceField;
  from: string;
  to: string;
}

/** One search request of a round. */
export interface SearchRequest {
  /** First-page URL. */
  url: string;
  /** The `q` it searches (`topic:crawler`, or the configured query). */
  query: string;
}

/** One repository of a result page. */
export interface SearchResult extends RepoRef {
  /** 1-based place in the whole result list: `(page - 1) × per_page + index + 1`. */
  rank: number;
  /** `stargazers_count`, or null when absent. */
  stars: number | null;
  language: string | null;
  description: string | null;
  /** `default_branch`, or null. */
  defaultBranch: string | null;
  /** The `q` of the search. */
  query: string;
}

/** One parsed result page. */
export interface SearchPage {
  /** `total_count`: results the query matches (may exceed what the API lets one page through). */
  totalCount: number | null;
  /** `incomplete_results`: the search timed out server-side and the list may miss matches. */
  incomplete: boolean;
  results: SearchResult[];
  /** Items without a valid `full_name` (left out). */
  invalid: number;
}

/** The `q` for a topic: `topic:<t>`. */
export function topicQuery(topic: string): string {
  return `topic:${topic.trim()}`;
}

/**
 * A search URL: `<api>/search/repositories?q=…&sort=stars&order=desc&per_page=N[&page=P]`.
 * @param api the API base (may carry a path prefix, `https://ghe.example/api/v3`).
 * @param perPage results per page, 1..100.
 * @param page 1-based; page 1 is written without `page` (the URL a round starts from).
 * @param attempt 1-based asking of the page; from 2 on written as `attempt=N` (see
 *   {@link ATTEMPT_PARAM}).
 * @throws RangeError when `perPage` is not an integer in 1..100; TypeError for a bad base.
 */
export function searchUrl(api: string, q: string, perPage: number, page = 1, attempt = 1): string {
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > SEARCH_MAX_PER_PAGE)
    throw new RangeError(`perPage must be an integer from 1 to ${SEARCH_MAX_PER_PAGE}, got ${perPage}`);
  return joinBase(api, SEARCH_PATH, {
    q,
    sort: 'stars',
    order: 'desc',
    per_page: perPage,
    page: page > 1 ? page : undefined,
    [ATTEMPT_PARAM]: attempt > 1 ? attempt : undefined,
  });
}

/** The `q` of a date window: `<q> created:2020-01-01..2020-06-30`. */
export function windowQuery(q: string, w: DateWindow): string {
  return `${q.trim()} ${w.field}:${w.from}..${w.to}`;
}

const dayOf = (iso: string) => Math.floor(Date.parse(`${iso}T00:00:00Z`) / DAY_MS);
const isoOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * A window's two halves (by days; the first gets the odd day), or null for a one-day window,
 * which cannot be split further.
 */
export function halveWindow(w: DateWindow): [DateWindow, DateWindow] | null {
  const a = dayOf(w.from);
  const b = dayOf(w.to);
  if (!(b > a)) return null;
  const mid = a + Math.floor((b - a + 1) / 2) - 1;
  return [
    { field: w.field, from: w.from, to: isoOf(mid) },
    { field: w.field, from: isoOf(mid + 1), to: w.to },
  ];
}

/** Whether `s` is a calendar date `YYYY-MM-DD`. */
export function isIsoDate(s: string): boolean {
  return /^\d{4}-\d\d-\d\d$/.test(s) && isoOf(dayOf(s)) === s;
}

/**
 * The first-page requests of a round: one per topic (`topic:<t>`, in a random order each round
 * so a round cut short by rate limits does not always starve the same topics), then the query.
 * @param random uniform in [0, 1) (injectable for tests).
 * @throws as {@link searchUrl}.
 */
export function searchRequests(
  api: string,
  options: { topics?: readonly string[]; query?: string; perPage: number },
  random: () => number = Math.random,
): SearchRequest[] {
  const topics = [...(options.topics ?? [])];
  for (let i = topics.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [topics[i], topics[j]] = [topics[j], topics[i]];
  }
  const queries = topics.map(topicQuery);
  if (options.query?.trim()) queries.push(options.query.trim());
  return queries.map((query) => ({ url: searchUrl(api, query, options.perPage), query }));
}

/**
 * The page number and page size of a search URL (`page` defaults to 1, `per_page` to 30; the
 * order of the parameters and an `attempt` do not matter).
 * @returns null when the URL has no valid `q` or the numbers are not positive integers.
 */
export function searchPosition(url: string): { query: string; page: number; perPage: number } | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const query = u.searchParams.get('q');
  const page = Number(u.searchParams.get('page') ?? 1);
  const perPage = Number(u.searchParams.get('per_page') ?? SEARCH_DEFAULT_PER_PAGE);
  if (!query || !Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1) return null;
  return { query, page, perPage };
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/**
 * Read one result page (the parsed JSON body of a 200 response).
 * @param json the body, parsed.
 * @param url the page's URL (gives the query, page and page size for ranks).
 * @throws TypeError when the body is not a search result (`items` not an array) or the URL is
 *   not a search URL: the response is not what was asked for.
 */
export function parseSearchPage(json: unknown, url: string): SearchPage {
  const pos = searchPosition(url);
  if (pos === null) throw new TypeError(`${url} is not a search URL (no q, or a bad page/per_page)`);
  const body = json as { total_count?: unknown; incomplete_results?: unknown; items?: unknown } | null;
  if (body === null || typeof body !== 'object' || !Array.isArray(body.items))
    throw new TypeError(`search response for ${url} has no "items" array`);
  const results: SearchResult[] = [];
  let invalid = 0;
  body.items.forEach((raw: unknown, i: number) => {
    const item = (raw ?? {}) as Record<string, unknown>;
    const repo = typeof item.full_name === 'string' ? parseRepoSlug(item.full_name) : null;
    if (repo === null) {
      invalid++;
      return;
    }
    results.push({
      ...repo,
      rank: (pos.page - 1) * pos.perPage + i + 1,
      stars: typeof item.stargazers_count === 'number' ? item.stargazers_count : null,
      language: str(item.language),
      description: str(item.description),
      defaultBranch: str(item.default_branch),
      query: pos.query,
    });
  });
  return {
    totalCount: typeof body.total_count === 'number' ? body.total_count : null,
    incomplete: body.incomplete_results === true,
    results,
    invalid,
  };
}

/**
 * The next result page to fetch, from the response's `Link` header (`rel="next"`, RFC 8288) only:
 * pages are never guessed. Null when there is no next link, when it leaves the API's search
 * endpoint, when its page is beyond `maxPages`, or when it would reach past the API's cap
 * (`page × per_page > 1000`; the API answers 422 there).
 * @param link the response's `Link` header value.
 * @param url the URL of the page just fetched (base of relative targets).
 * @param api the API base (the next link must stay below it, on the search path).
 * @param maxPages pages per query at most (≥ 1).
 */
export function nextSearchUrl(
  link: string | null | undefined,
  url: string,
  api: string,
  maxPages: number,
): string | null {
  const next = linkTarget(link, url, 'next');
  if (next === null || pathBelowBase(next, api) !== SEARCH_PATH) return null;
  const pos = searchPosition(next);
  if (pos === null || pos.page > maxPages || pos.page * pos.perPage > SEARCH_RESULT_CAP) return null;
  return next;
}

/**
 * A search URL in the one form {@link searchUrl} writes (`q`, `sort=stars`, `order=desc`,
 * `per_page`, `page` only past 1), whatever order and defaults the URL was written with, so two
 * spellings of one page are one URL.
 * @returns null when `url` is not a search URL.
 */
export function canonicalSearchUrl(url: string, api: string): string | null {
  const pos = searchPosition(url);
  return pos === null ? null : searchUrl(api, pos.query, pos.perPage, pos.page);
}
