/**
 * robots.txt per RFC 9309 behind a bounded per-origin cache: one fetch per origin (shared by
 * concurrent callers), verdicts for URLs with the crawl-delay of the group that matches our agent.
 *
 * Rule matching is robots-parser 3's (node_modules/robots-parser/Robots.js), checked against
 * RFC 9309: the longest matching pattern wins and Allow wins a tie (§2.2.2); `*` matches any
 * sequence and a trailing `$` anchors the end (§2.2.3, Google's robotstxt matching algorithm);
 * patterns and paths are compared percent-encoded with uppercase hex; groups are chosen by exact,
 * case-insensitive product token (a `User-agent: collector/1.0` line counts as `collector`), several
 * groups for one agent are merged, and `*` is used only when no group names us (§2.2.1). A group
 * naming us with no Crawl-delay has none — the `*` group's delay is not inherited.
 * Fetching, status handling (§2.3.1), caching (§2.4) and size limits (§2.5) live here.
 */
import { createRequire } from 'node:module';
import { FetchError, type FetchErrorKind, NO_ANSWER_KINDS } from './fetch-error.js';

// robots-parser is CommonJS whose typings declare an ESM default export; under NodeNext a default
// import would be typed as the module namespace, so load it with require and take the typed default.
type RobotsParser = typeof import('robots-parser')['default'];
const robotsParser = createRequire(import.meta.url)('robots-parser') as RobotsParser;

/**
 * Fetches one URL for robots.txt, ONE hop: redirects are returned (3xx + `location`), not
 * followed. Resolves with the status, the raw Location header (or null) and the body as text
 * (UTF-8; the implementation should stop reading after about `maxBytes`). Rejects on network
 * errors and timeouts, with a {@link FetchError} whose kind says which (`network`, `dns`,
 * `timeout`) — it must not hang, or every check for that origin waits with it.
 */
export type RobotsFetch = (url: string) => Promise<{ status: number; location: string | null; body: string }>;

/** Options of {@link RobotsCache}; the optional ones default to {@link ROBOTS_DEFAULTS}. */
export interface RobotsOptions {
  /**
   * Our full User-Agent string, e.g. 'collector/0.1 (+https://example.org/bot)'. Groups are
   * matched by its product token: the leading run of letters, '_' and '-' ('collector').
   */
  userAgent: string;
  /** One-hop fetcher supplied by the HTTP layer. */
  fetch: RobotsFetch;
  /** How long a fetched robots.txt (2xx, or 4xx = allow all) is trusted, in ms. Default 24 h. */
  ttlMs?: number;
  /**
   * After a 5xx or 429 everything on the origin is disallowed for this long (ms), then robots.txt
   * is fetched again. Default 60 s.
   */
  errorRetryMs?: number;
  /** Redirects followed for one robots.txt (RFC 9309: at least 5); past that: allow all. Default 5. */
  maxRedirects?: number;
  /** robots.txt bytes parsed (RFC 9309: at least 500 KiB); the rest is ignored. Default 512,000. */
  maxBytes?: number;
  /** Origins kept; the least recently used is evicted past this. Default 10,000. */
  maxOrigins?: number;
  /** Clock in ms since the epoch; injectable for tests. Default `Date.now`. */
  now?: () => number;
}

/** Defaults of the optional {@link RobotsOptions} (all durations in ms, sizes in bytes). */
export const ROBOTS_DEFAULTS = {
  /** RFC 9309 §2.4: a cached robots.txt SHOULD NOT be used for more than 24 hours. */
  ttlMs: 24 * 60 * 60 * 1000,
  /** Retry an unavailable robots.txt (5xx, 429) after one minute; meanwhile the origin is disallowed. */
  errorRetryMs: 60 * 1000,
  /** RFC 9309 §2.3.1.2: follow at least five consecutive redirects. */
  maxRedirects: 5,
  /** RFC 9309 §2.5: parse at least 500 kibibytes. */
  maxBytes: 500 * 1024,
  /** Cache bound: ~10,000 origins × a parsed robots.txt each. */
  maxOrigins: 10_000,
} as const;

/** The answer for one URL. */
export interface RobotsVerdict {
  /** Whether our agent may fetch the URL. */
  allowed: boolean;
  /** The origin's Crawl-delay for our group in ms (fractional seconds × 1000), or null if none. */
  crawlDelayMs: number | null;
  /**
   * Why it is not allowed: a rule matched; robots.txt is unavailable (the server answered 5xx or
   * 429: RFC 9309 §2.3.1.4, complete disallow); or robots.txt is unreachable (the host did not
   * answer: no verdict at all — the URL cannot be fetched either, for the reason in `cause`).
   */
  reason?: 'disallowed' | 'unavailable' | 'unreachable';
  /** With `unavailable`: the status robots.txt was answered with. */
  status?: number;
  /** With `unreachable`: why robots.txt could not be fetched (`network`, `dns`, `timeout`). */
  cause?: { kind: FetchErrorKind; message: string };
}

