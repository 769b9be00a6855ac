/**
 * What a GitHub repository reference is: `owner/repo` names, and the web URLs that name a
 * repository (exactly `<web>/<owner>/<repo>`), as opposed to site pages (`/login`, `/sponsors/x`,
 * `/topics/y`), users (`/alice`) and pages inside a repository (`/o/r/stargazers`).
 */
import { pathBelowBase } from '../url/join-base.js';

/** A repository, `owner/repo`, with its two parts. */
export interface RepoRef {
  /** `owner/repo` as GitHub writes it (case kept; GitHub compares case-insensitively). */
  slug: string;
  owner: string;
  name: string;
}

/**
 * A GitHub login: letters, digits and hyphens, not starting with a hyphen, at most 39 characters
 * (GitHub's sign-up rule; older accounts may have a trailing or doubled hyphen, so those pass).
 */
const OWNER = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/;

/** A repository name: letters, digits, `.`, `_`, `-`, at most 100 characters, not `.`/`..`. */
const REPO_NAME = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * First path segments of github.com that are site sections, never an owner (GitHub reserves
 * them; no user or organisation can take these names). Compared lowercase.
 */
export const RESERVED_OWNERS: ReadonlySet<string> = new Set([
  'about',
  'account',
  'apps',
  'blog',
  'business',
  'codespaces',
  'collections',
  'contact',
  'copilot',
  'customer-stories',
  'dashboard',
  'enterprise',
  'events',
  'explore',
  'features',
  'gist',
  'git-guides',
  'issues',
  'join',
  'login',
  'logout',
  'marketplace',
  'new',
  'notifications',
  'organizations',
  'orgs',
  'pricing',
  'pulls',
  'readme',
  'search',
  'security',
  'sessions',
  'settings',
  'signup',
  'site',
  'sponsors',
  'stars',
  'team',
  'topics',
  'trending',
  'users',
]);

/**
 * Check and split an `owner/repo` string.
 * @returns the reference, or null when either part is not a valid name or the owner is reserved.
 */
export function parseRepoSlug(slug: string): RepoRef | null {
  const slash = slug.indexOf('/');
  if (slash <= 0 || slug.indexOf('/', slash + 1) !== -1) return null;
  const owner = slug.slice(0, slash);
  const name = slug.slice(slash + 1);
  if (!OWNER.test(owner) || RESERVED_OWNERS.has(owner.toLowerCase())) return null;
  if (!REPO_NAME.test(name) || name === '.' || name === '..') return null;
  return { slug: `${owner}/${name}`, owner, name };
}

/**
 * The repository a web URL names, when it names exactly one: `<web>/<owner>/<repo>` with an
 * optional trailing slash (query and fragment ignored). Not a repository: another origin or a
 * path outside the web base's prefix, one segment (`/alice`), three or more (`/o/r/stargazers`,
 * `/o/r/releases/tag/v1`), reserved first segments (`/sponsors/o`, `/topics/x`), invalid names.
 * @param url absolute, or relative to `base` (resolved per WHATWG URL).
 * @param web the web base, e.g. `https://github.com` (a path prefix is allowed).
 * @param options.gitSuffix strip a `.git` suffix from the repository name (clone URLs in READMEs).
 * @throws TypeError when `web` is not a valid base URL.
 */
export function repoOfWebUrl(
  url: string,
  web: string,
  options: { base?: string; gitSuffix?: boolean } = {},
): RepoRef | null {
  let abs: string;
  try {
    abs = new URL(url, options.base ?? web).href;
  } catch {
    return null;
  }
  const path = pathBelowBase(abs, web);
  if (path === null) return null;
  const segments = path.replace(/\/$/, '').split('/').slice(1);
  if (segments.length !== 2) return null;
  let [owner, name] = segments;
  try {
    owner = decodeURIComponent(owner);
    name = decodeURIComponent(name);
  } catch {
    return null;
  }
  if (options.gitSuffix && name.length > 4 && name.toLowerCase().endsWith('.git')) name = name.slice(0, -4);
  return parseRepoSlug(`${owner}/${name}`);
}
