/**
 * One try of one URL over the network: robots.txt, then hop by hop through its redirects (3xx, and
 * a page's refresh redirect), each hop checked again against robots.txt, the scope and the
 * seen-set, so a redirect can lead nowhere a link could not; a loop is the same URL requested with
 * the same cookies again ({@link HopTrail}). Ends with the last hop's response, or why the try
 * failed; builds no item.
 *
 * Each hop carries the request's own headers; the source's `authorize()` headers (credentials)
 * are asked for at send time and sent only to the request's own origin: a redirect to another
 * origin goes without them (as the Fetch standard drops `Authorization` across origins). A
 * request marked `robots: false` (an API call) skips robots.txt on all its hops. A hop of a source
 * with a rate budget waits for it (a `wait` result: the request goes back to its host's queue
 * without using a try) and tells it the response; a rate-limit refusal waits the same way.
 */
import type { SeenSet } from '../dedup/seen-set.js';
import type { FrontierEntry } from '../frontier/frontier-queue.js';
import { type BlockDetector, BodyWithin } from '../http/block-page.js';
import { type FetchError, type FetchErrorKind, NO_ANSWER_KINDS } from '../http/fetch-error.js';
import type { Fetcher, HopResponse } from '../http/fetcher.js';
import type { BudgetKey } from '../http/rate-budget.js';
import type { RobotsCache } from '../http/robots.js';
import { canonicalize, hostKey } from '../url/canonicalize.js';
import { REQUISITE_LABEL, type Scope } from '../url/scope.js';
import type { SessionIdStripper } from '../url/session-ids.js';
import { HopTrail } from './hop-trail.js';
import type { HostPolicy } from './host-policy.js';
import {
  type BudgetEvent,
  bodyHint,
  type HopBudget,
  rateLimitHeaders,
  rateLimitRefusal,
} from './rate-gate.js';
import type { WarcRecorder } from './warc-recorder.js';

/** Largest number of redirect hops followed for one URL. */
export const MAX_REDIRECTS = 10;

/** Where a try ended. */
export type HopResult = HopAnswer | HopFailure | HopWait;

/** The rate budget says not yet: try again at `until` (epoch ms), without using a try. */
export interface HopWait {
  kind: 'wait';
  until: number;
}

/** The last hop's response: a final answer, or a redirect recorded as it is (`data` says why). */
export interface HopAnswer {
  kind: 'answer';
  res: HopResponse;
  /** URL of the last hop. */
  finalUrl: string;
  /** Item `data` of a redirect not followed (`redirectTo`, `redirectSeen`, `note`). */
  data?: Record<string, unknown>;
  /** The hops of this try: a refresh redirect of the page continues it ({@link HopLoop.refresh}). */
  trail: HopTrail;
  /**
   * `res.body` without its Content-Encoding, when the block-page check already inflated all of it
   * (pages up to 64 KiB): the page processor is handed these bytes instead of inflating again.
   */
  decoded?: Buffer;
}

/** A failed try. */
export interface HopFailure {
  kind: 'failure';
  /** Where it failed (the item's `finalUrl`). */
  url: string;
  error: FetchErrorKind;
  message: string;
  status: number | null;
  /** Worth another try (network error, timeout, retryable status, robots.txt unavailable). */
  retryable: boolean;
  /** The wait asked for (Retry-After, robots.txt retry), ms; null for the usual backoff. */
  retryAfterMs: number | null;
  /** The failing response (its body is hashed into the item). */
  res?: HopResponse;
  /** Content-Type of a response that failed without one (e.g. too large), for the item. */
  contentType?: string | null;
}

