/**
 * The option keys of the `github-trending` and `github-search` sources (beside a worker's common
 * keys): one zod schema each, the single source of truth for their defaults and validation.
 */
import * as z from 'zod';
import { DEFAULT_README_NAMES, DEFAULT_README_PATHS, type ReadmeVia } from '../extract/github-readme.js';
import {
  DEFAULT_SLICE_FROM,
  isIsoDate,
  SEARCH_DEFAULT_PER_PAGE,
  SEARCH_MAX_PER_PAGE,
} from '../extract/github-search.js';
import { TRENDING_PERIODS } from '../extract/github-trending.js';
import { DEFAULT_GITHUB_BASES } from '../http/github-api.js';
import { parseBase } from '../url/join-base.js';

/** Environment variable the token is read from unless `github.tokenEnv` names another. */
export const DEFAULT_TOKEN_ENV = 'GITHUB_TOKEN';

/** Times a search page marked `incomplete_results` is asked again before what came is kept. */
export const DEFAULT_INCOMPLETE_RETRIES = 2;

/** Depth of README-to-README discovery (`discover: true`) unless `discoverDepth` says otherwise. */
export const DEFAULT_DISCOVER_DEPTH = 1;

const baseUrl = z.string().refine(
  (v) => {
    try {
      parseBase(v);
      return true;
    } catch {
      return false;
    }
  },
  { error: 'expected an http(s) base URL without query or fragment, e.g. https://api.github.com' },
);

/** `github: { web, api, raw, tokenEnv }`: which GitHub, and where its token is. */
export const GithubConfigSchema = z
  .object({
    /** Web pages (trending). Default `https://github.com`. */
    web: baseUrl.default(DEFAULT_GITHUB_BASES.web),
    /** REST API; may carry a path (`https://ghe.example/api/v3`). Default `https://api.github.com`. */
    api: baseUrl.default(DEFAULT_GITHUB_BASES.api),
    /** Raw file content. Default `https://raw.githubusercontent.com`. */
    raw: baseUrl.default(DEFAULT_GITHUB_BASES.raw),
    /** Environment variable holding the token (never the token itself). Default `GITHUB_TOKEN`. */
    tokenEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'expected an environment variable name' })
      .default(DEFAULT_TOKEN_ENV),
  })
  .strict()
  .default({ ...DEFAULT_GITHUB_BASES, tokenEnv: DEFAULT_TOKEN_ENV });

/** Keys about READMEs, shared by both sources. */
const readmeKeys = {
  github: GithubConfigSchema,
  /**
   * How READMEs are fetched: `raw` (raw host, `readmeNames` in turn; no API budget), `api` (the
   * API's JSON, any name, one request), `api-raw`, or `auto`: `api` with a token, `raw` without
   * (an anonymous API budget is 60 requests an hour). Default `auto`.
   */
  readme: z.enum(['auto', 'raw', 'api', 'api-raw']).default('auto'),
  /** File names tried on the raw host, in order. Default README.md, readme.md, README.rst, …. */
  readmeNames: z
    .array(z.string().regex(/^[^/\\\0]+$/, { error: 'expected a file name without "/"' }))
    .min(1)
    .default([...DEFAULT_README_NAMES]),
  /**
   * Paths below the repository root tried on the raw host after `readmeNames`: the other places
   * GitHub shows a README from. Default `.github/README.md`, `docs/README.md`.
   */
  readmePaths: z
    .array(
      z
        .string()
        .refine((p) => p.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && !/[\\\0]/.test(s)), {
          error: 'expected a path below the repository root, e.g. docs/README.md',
        }),
    )
    .default([...DEFAULT_README_PATHS]),
  /** Also collect the READMEs of repositories a README links to. Default false. */
  discover: z.boolean().default(false),
  /** How many README-to-README hops `discover` follows. Default 1. */
  discoverDepth: z.number().int().positive().default(DEFAULT_DISCOVER_DEPTH),
};

/** `github-trending` options. */
export const GithubTrendingOptionsSchema = z.object({
  ...readmeKeys,
  /** Languages as in trending URLs; `''` is all languages. Default `['']`. */
  languages: z.array(z.string()).min(1).default(['']),
  /** Periods (`?since=`). Default `[daily]`. */
  since: z.array(z.enum(TRENDING_PERIODS)).min(1).default(['daily']),
});

/** `github-search` options: `topics` and/or `query`. */
export const GithubSearchOptionsSchema = z
  .object({
    ...readmeKeys,
    /** Topics, each searched as `topic:<t>`, in a random order each round. Default none. */
    topics: z.array(z.string().min(1)).default([]),
    /** A search query of its own (GitHub search syntax). */
    query: z.string().min(1).optional(),
    /** Results per page, 1–100. Default 30 (the API's). */
    perPage: z.number().int().min(1).max(SEARCH_MAX_PER_PAGE).default(SEARCH_DEFAULT_PER_PAGE),
    /**
     * Result pages per query at most (the API stops at 1,000 results anyway). Default 1. Not
     * `maxPages`: that common key bounds every URL of the worker.
     */
    searchPages: z.number().int().positive().default(1),
    /**
     * Reach past the API's 1,000-result cap: split each query by date windows of this
     * qualifier (`created` or `pushed`), halving a window that still matches more than 1,000,
     * and page each window to its end (`searchPages` does not bound them). Default: no slicing.
     */
    sliceBy: z.enum(['created', 'pushed']).optional(),
    /** First day of the first window (`YYYY-MM-DD`); the last ends today. Default 2007-10-01. */
    sliceFrom: z
      .string()
      .refine(isIsoDate, { error: 'expected a date YYYY-MM-DD' })
      .default(DEFAULT_SLICE_FROM),
    /**
     * Times a result page marked `incomplete_results` (GitHub's search timed out) is asked
     * again; then what came is kept, flagged `data.incomplete: true`, with a warning. Default 2.
     */
    incompleteRetries: z.number().int().min(0).max(10).default(DEFAULT_INCOMPLETE_RETRIES),
  })
  .refine((o) => o.topics.length > 0 || o.query !== undefined, {
    error: 'github-search needs "topics" or "query"',
  });

/** `readme: auto` made concrete: the API's JSON with a token, the raw host without. */
export function resolveReadmeVia(setting: ReadmeVia | 'auto', hasToken: boolean): ReadmeVia {
  if (setting !== 'auto') return setting;
  return hasToken ? 'api' : 'raw';
}
