/**
 * What the two GitHub sources share: the README request of a listed repository and the reading
 * of its answer (exact bytes, the README's own name; a 404 tries the next name on the raw host,
 * then the other places GitHub shows a README from, then says the repository has none; a
 * symbolic link and an API answer without the bytes are not stored, the file they point to is
 * fetched instead), the token sent at send time to the API only, the rate budget each request
 * spends, and the three bases put in scope.
 *
 * A README's URL depends only on the repository (and the name tried), never on the round or the
 * listing, so the seen-set collects each README once per source whatever lists it, round after
 * round. Requests to the API and the raw host are API calls: GitHub's documented rate limits
 * govern them, not robots.txt (`robots: false`; the API host's robots.txt disallows everything
 * for crawlers); trending pages are web pages and robots.txt governs them.
 */
import type { z } from 'zod';
import type { GithubConfigSchema } from '../config/github-options.js';
import { resolveReadmeVia } from '../config/github-options.js';
import {
  decodeReadmeJson,
  MAX_README_SYMLINKS,
  nextReadmeName,
  type ReadmeFile,
  type ReadmeVia,
  readmeFromRaw,
  readmeRepoLinks,
  readmeRequest,
  readmeSymlinkTarget,
} from '../extract/github-readme.js';
import { parseRepoSlug, type RepoRef } from '../extract/github-repo.js';
import { githubAuthHeaders, githubBudgetKey } from '../http/github-api.js';
import { credentialIdentity } from '../http/rate-budget.js';
import type { HandleResult, Page, RateBudgetKey, RequestSpec, SourceContext } from './source.js';

/** Label of README requests. */
export const README_LABEL = 'readme';

/** The options both GitHub sources have (see `config/github-options.ts`). */
export interface ReadmeOptions {
  github: z.output<typeof GithubConfigSchema>;
  readme: ReadmeVia | 'auto';
  readmeNames: string[];
  readmePaths: string[];
  discover: boolean;
  discoverDepth: number;
}

/** What a README request carries to its page and item. */
interface ReadmeUserData {
  repo: string;
  via: ReadmeVia;
  /** The path asked for on the raw host (`README.md`, `docs/README.md`), else null. */
  name: string | null;
  /** The symbolic links followed to this request, in order (absent: none). */
  links?: string[];
  /** Asked for a file the API named (its `download_url`): a 404 tries no other name. */
  named?: boolean;
  /** README-to-README hops from a listing (discovery), 0 for a listed repository. */
  hops: number;
  /** What the listing said (stars, language, ... and where it was listed). */
  listing: Record<string, unknown>;
}

/** The token from the environment variable the options name (`GITHUB_TOKEN`), or null. */
export function githubToken(o: ReadmeOptions): string | null {
  return process.env[o.github.tokenEnv] || null;
}

/**
 * The error of a 401 from the API: GitHub refused the credential. Named by its environment
 * variable, never by its value; no retry can fix it, so the source stops its worker type with it
 * ({@link rejectedTokenStop}): the page's item says it (`source` error), and so does one line.
 */
export function rejectedToken(page: Page, o: ReadmeOptions): Error {
  let why = 'Bad credentials';
  try {
    const message = (page.json() as { message?: unknown }).message;
    if (typeof message === 'string' && message.trim() !== '') why = message.trim().slice(0, 200);
  } catch {
    // not JSON: GitHub's usual reason
  }
  const env = o.github.tokenEnv;
  return new Error(
    githubToken(o) === null
      ? `GitHub answered 401 (${why}) to a request without a token: set ${env}`
      : `GitHub rejected the token (${why}): check ${env}`,
  );
}

/**
 * What a 401 from the API makes of the page: the worker type stops (`stop`: the item's error, said
 * once; no request goes out again with a token GitHub refuses).
 */
export function rejectedTokenStop(page: Page, o: ReadmeOptions): HandleResult {
  return { stop: rejectedToken(page, o).message };
}

/** The README request of `repo`, as the listing described it. */
export function readmeFollow(
  repo: RepoRef,
  listing: Record<string, unknown>,
  o: ReadmeOptions,
  hops = 0,
  name?: string,
): RequestSpec {
  const via = resolveReadmeVia(o.readme, githubToken(o) !== null);
  const r = readmeRequest(repo, o.github, via, name ?? o.readmeNames[0]);
  const userData: ReadmeUserData = { repo: repo.slug, via, name: r.name, hops, listing };
  const spec: RequestSpec = { url: r.url, label: README_LABEL, robots: false, userData };
  if (Object.keys(r.headers).length > 0) spec.headers = r.headers;
  return spec;
}

/** The names and then the paths tried on the raw host, in order. */
function rawCandidates(o: ReadmeOptions): string[] {
  return [...o.readmeNames, ...(o.readmePaths ?? [])];
}

/**
 * A raw-host request for `path` of the README's repository, carrying what led to it (a symbolic
 * link, or the API's `download_url`: then `url` is that URL).
 */
function rawFollow(
  ud: ReadmeUserData,
  path: string,
  extra: Partial<ReadmeUserData>,
  url: string,
): RequestSpec {
  const userData: ReadmeUserData = { ...ud, via: 'raw', name: path, ...extra };
  return { url, label: README_LABEL, robots: false, userData };
}

/**
 * Read a README answer: a 2xx is the README (stored with its own bytes and extension); a 404 on
 * the raw host asks for the next name (then the other README paths), and past the last one (or
 * from the API) says the repository has no README (`missing`: the item's error kind is
 * `not-found`). Answers that only point to the README are not stored and the file is asked for:
 * a symbolic link on the raw host (served as its target's path), and the API's answer for a
 * README over its inline size (no content: its `download_url`).
 * @throws on a 2xx that is not what was asked (bad JSON): the item's error is `source`.
 */