/** What the hop loop works with. */
export interface HopLoopParts {
  fetcher: Fetcher;
  /** null with `--no-robots`. */
  robots: RobotsCache | null;
  scope: Scope;
  seen: SeenSet;
  policy: HostPolicy;
  /** Session-id removal from redirect targets (`--keep-param`). */
  sessionIds: SessionIdStripper;
  /** Aborted when in-flight requests are abandoned (second signal, join timeout). */
  signal: AbortSignal;
  /**
   * The source's `authorize()`: headers for one hop to the request's own origin (never stored or
   * logged); absent when the source has none.
   */
  authorize?: (url: string, label: string | undefined) => Promise<Record<string, string> | null>;
  /** Told each request's duration, ms (metrics). */
  onFetch?: (ms: number) => void;
  /**
   * The conditional headers of a URL fetched again as a revisit (sent on its first hop only):
   * absent without continuous collection.
   */
  conditional?: (url: string) => Record<string, string> | undefined;
  /** The source's rate budgets (`rateBudget`), when it has them. */
  budget?: HopBudget;
  /** Told each request the budget holds back (primary or secondary wait) and each rate-limit refusal. */
  onBudget?: (event: BudgetEvent) => void;
  /** Recognises block and challenge pages (`blocked` failures); absent: none are. */
  blocks?: BlockDetector;
  /** `--warc`: told every fetch (the fetcher records exchanges); absent without it. */
  warc?: WarcRecorder;
}

/** Runs tries of URLs (see the module comment). One per worker. */
export class HopLoop {
  /** Redirect targets a URL's earlier tries added to the seen-set: its retry may follow them again. */
  private readonly ownHops = new Map<string, Set<string>>();
  /** Trails of URLs whose page was a refresh redirect, continued by their next try. */
  private readonly refreshTrails = new Map<string, HopTrail>();

  constructor(private readonly parts: HopLoopParts) {}