type Robot = ReturnType<typeof robotsParser>;

/** One origin's robots.txt outcome (cached, except 'unreachable'). */
interface Entry {
  /**
   * 'rules' = parsed 2xx body; 'allow' = 4xx / too many redirects; 'unavailable' = 5xx/429:
   * disallow all; 'unreachable' = no answer (never cached: the next check fetches again).
   */
  kind: 'rules' | 'allow' | 'unavailable' | 'unreachable';
  robot: Robot | null;
  crawlDelayMs: number | null;
  /** Absolute http(s) URLs of its `Sitemap:` lines, in file order (empty unless 'rules'). */
  sitemaps: readonly string[];
  expiresAt: number;
  /** 'unavailable': the status; 'unreachable': why. */
  status?: number;
  cause?: { kind: FetchErrorKind; message: string };
}

const ALLOW_ALL: RobotsVerdict = Object.freeze({ allowed: true, crawlDelayMs: null });

/** RFC 9309 §2.3: the file's fixed location; always allowed itself. */
const ROBOTS_PATH = '/robots.txt';

/** RFC 9309 §2.2.1: a product token is letters, '_' and '-'. */
const PRODUCT_TOKEN = /^[A-Za-z_-]+/;

/**
 * Per-origin robots.txt cache (origin = scheme://host:port).
 *
 * Status handling (RFC 9309 §2.3.1): 2xx → parse the body (cut at `maxBytes`); 3xx → follow
 * Location (resolved against the current URL, any host) up to `maxRedirects`, then allow all;
 * 4xx → allow all, except 429 which, like Google, we treat as the server being unavailable;
 * 5xx, 429 and other statuses → disallow all (reason 'unavailable', RFC 9309 §2.3.1.4) for
 * `errorRetryMs`, then fetch again. No answer at all (connection refused, DNS failure, timeout) is
 * no verdict: reason 'unreachable' with the cause, not cached, so the next check (the URL's
 * retry) fetches again; a robots.txt cached earlier is kept meanwhile, past its `ttlMs` (RFC 9309
 * §2.4 allows a stale copy while the file is unreachable). `/robots.txt` itself is always
 * allowed. Concurrent checks for one origin share one fetch; entries expire after `ttlMs` and are
 * refetched on the next check.
 */
export class RobotsCache {
  private readonly agent: string;
  private readonly fetchOne: RobotsFetch;
  private readonly ttlMs: number;
  private readonly errorRetryMs: number;
  private readonly maxRedirects: number;
  private readonly maxBytes: number;
  private readonly maxOrigins: number;
  private readonly now: () => number;
  /** Map order is recency order: a hit moves the origin to the end, eviction takes the front. */
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Entry>>();

  /** @throws RangeError if a numeric option is negative or not a number. */
  constructor(opts: RobotsOptions) {
    const token = PRODUCT_TOKEN.exec(opts.userAgent.trim());
    this.agent = token === null ? '*' : token[0].toLowerCase();
    this.fetchOne = opts.fetch;
    this.ttlMs = nonNegative('ttlMs', opts.ttlMs ?? ROBOTS_DEFAULTS.ttlMs);
    this.errorRetryMs = nonNegative('errorRetryMs', opts.errorRetryMs ?? ROBOTS_DEFAULTS.errorRetryMs);
    this.maxRedirects = nonNegative('maxRedirects', opts.maxRedirects ?? ROBOTS_DEFAULTS.maxRedirects);
    this.maxBytes = nonNegative('maxBytes', opts.maxBytes ?? ROBOTS_DEFAULTS.maxBytes);
    this.maxOrigins = Math.max(1, nonNegative('maxOrigins', opts.maxOrigins ?? ROBOTS_DEFAULTS.maxOrigins));
    this.now = opts.now ?? Date.now;
  }

  /** The product token groups are matched against, e.g. 'collector'. */
  get productToken(): string {
    return this.agent;
  }

  /**
   * The verdict for an absolute URL, fetching its origin's robots.txt first when it is not cached
   * or has expired. Never rejects because of the robots.txt fetch (failures become 'unavailable');
   * URLs that are not http(s) are allowed (robots.txt does not apply).
   * @throws TypeError (as a rejection) if `url` is not an absolute URL.
   */
  async check(url: string): Promise<RobotsVerdict> {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return ALLOW_ALL;
    const origin = u.origin;
    let entry = this.fresh(origin);
    if (entry === undefined) {
      if (u.pathname === ROBOTS_PATH) return ALLOW_ALL; // no need to fetch it to allow fetching it
      entry = await this.load(origin);
    }
    return this.verdict(entry, u, url);
  }

