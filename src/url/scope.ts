/**
 * Scope and crawler-trap rules: decides, for each canonical URL, whether the crawl may follow it
 * (seed prefix/host/domain, include/exclude patterns) and whether it looks like a trap.
 */
import { createRequire } from 'node:module';
import { canonicalize, hostKey } from './canonicalize.js';
import { HashSet32 } from './hash-set32.js';
import { ShapeBudget } from './shape-budget.js';

// tldts (the public-suffix list) is loaded only by scope `domain`: it costs ~100 ms of start-up.
type GetDomain = typeof import('tldts')['getDomain'];
let getDomainFn: GetDomain | null = null;
function getDomain(): GetDomain {
  getDomainFn ??= (createRequire(import.meta.url)('tldts') as typeof import('tldts')).getDomain;
  return getDomainFn;
}

/**
 * How far from its seeds a crawl may go:
 * - `prefix`: URLs under a seed's directory (up to and including the last `/` of its path), like
 *   `wget --no-parent`: seed `http://h/pg/index.html` allows `http://h/pg/...`; seed `http://h/pg`
 *   allows all of `http://h/`.
 * - `host`: same `hostname[:port]` as a seed.
 * - `domain`: same registrable domain as a seed (public suffix list, private suffixes such as
 *   `github.io` included, so `a.github.io` and `b.github.io` differ); IPs and single-label hosts
 *   like `localhost` compare by exact hostname. Ports are ignored.
 * - `any`: no restriction.
 *
 * In every mode http and https count as the same (sites redirect one to the other).
 */
export type ScopeMode = 'prefix' | 'host' | 'domain' | 'any';

/**
 * Outcome of {@link Scope.check}, in the order the checks run:
 * - `ok`: follow it.
 * - `trap-length`: longer than `maxUrlLength`.
 * - `out-of-scope`: outside the seeds' prefix/host/domain.
 * - `excluded`: matches no include pattern (when some are given) or matches an exclude pattern.
 * - `trap-repeat`: a run of path segments repeats more than `maxPathRepeat` times in a row.
 * - `trap-query`: its path already has `maxQueryVariants` other distinct queries.
 * - `trap-shape`: its URL shape (digits generalised) is full (`maxShapeVariants`) or was frozen
 *   by {@link Scope.freezeShape} (near-duplicate pages: a calendar).
 */
export type ScopeVerdict =
  | 'ok'
  | 'out-of-scope'
  | 'excluded'
  | 'trap-length'
  | 'trap-repeat'
  | 'trap-query'
  | 'trap-shape';

/** Options of a {@link Scope}; see {@link SCOPE_DEFAULTS} for the numeric defaults. */
export interface ScopeOptions {
  /** Scope rule, see {@link ScopeMode}. */
  mode: ScopeMode;
  /** Seed URLs (canonical; they are canonicalized again, so near-canonical input is fine). */
  seeds: string[];
  /** If non-empty, a URL must match at least one of these (tested on the full canonical URL). */
  include: RegExp[];
  /** A URL matching any of these is `excluded` (tested on the full canonical URL). */
  exclude: RegExp[];
  /** Longest URL accepted, in UTF-16 code units (= bytes for canonical URLs); 0 = unlimited. */
  maxUrlLength: number;
  /**
   * Most consecutive repetitions allowed of any path segment sequence; more is a trap:
   * with 3, `/a/b/a/b/a/b/` passes and `/a/b/a/b/a/b/a/b/` does not. 0 = unlimited.
   */
  maxPathRepeat: number;
  /**
   * Most distinct queries accepted per scheme-less host+path (`/list?page=1`, `?page=2`, ...);
   * URLs without a query are never counted. 0 = unlimited.
   */
  maxQueryVariants: number;
  /**
   * Most distinct URLs accepted per URL shape (host, path and query with digit runs generalised,
   * see `shape-budget.ts`). 0 = unlimited (the default); {@link Scope.freezeShape} applies
   * either way.
   */
  maxShapeVariants?: number;
}