  /** One try of `entry`. @returns where it ended, or null when it was abandoned at stop. */
  async run(entry: FrontierEntry): Promise<HopResult | null> {
    const { fetcher, policy, signal } = this.parts;
    // A try after a refresh redirect goes on from where that one stopped.
    const trail =
      this.refreshTrails.get(entry.url) ?? new HopTrail(entry.url, fetcher.sessionState(entry.url));
    this.refreshTrails.delete(entry.url);
    let url = trail.last;
    const denied = await this.robotsGate(entry, url);
    // robots.txt was being fetched when in-flight requests were abandoned: no item.
    if (signal.aborted) return null;
    if (denied) return denied;
    for (;;) {
      let res: HopResponse;
      let headers = entry.meta?.headers;
      let secret: string[] | undefined;
      if (this.parts.authorize !== undefined) {
        try {
          ({ headers, secret } = await this.authorized(entry, url));
        } catch (e) {
          const message = `authorize() failed: ${(e as Error)?.message ?? String(e)}`.split('\n')[0];
          return failure(url, 'source', message, null, false, null);
        }
      }
      if (url === entry.url && this.parts.conditional !== undefined) {
        const validators = this.parts.conditional(url);
        if (validators !== undefined) headers = { ...headers, ...validators };
      }
      let key: BudgetKey | null = null;
      try {
        key = this.parts.budget?.keyOf(url, entry.meta?.label) ?? null;
      } catch (e) {
        const message = `rateBudget() failed: ${(e as Error)?.message ?? String(e)}`.split('\n')[0];
        return failure(url, 'source', message, null, false, null);
      }
      const budgets = this.parts.budget?.budgets;
      if (key !== null && budgets !== undefined) {
        const grant = await budgets.reserve(key);
        if (!grant.ok) {
          if (grant.reason === 'primary' || grant.reason === 'secondary') {
            const scope = `${key.identity}/${key.resource}`;
            this.parts.onBudget?.({ kind: 'wait', scope, reason: grant.reason, until: grant.waitUntil });
          }
          return { kind: 'wait', until: grant.waitUntil };
        }
        if (signal.aborted) {
          budgets.release(key);
          return null;
        }
      }
      const fetchStart = performance.now();
      try {
        res = await fetcher.fetchHop(url, signal, false, undefined, headers);
        this.parts.onFetch?.(performance.now() - fetchStart);
        if (res.exchange !== undefined) this.parts.warc?.fetched(entry.url, res.exchange, secret);
      } catch (e) {
        if (key !== null) budgets?.observe(key, null, {});
        if (signal.aborted) return null;
        this.parts.onFetch?.(performance.now() - fetchStart);
        const fe = e as FetchError;
        const retryable = NO_ANSWER_KINDS.has(fe.kind);
        return failure(url, fe.kind, fe.message, fe.status, retryable, null, undefined, fe.contentType);
      }
      if (key !== null && budgets !== undefined) {
        const limits = rateLimitHeaders(res.headers);
        const hint = bodyHint(res.status, res.body, res.encoded === true ? res.contentEncoding : null);
        budgets.observe(key, res.status, limits, hint);
        // Refused for the rate limit: the budget now knows until when; ask it again then.
        const refusal = rateLimitRefusal(res.status, limits, hint);
        if (refusal !== null) {
          this.parts.onBudget?.({ kind: 'refusal', refusal });
          return { kind: 'wait', until: 0 };
        }
      }
      policy.afterHop(entry.host, res.headers);
      if (res.location !== null) {
        const target = canonicalize(res.location, url);
        if (target === null) {
          return {
            kind: 'answer',
            res,
            finalUrl: url,
            data: { redirectTo: res.location, note: 'redirect to a non-http(s) URL' },
            trail,
          };
        }
        const next = await this.hop(entry, trail, res, this.parts.sessionIds.strip(target));
        if (typeof next !== 'string') return next;
        url = next;
        continue;
      }
      const body = new BodyWithin(res);
      const blocked = this.parts.blocks?.judge(url, res, body) ?? null;
      if (blocked !== null) {
        // A wall, not the page: never its content; its host slowed down, the URL tried again later.
        const ra = policy.afterBlock(entry.host, res.headers, blocked);
        return failure(
          url,
          'blocked',
          `blocked: ${blocked} page (HTTP ${res.status})`,
          res.status,
          true,
          ra,
          res,
        );
      }
      const retryable = policy.afterStatus(entry.host, res.status, res.headers);
      if (retryable !== null) {
        return failure(
          url,
          'http-status',
          `HTTP ${res.status}`,
          res.status,
          true,
          retryable.retryAfterMs,
          res,
        );
      }
      const decoded = body.whole();
      return decoded === null
        ? { kind: 'answer', res, finalUrl: url, trail }
        : { kind: 'answer', res, finalUrl: url, trail, decoded };
    }
  }

  /**
   * The page of `answer` redirects by declarative refresh to canonical `target`: a hop of the
   * same try, checked like a 3xx Location. When it may be followed, the trail is kept and the
   * entry's next try (the caller puts it back in its host's queue, so the request waits for its
   * politeness gap) fetches the target first.
   * @returns the URL the next try fetches, or how this try ends (a failure, or a redirect to a
   *   URL already seen, recorded as it is).
   */
  async refresh(
    entry: FrontierEntry,
    answer: HopAnswer,
    target: string,
  ): Promise<HopAnswer | HopFailure | string> {
    const next = await this.hop(entry, answer.trail, answer.res, this.parts.sessionIds.strip(target));
    if (typeof next === 'string') this.refreshTrails.set(entry.url, answer.trail);
    return next;
  }