  /**
   * The verdict for `url` if its origin's robots.txt is cached and fresh, else undefined.
   * Synchronous, for the frontier's fast path. Non-http(s) URLs are allowed.
   * @throws TypeError if `url` is not an absolute URL.
   */
  peek(url: string): RobotsVerdict | undefined {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return ALLOW_ALL;
    const entry = this.fresh(u.origin);
    if (entry === undefined) return u.pathname === ROBOTS_PATH ? ALLOW_ALL : undefined;
    return this.verdict(entry, u, url);
  }

  /**
   * The `Sitemap:` URLs of the robots.txt governing `url`'s origin, if it is cached and fresh
   * (empty when it has none, failed, or was not found); undefined when not cached. Synchronous:
   * it never fetches — call {@link check} first. A sitemap source uses {@link sitemapsInRobotsTxt}
   * on a robots.txt it fetched itself instead.
   * @throws TypeError if `url` is not an absolute URL.
   */
  sitemaps(url: string): readonly string[] | undefined {
    return this.fresh(new URL(url).origin)?.sitemaps;
  }

  /**
   * Origins whose robots.txt was unavailable (5xx, 429, unreachable) and is not to be fetched
   * again before `until` (epoch ms): saved across a restart, so that a restart neither fetches it
   * again at once nor lets the origin's URLs through meanwhile.
   */
  unavailableOrigins(): Array<{ origin: string; until: number }> {
    const now = this.now();
    const out: Array<{ origin: string; until: number }> = [];
    for (const [origin, e] of this.entries) {
      if (e.kind === 'unavailable' && e.expiresAt > now) out.push({ origin, until: e.expiresAt });
    }
    return out;
  }

  /**
   * Take back an unavailable robots.txt saved before a restart ({@link unavailableOrigins}): the
   * origin is disallowed until `until` (epoch ms, at most `errorRetryMs` from now), then fetched
   * again. Ignored when already past, or when the origin has an entry of its own.
   */
  restoreUnavailable(origin: string, until: number): void {
    const now = this.now();
    if (until <= now || this.entries.has(origin)) return;
    this.store(origin, {
      kind: 'unavailable',
      robot: null,
      crawlDelayMs: null,
      sitemaps: [],
      expiresAt: Math.min(until, now + this.errorRetryMs),
    });
  }

  /** The cached, unexpired entry for an origin (touching its recency), or undefined. */
  private fresh(origin: string): Entry | undefined {
    const entry = this.entries.get(origin);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.delete(origin);
    this.entries.set(origin, entry);
    return entry;
  }

  private verdict(entry: Entry, u: URL, url: string): RobotsVerdict {
    if (u.pathname === ROBOTS_PATH) {
      return entry.crawlDelayMs === null ? ALLOW_ALL : { allowed: true, crawlDelayMs: entry.crawlDelayMs };
    }
    if (entry.kind === 'allow') return ALLOW_ALL;
    if (entry.kind === 'unavailable') {
      return { allowed: false, crawlDelayMs: null, reason: 'unavailable', status: entry.status };
    }
    if (entry.kind === 'unreachable') {
      return { allowed: false, crawlDelayMs: null, reason: 'unreachable', cause: entry.cause };
    }
    // isAllowed is undefined only if the URL's origin differs from the robots.txt URL it was parsed with, which the keying prevents
    const allowed = entry.robot!.isAllowed(url, this.agent) !== false;
    return allowed
      ? { allowed: true, crawlDelayMs: entry.crawlDelayMs }
      : { allowed: false, crawlDelayMs: entry.crawlDelayMs, reason: 'disallowed' };
  }

  /**
   * Fetches an origin's robots.txt once, however many callers ask meanwhile, and caches it. When
   * it is unreachable, an earlier copy (expired) is used and kept a while longer, if there is one.
   */
  private load(origin: string): Promise<Entry> {
    let pending = this.inflight.get(origin);
    if (pending === undefined) {
      pending = this.fetchEntry(origin).then((entry) => {
        this.inflight.delete(origin);
        if (entry.kind !== 'unreachable') {
          this.store(origin, entry);
          return entry;
        }
        const stale = this.entries.get(origin);
        if (stale === undefined || stale.kind === 'unavailable') return entry;
        stale.expiresAt = this.now() + this.errorRetryMs;
        return stale;
      });
      this.inflight.set(origin, pending);
    }
    return pending;
  }