/**
 * Default limits for {@link ScopeOptions}:
 * - `maxUrlLength` 2048 characters (common server and browser limits sit at 2–8 KiB; longer URLs
 *   are almost always generated session/state junk);
 * - `maxPathRepeat` 3 consecutive repetitions of a segment sequence (relative-link loops such as
 *   `/a/b/a/b/a/b/a/b/`);
 * - `maxQueryVariants` 1000 distinct queries per host+path (calendars, faceted search, sort orders).
 */
export const SCOPE_DEFAULTS = { maxUrlLength: 2048, maxPathRepeat: 3, maxQueryVariants: 1000 } as const;

/**
 * Most host+path entries the query-variant counter remembers; beyond it the oldest entries are
 * forgotten (their counts restart), which bounds memory to a few MB for any crawl size.
 */
const QUERY_TRACKED_PATHS_LIMIT = 65_536;

/** Most hostname → registrable domain results cached for `domain` mode before the cache is reset. */
const DOMAIN_CACHE_LIMIT = 4096;

/** tldts options, built once: input is already a bare lowercase hostname. */
const TLDTS_OPTIONS = { allowPrivateDomains: true, extractHostname: false } as const;

const SCOPE_MODES: readonly ScopeMode[] = ['prefix', 'host', 'domain', 'any'];

/**
 * Parses a `--scope` value (case-insensitive, surrounding whitespace ignored).
 *
 * @throws Error `--scope: expected prefix|host|domain|any, got "x"` for anything else.
 */
export function parseScopeMode(s: string): ScopeMode {
  const mode = s.trim().toLowerCase();
  if ((SCOPE_MODES as readonly string[]).includes(mode)) return mode as ScopeMode;
  throw new Error(`--scope: expected prefix|host|domain|any, got ${JSON.stringify(s)}`);
}