  /**
   * One redirect hop (a 3xx Location, or a page's refresh redirect) to canonical `target`:
   * checked for a loop (the same URL with the same cookies again), the hop limit, scope, the
   * seen-set and robots.txt, then added to the trail.
   * @returns the URL to fetch next, or the result that ends this try.
   */
  private async hop(
    entry: FrontierEntry,
    trail: HopTrail,
    res: HopResponse,
    target: string,
  ): Promise<HopAnswer | HopFailure | string> {
    const { fetcher, scope, seen } = this.parts;
    const state = fetcher.sessionState(target);
    if (trail.repeats(target, state)) {
      const loop = `redirect loop: ${[...trail.urls, target].join(' -> ')}`;
      return failure(target, 'redirect-loop', loop, res.status, false, null);
    }
    if (trail.redirects >= MAX_REDIRECTS) {
      const message = `more than ${MAX_REDIRECTS} redirects`;
      return failure(target, 'redirect-loop', message, res.status, false, null);
    }
    const verdict = scope.check(target, entry.meta?.label === REQUISITE_LABEL);
    if (verdict !== 'ok') {
      const message = `redirect to ${target} (${verdict})`;
      return failure(target, 'out-of-scope', message, res.status, false, null);
    }
    // A URL of this very trail (a cookie wall's redirect to itself) is this try's own.
    if (!trail.has(target) && !seen.add(target) && !this.ownHops.get(entry.url)?.has(target)) {
      // Already collected or queued under its own URL: record the redirect, do not fetch twice.
      const data = { redirectTo: target, redirectSeen: true };
      return { kind: 'answer', res, finalUrl: target, data, trail };
    }
    const own = this.ownHops.get(entry.url) ?? new Set<string>();
    this.ownHops.set(entry.url, own.add(target));
    trail.add(target, state);
    return (await this.robotsGate(entry, target)) ?? target;
  }

  /** The item of `url` is written: its own redirect targets need no longer be remembered. */
  forget(url: string): void {
    this.ownHops.delete(url);
    this.refreshTrails.delete(url);
  }

  /**
   * The extra headers of one hop of a source with `authorize()`: the request's own, and on the
   * request's own origin those `authorize()` gives.
   */
  private async authorized(
    entry: FrontierEntry,
    url: string,
  ): Promise<{ headers: Record<string, string> | undefined; secret?: string[] }> {
    const own = entry.meta?.headers;
    const authorize = this.parts.authorize;
    if (authorize === undefined || originOf(url) !== originOf(entry.url)) return { headers: own };
    const secret = await authorize(url, entry.meta?.label);
    if (secret === null) return { headers: own };
    // Their names, so that a WARC request record leaves them out.
    return { headers: { ...own, ...secret }, secret: Object.keys(secret).map((k) => k.toLowerCase()) };
  }

  /** robots.txt for one hop (and its Crawl-delay for the host). @returns a failure when denied. */
  private async robotsGate(entry: FrontierEntry, url: string): Promise<HopFailure | null> {
    const robots = this.parts.robots;
    if (robots === null || entry.meta?.robots === false) return null;
    const verdict = robots.peek(url) ?? (await robots.check(url));
    this.parts.warc?.claimRobots(entry.url);
    this.parts.policy.afterRobots(entry.host, verdict.crawlDelayMs);
    if (verdict.allowed) return null;
    if (verdict.reason === 'unreachable' && verdict.cause) {
      // No answer from the host at all: the page could not have been fetched either. Its item
      // says why (network, dns, timeout), retried on the usual schedule, robots.txt first again.
      const { kind, message } = verdict.cause;
      return failure(url, kind, `${message}; fetching robots.txt`, null, true, null);
    }
    if (verdict.reason === 'unavailable') {
      // RFC 9309 §2.3.1.4: the server answered robots.txt with an error: complete disallow.
      const message = `robots.txt unavailable (HTTP ${verdict.status}): the site is disallowed until it can be read`;
      return failure(url, 'robots-disallowed', message, null, true, this.parts.policy.robotsRetryWait);
    }
    return failure(url, 'robots-disallowed', 'disallowed by robots.txt', null, false, null);
  }
}

/** `scheme://host[:port]` of a canonical URL. */
function originOf(url: string): string {
  return `${url.slice(0, url.indexOf(':'))}://${hostKey(url)}`;
}

function failure(
  url: string,
  error: FetchErrorKind,
  message: string,
  status: number | null,
  retryable: boolean,
  retryAfterMs: number | null,
  res?: HopResponse,
  contentType?: string | null,
): HopFailure {
  return { kind: 'failure', url, error, message, status, retryable, retryAfterMs, res, contentType };
}