export function handleReadme(page: Page, ctx: SourceContext<ReadmeOptions>): HandleResult {
  const ud = page.userData as ReadmeUserData;
  const repo = parseRepoSlug(ud.repo) as RepoRef;
  const o = ctx.options;
  if (page.status === 401) return rejectedTokenStop(page, o);
  const data: Record<string, unknown> = { repo: repo.slug, ...ud.listing };
  if (page.status === 404) {
    const raw = ud.via === 'raw' && ud.name !== null && ud.named !== true && ud.links === undefined;
    const next = raw ? nextReadmeName(ud.name as string, rawCandidates(o)) : null;
    if (next !== null) {
      return {
        data: { ...data, readme: null, tried: ud.name },
        missing: `${repo.slug} has no ${ud.name}; trying ${next}`,
        follow: [readmeFollow(repo, ud.listing, o, ud.hops, next)],
      };
    }
    if (ud.links !== undefined)
      return {
        data: { ...data, readme: null, symlinks: ud.links },
        missing: `${repo.slug}: the README is a link to ${ud.name}, which is not there`,
      };
    const tried = raw ? ` (tried ${rawCandidates(o).join(', ')})` : '';
    return { data: { ...data, readme: null }, missing: `${repo.slug} has no README${tried}` };
  }
  let file: ReadmeFile;
  if (ud.via === 'api') {
    const got = decodeReadmeJson(page.json());
    if (got.kind === 'too-large') {
      // Over the API's inline size there is no content: the raw host has the bytes. This answer
      // is not the README and is not stored.
      const url = got.downloadUrl ?? readmeRequest(repo, o.github, 'raw', got.path).url;
      return {
        data: {
          ...data,
          readme: null,
          tooLarge: { name: got.name, path: got.path, size: got.size, follow: url },
        },
        store: false,
        follow: [rawFollow(ud, got.path, { named: true }, url)],
      };
    }
    if (got.kind === 'symlink') return symlinkFollow(ud, repo, data, got.path, got.target, o);
    file = got;
  } else {
    const target = ud.via === 'raw' && ud.name !== null ? readmeSymlinkTarget(page.body, ud.name) : null;
    if (target !== null) return symlinkFollow(ud, repo, data, ud.name as string, target, o);
    file = readmeFromRaw({ name: ud.name }, page.body);
  }
  const ext = file.ext.slice(1);
  const readme: Record<string, unknown> = {
    name: file.name,
    path: file.path,
    via: ud.via,
    bytes: file.bytes.length,
  };
  if (ud.links !== undefined) readme.symlinks = ud.links;
  const result: HandleResult = {
    title: repo.slug,
    data: { ...data, readme },
    file: { body: file.bytes, ...(/^[A-Za-z0-9]{1,16}$/.test(ext) ? { extension: ext } : {}) },
  };
  if (o.discover && ud.hops < o.discoverDepth) {
    const text = ud.via === 'api' ? file.bytes.toString('utf8') : page.text();
    result.follow = readmeRepoLinks(text, o.github.web, repo).map((r) =>
      readmeFollow(r, { discoveredFrom: repo.slug }, o, ud.hops + 1),
    );
  }
  return result;
}

/**
 * A README that is a symbolic link to `target`: not stored; the target is asked for on the raw
 * host (at most {@link MAX_README_SYMLINKS} links in a row).
 * @throws when the links go on past that (a loop): the item's error is `source`.
 */
function symlinkFollow(
  ud: ReadmeUserData,
  repo: RepoRef,
  data: Record<string, unknown>,
  path: string,
  target: string,
  o: ReadmeOptions,
): HandleResult {
  const links = [...(ud.links ?? []), path];
  if (links.length > MAX_README_SYMLINKS)
    throw new Error(
      `${repo.slug}: README symbolic links go on past ${MAX_README_SYMLINKS} (${links.join(' -> ')})`,
    );
  const url = readmeRequest(repo, o.github, 'raw', target).url;
  return {
    data: { ...data, readme: null, symlink: { path, target } },
    store: false,
    follow: [rawFollow(ud, target, { links }, url)],
  };
}

/** The source hooks both GitHub sources share (token, budget, scope, 404s). */
export const githubHooks = {
  /** `404`: a README that is not there (next name, or none); `401`: a token GitHub rejects (said by name; the worker type stops). */
  statuses: [404, 401] as readonly number[],
  /** `Authorization: Bearer <token>` on requests below the API base only. */
  authorize(request: { url: string }, ctx: SourceContext<ReadmeOptions>): Record<string, string> {
    return githubAuthHeaders(request.url, ctx.options.github, githubToken(ctx.options));
  },
  /** The token's variable (`github.tokenEnv`, default `GITHUB_TOKEN`): said at start when unset. */
  credentialEnv(options: ReadmeOptions): string[] {
    return [options.github.tokenEnv];
  },
  /** API requests spend the token's (or the anonymous) `search`/`core` budget; raw ones `raw`. */
  rateBudget(request: { url: string }, ctx: SourceContext<ReadmeOptions>): RateBudgetKey | null {
    const identity = credentialIdentity(githubToken(ctx.options));
    return githubBudgetKey(request.url, ctx.options.github, identity);
  },
  /** The web, API and raw bases, so README and API requests pass a `prefix` scope. */
  scope(ctx: SourceContext<ReadmeOptions>): string[] {
    const { web, api, raw } = ctx.options.github;
    return [web, api, raw].map((b) => `${b.replace(/\/+$/, '')}/`);
  },
};