/** 32-bit FNV-1a of `s[from, to)`, as an unsigned integer. */
function fnv1a(s: string, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Index just after `scheme://` of a canonical URL. */
function authorityStart(url: string): number {
  const sep = url.indexOf('//');
  return sep === -1 ? 0 : sep + 2;
}

/** Index of the `/` starting the path of a canonical URL (its length if there is none). */
function pathStart(url: string, from: number): number {
  const i = url.indexOf('/', from);
  return i === -1 ? url.length : i;
}

/** Hostname part of a host key: `[::1]:80` → `[::1]`, `h:8080` → `h`. */
function hostnameOf(host: string): string {
  if (host.charCodeAt(0) === 0x5b) {
    const close = host.indexOf(']');
    return close === -1 ? host : host.slice(0, close + 1);
  }
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/** Whether `re.test` is stateless; `g`/`y` regexes keep `lastIndex` between calls. */
function stateless(re: RegExp): RegExp {
  return re.global || re.sticky ? new RegExp(re.source, re.flags.replace(/[gy]/g, '')) : re;
}

/**
 * Whether the path segments `segs` contain a run of k segments repeated more than `maxRepeat`
 * times back to back, for any k. O(n²/maxRepeat) compares; n is small.
 */
function hasRepeatedRun(segs: string[], maxRepeat: number): boolean {
  const n = segs.length;
  for (let k = 1; k * (maxRepeat + 1) <= n; k++) {
    // run = how many consecutive positions j satisfy segs[j] === segs[j - k]; a run of
    // k × maxRepeat means the k-segment block occurs maxRepeat + 1 times in a row.
    let run = 0;
    const need = k * maxRepeat;
    for (let j = k; j < n; j++) {
      if (segs[j] === segs[j - k]) {
        if (++run >= need) return true;
      } else {
        run = 0;
      }
    }
  }
  return false;
}

/**
 * The label of a page requisite (an image, stylesheet, script, icon or font a page loads: wget
 * `-p`), as the `crawl` source gives it with `pageRequisites`: such a request is in scope when it
 * is on the same site as a seed (its registrable domain), whatever the scope mode, and is fetched
 * past `--max-depth`.
 */
export const REQUISITE_LABEL = 'requisite';

/**
 * Scope and trap checker for one crawl. Holds the seeds' prefixes/hosts/domains and a bounded
 * count of distinct queries per path, so it is stateful: {@link Scope.check} counts every URL
 * that reaches the query-variant check (each process checks the URLs it discovers).
 */
export class Scope {
  private readonly mode: ScopeMode;
  private readonly include: RegExp[];
  private readonly exclude: RegExp[];
  private readonly maxUrlLength: number;
  private readonly maxPathRepeat: number;
  private readonly maxQueryVariants: number;
  /** prefix mode: host key → allowed path prefixes (each ending in `/`). */
  private readonly prefixes = new Map<string, string[]>();
  /** host mode: allowed host keys; domain mode: allowed registrable domains (or exact hostnames). */
  private readonly allowed = new Set<string>();
  private readonly domainCache = new Map<string, string>();
  /** Hostnames of the seeds, in the order added. */
  private readonly seedHostnames: string[] = [];
  /**
   * Registrable domains (or hostnames) of the seeds: the site page requisites may come from.
   * Made on the first requisite checked, so that a crawl without requisites never loads tldts
   * (~12 ms of start-up); null until then.
   */
  private sites: Set<string> | null = null;
  /** hash(host+path) → the only query hash seen so far, or the set of them. */
  private readonly queries = new Map<number, number | HashSet32>();
  private readonly shapes: ShapeBudget;

  /**
   * @param opts see {@link ScopeOptions}; regexes with the `g`/`y` flag are copied without it.
   * @throws Error when a seed is not an http(s) URL.
   */
  constructor(opts: ScopeOptions) {
    this.mode = opts.mode;
    this.include = opts.include.map(stateless);
    this.exclude = opts.exclude.map(stateless);
    this.maxUrlLength = opts.maxUrlLength;
    this.maxPathRepeat = opts.maxPathRepeat;
    this.maxQueryVariants = opts.maxQueryVariants;
    this.shapes = new ShapeBudget(opts.maxShapeVariants);
    for (const seed of opts.seeds) this.addSeed(seed);
  }

  /**
   * Widens the scope with one more seed (e.g. a URL added at run time).
   * @throws Error when `url` is not an http(s) URL.
   */
  addSeed(url: string): void {
    const canonical = canonicalize(url);
    if (canonical === null) throw new Error(`scope: seed is not an http(s) URL: ${JSON.stringify(url)}`);
    const host = hostKey(canonical);
    this.seedHostnames.push(hostnameOf(host));
    this.sites?.add(this.domainOf(hostnameOf(host)));
    switch (this.mode) {
      case 'prefix': {
        const start = pathStart(canonical, authorityStart(canonical));
        let end = canonical.indexOf('?', start);
        if (end === -1) end = canonical.length;
        const dir = canonical.slice(start, canonical.lastIndexOf('/', end - 1) + 1) || '/';
        const list = this.prefixes.get(host);
        if (list === undefined) {
          this.prefixes.set(host, [dir]);
        } else if (!list.some((p) => dir.startsWith(p))) {
          // Keep the list minimal: the new prefix replaces the ones it covers.
          const kept = list.filter((p) => !p.startsWith(dir));
          kept.push(dir);
          this.prefixes.set(host, kept);
        }
        break;
      }
      case 'host':
        this.allowed.add(host);
        break;
      case 'domain':
        this.allowed.add(this.domainOf(hostnameOf(host)));
        break;
      case 'any':
        break;
    }
  }

  /**
   * Checks one canonical URL: length → scope → include/exclude → path repetition → query
   * variants → shape budget (see {@link ScopeVerdict}). Only a URL passing all earlier checks is counted
   * toward its path's query variants; re-checking an already counted URL stays `ok`.
   *
   * A page requisite (`requisite`) is in scope on a seed's site (registrable domain) in every
   * mode, and `--include` does not apply to it (it names pages); `--exclude` and the traps do.
   *
   * @param url a canonical URL from {@link canonicalize}.
   */
  check(url: string, requisite = false): ScopeVerdict {
    if (this.maxUrlLength > 0 && url.length > this.maxUrlLength) return 'trap-length';
    const authority = authorityStart(url);
    const path = pathStart(url, authority);
    if (requisite) {
      if (this.mode !== 'any' && !this.seedSites().has(this.domainOf(hostnameOf(hostKey(url)))))
        return 'out-of-scope';
    } else if (!this.inScope(url, path)) return 'out-of-scope';
    if (!requisite && this.include.length > 0 && !this.include.some((re) => re.test(url))) return 'excluded';
    if (this.exclude.length > 0 && this.exclude.some((re) => re.test(url))) return 'excluded';
    let query = url.indexOf('?', path);
    if (query === -1) query = url.length;
    if (this.maxPathRepeat > 0 && this.isRepeatTrap(url, path, query)) return 'trap-repeat';
    if (this.maxQueryVariants > 0 && query < url.length && !this.countQuery(url, authority, query)) {
      return 'trap-query';
    }
    if (!this.shapes.admit(url)) return 'trap-shape';
    return 'ok';
  }

  /**
   * Stop admitting new URLs of the shape of `url` (its pages were found to be near-duplicates);
   * URLs already admitted stay `ok`. @returns whether the shape was newly frozen.
   */
  freezeShape(url: string): boolean {
    return this.shapes.freeze(url);
  }

  private inScope(url: string, path: number): boolean {
    switch (this.mode) {
      case 'any':
        return true;
      case 'host':
        return this.allowed.has(hostKey(url));
      case 'domain':
        return this.allowed.has(this.domainOf(hostnameOf(hostKey(url))));
      case 'prefix': {
        const list = this.prefixes.get(hostKey(url));
        if (list === undefined) return false;
        for (const p of list) if (url.startsWith(p, path)) return true;
        return false;
      }
    }
  }

  /** The registrable domains (or hostnames) of the seeds, made on first use. */
  private seedSites(): Set<string> {
    this.sites ??= new Set(this.seedHostnames.map((h) => this.domainOf(h)));
    return this.sites;
  }

  /** Registrable domain of a lowercase hostname, or the hostname itself (IPs, `localhost`). */
  private domainOf(hostname: string): string {
    let domain = this.domainCache.get(hostname);
    if (domain === undefined) {
      domain = getDomain()(hostname, TLDTS_OPTIONS) ?? hostname;
      if (this.domainCache.size >= DOMAIN_CACHE_LIMIT) this.domainCache.clear();
      this.domainCache.set(hostname, domain);
    }
    return domain;
  }

  private isRepeatTrap(url: string, path: number, query: number): boolean {
    // Cheap pre-check: a trap needs more than maxPathRepeat segments (one per '/').
    let slashes = 0;
    for (let i = path; i < query; i++) if (url.charCodeAt(i) === 0x2f) slashes++;
    if (slashes <= this.maxPathRepeat) return false;
    return hasRepeatedRun(url.slice(path + 1, query).split('/'), this.maxPathRepeat);
  }

  /** Records the query of `url` for its host+path; false when that path is already full. */
  private countQuery(url: string, authority: number, query: number): boolean {
    const key = fnv1a(url, authority, query);
    const q = fnv1a(url, query + 1, url.length);
    const entry = this.queries.get(key);
    if (entry === undefined) {
      if (this.queries.size >= QUERY_TRACKED_PATHS_LIMIT) {
        // Forget the oldest path (Map iterates in insertion order).
        this.queries.delete(this.queries.keys().next().value as number);
      }
      this.queries.set(key, q);
      return true;
    }
    if (typeof entry === 'number') {
      if (entry === q) return true;
      if (this.maxQueryVariants <= 1) return false;
      const set = new HashSet32();
      set.add(entry);
      set.add(q);
      this.queries.set(key, set);
      return true;
    }
    if (entry.size < this.maxQueryVariants) {
      entry.add(q);
      return true;
    }
    return entry.has(q);
  }
}
