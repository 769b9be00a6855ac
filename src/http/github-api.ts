/**
 * GitHub's HTTP surface as the collector sees it: the three base URLs, which rate-limit resource
 * a URL spends, and which URLs may carry the token (the API base only).
 */
import { pathBelowBase } from '../url/join-base.js';
import type { BudgetKey } from './rate-budget.js';

/** The base URLs of one GitHub (github.com or an Enterprise server); each may carry a path prefix. */
export interface GithubBases {
  /** Web pages (trending): `https://github.com`. */
  web: string;
  /** REST API: `https://api.github.com` (Enterprise: `https://ghe.example/api/v3`). */
  api: string;
  /** Raw file content: `https://raw.githubusercontent.com` (Enterprise: `https://ghe.example/raw`). */
  raw: string;
}

/** github.com's bases. */
export const DEFAULT_GITHUB_BASES: Readonly<GithubBases> = Object.freeze({
  web: 'https://github.com',
  api: 'https://api.github.com',
  raw: 'https://raw.githubusercontent.com',
});

/**
 * The rate-limit resource a request spends, as GitHub names them in `X-RateLimit-Resource`:
 * `search` (`/search/…`), `code_search` (`/search/code`), `graphql`, `core` (the rest of the API);
 * `raw` for the raw-content host (not API-limited, but a 429 there is honoured); null for web
 * pages, which the per-host politeness and robots.txt govern instead.
 * @throws TypeError when a base is invalid.
 */
export function githubResource(url: string, bases: GithubBases): string | null {
  const api = pathBelowBase(url, bases.api);
  if (api !== null) {
    if (api === '/search/code' || api.startsWith('/search/code/')) return 'code_search';
    if (api.startsWith('/search/')) return 'search';
    if (api === '/graphql') return 'graphql';
    return 'core';
  }
  if (pathBelowBase(url, bases.raw) !== null) return 'raw';
  return null;
}

/**
 * The budget key of a request, or null when no budget applies (web pages).
 * @param identity from `credentialIdentity(token)`: the identity of the credential this request
 *   will carry — only API requests carry the token, so raw requests are always `anonymous`.
 */
export function githubBudgetKey(url: string, bases: GithubBases, identity: string): BudgetKey | null {
  const resource = githubResource(url, bases);
  if (resource === null) return null;
  return { identity: resource === 'raw' ? 'anonymous' : identity, resource };
}

/**
 * The credential header for a request, to be added at send time (the Source contract's
 * `authorize`): `Authorization: Bearer <token>` for URLs below the API base, nothing for any other
 * URL (web pages, the raw host, a redirect elsewhere), so the token never leaves the API.
 * @param token the token, or null/empty for none.
 */
export function githubAuthHeaders(
  url: string,
  bases: GithubBases,
  token: string | null | undefined,
): Record<string, string> {
  if (!token || pathBelowBase(url, bases.api) === null) return {};
  return { authorization: `Bearer ${token}` };
}