  private store(origin: string, entry: Entry): void {
    this.entries.delete(origin);
    this.entries.set(origin, entry);
    while (this.entries.size > this.maxOrigins) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** Fetches robots.txt following redirects hop by hop; never rejects. */
  private async fetchEntry(origin: string): Promise<Entry> {
    const robotsUrl = `${origin}${ROBOTS_PATH}`;
    let target = robotsUrl;
    for (let hop = 0; ; hop++) {
      let res: Awaited<ReturnType<RobotsFetch>>;
      try {
        res = await this.fetchOne(target);
      } catch (e) {
        const kind = e instanceof FetchError ? e.kind : 'network';
        const message = (e as Error)?.message ?? String(e);
        // An answer the server sent but we could not use (too large, undecodable): unavailable.
        if (!NO_ANSWER_KINDS.has(kind)) return this.entry('unavailable');
        return { ...this.entry('unavailable'), kind: 'unreachable', cause: { kind, message } };
      }
      const { status } = res;
      if (status >= 200 && status < 300) return this.parse(robotsUrl, res.body);
      if (status >= 300 && status < 400) {
        const next = hop < this.maxRedirects ? resolveLocation(res.location, target) : null;
        // RFC 9309 §2.3.1.2: past the redirect limit (or nowhere to go) it MAY be treated as 404
        if (next === null) return this.entry('allow');
        target = next;
        continue;
      }
      if (status >= 400 && status < 500 && status !== 429) return this.entry('allow');
      return { ...this.entry('unavailable'), status };
    }
  }

  private entry(kind: 'allow' | 'unavailable'): Entry {
    const ttl = kind === 'allow' ? this.ttlMs : this.errorRetryMs;
    return { kind, robot: null, crawlDelayMs: null, sitemaps: [], expiresAt: this.now() + ttl };
  }

  private parse(robotsUrl: string, body: string): Entry {
    const robot = robotsParser(robotsUrl, cleanText(body, this.maxBytes));
    const delay = robot.getCrawlDelay(this.agent);
    const crawlDelayMs =
      typeof delay === 'number' && Number.isFinite(delay) && delay > 0 ? Math.round(delay * 1000) : null;
    const sitemaps = sitemapUrls(robot, robotsUrl);
    return { kind: 'rules', robot, crawlDelayMs, sitemaps, expiresAt: this.now() + this.ttlMs };
  }
}

/**
 * The `Sitemap:` lines of a robots.txt body (RFC 9309 §2.2.4; sitemaps.org "Specifying the
 * Sitemap location"): absolute http(s) URLs in file order, each once, relative values resolved
 * against `robotsUrl`, others dropped. Lines are read wherever they stand (outside any group).
 * @param body the robots.txt text; bytes past {@link ROBOTS_DEFAULTS}.maxBytes are ignored.
 * @param robotsUrl the URL it was fetched from.
 */
export function sitemapsInRobotsTxt(body: string, robotsUrl: string): string[] {
  return sitemapUrls(robotsParser(robotsUrl, cleanText(body, ROBOTS_DEFAULTS.maxBytes)), robotsUrl);
}

function sitemapUrls(robot: Robot, robotsUrl: string): string[] {
  const out: string[] = [];
  for (const raw of robot.getSitemaps()) {
    const url = resolveLocation(raw, robotsUrl);
    if (url !== null && !out.includes(url)) out.push(url);
  }
  return out;
}

/** The body cut at `maxBytes` (whole lines) without a leading BOM. */
function cleanText(body: string, maxBytes: number): string {
  const text = truncateUtf8(body, maxBytes);
  // a UTF-8 BOM would otherwise glue itself to the first "User-agent" and hide that group
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function nonNegative(name: string, value: number): number {
  if (!(value >= 0)) throw new RangeError(`robots: ${name} must be a non-negative number, got ${value}`);
  return value;
}

/** Absolute http(s) URL for a Location header value relative to `base`, or null. */
function resolveLocation(location: string | null, base: string): string | null {
  if (location === null || location.trim() === '') return null;
  try {
    const u = new URL(location.trim(), base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/**
 * The text up to `maxBytes` UTF-8 bytes, cut back to the last complete line so a half rule
 * (`Allow: /` cut from `Allow: /docs`) never widens what is allowed.
 */
function truncateUtf8(text: string, maxBytes: number): string {
  // UTF-8 takes at most 3 bytes per UTF-16 code unit, so short strings skip the byte count
  if (text.length <= maxBytes / 3 || Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const cut = Buffer.from(text, 'utf8').subarray(0, maxBytes).toString('utf8');
  const lastNewline = Math.max(cut.lastIndexOf('\n'), cut.lastIndexOf('\r'));
  return lastNewline < 0 ? '' : cut.slice(0, lastNewline);
}
