/**
 * A service's announced request budget, kept once per credential and resource for the whole
 * collector: before each request `reserve` says "go" or "not before T"; after each response
 * `observe` reads the rate-limit headers. Pure (an injectable clock, no timers, no I/O) and
 * snapshotable, so one process can hold it, answer others over IPC, show waits in status and
 * persist it across restarts.
 *
 * Follows GitHub's documented behaviour (REST docs, "Rate limits for the REST API" and "Best
 * practices": `X-RateLimit-Limit/Remaining/Reset/Used/Resource`, secondary limits):
 * - after `X-RateLimit-Remaining: 0`, nothing for that resource before `X-RateLimit-Reset`;
 * - a 403/429 with `Retry-After` (RFC 9110 §10.2.3) blocks every request of the group (all API
 *   resources of that credential) until it has passed;
 * - a 403/429 with `Remaining: 0` and no `Retry-After` waits for the reset;
 * - any other rate-limit 403/429 waits at least a minute, doubling while they repeat;
 * - searches are spaced (unauthenticated: 10 a minute, so ≥ 6 s apart);
 * - a 304 (a conditional request answered "not modified") does not count against the limit.
 */
import { createHash } from 'node:crypto';
import { parseRetryAfter } from './retry-policy.js';

/** Whose budget and which part of it: a credential's identity and a resource (`core`, `search`, `raw`). */
export interface BudgetKey {
  /** From {@link credentialIdentity}: `anonymous` or a hash of the token, never the token. */
  identity: string;
  /** The rate-limit resource the request spends (GitHub's `X-RateLimit-Resource` names). */
  resource: string;
}

/** Why a request must wait. */
export type WaitReason =
  /** The resource's window is used up (`Remaining: 0`): until its reset. */
  | 'primary'
  /** A secondary limit (403/429 with `Retry-After`, or a rate-limit 403/429 without headers). */
  | 'secondary'
  /** The minimum gap between requests of this resource (unauthenticated search: 6 s). */
  | 'spacing'
  /** The first request for a resource is in flight; its response will tell the budget. */
  | 'probe';

/** A refusal: not before `waitUntil`. */
export interface BudgetWait {
  ok: false;
  /** Earliest send time, ms since the epoch. */
  waitUntil: number;
  reason: WaitReason;
}

/** The answer to {@link RateBudget.reserve}. */
export type Grant = { ok: true } | BudgetWait;

/** Response headers: a plain object with lowercase names (as Node gives them) or a `Headers`. */
export type HeaderSource =
  | Record<string, string | string[] | undefined>
  | { get(name: string): string | null };

/** Tunables; see {@link RATE_BUDGET_DEFAULTS}. */
export interface RateBudgetOptions {
  /** Wall clock, ms since the epoch (resets and Retry-After dates are wall-clock times). */
  now?: () => number;
  /** Extra wait after a reset time, ms: covers clock skew between us and the server. */
  resetMarginMs?: number;
  /** First wait after a rate-limit 403/429 without headers, ms (GitHub: "at least one minute"). */
  secondaryBackoffMs?: number;
  /** Longest such wait, ms (it doubles while they repeat). */
  secondaryBackoffMaxMs?: number;
  /** How long a request waits while the first one of an unknown resource is in flight, ms. */
  probeWaitMs?: number;
  /** A grant not observed within this time is taken as lost (its request counts no longer), ms. */
  reservationTtlMs?: number;
  /**
   * Minimum gap between grants per resource, ms, keyed `anonymous/<resource>` or
   * `token/<resource>`; missing keys mean no gap.
   */
  spacingMs?: Record<string, number>;
  /** The group a resource's secondary limits block together (default: `raw` alone, the rest `api`). */
  groupOf?: (resource: string) => string;
}

/** Defaults of {@link RateBudgetOptions}. */
export const RATE_BUDGET_DEFAULTS = {
  resetMarginMs: 1000,
  secondaryBackoffMs: 60_000,
  secondaryBackoffMaxMs: 30 * 60_000,
  probeWaitMs: 1000,
  reservationTtlMs: 60_000,
  /**
   * GitHub's documented search limits spread evenly: unauthenticated 10/min (6 s), authenticated
   * 30/min (2 s); code search 10/min either way.
   */
  spacingMs: {
    'anonymous/search': 6000,
    'token/search': 2000,
    'anonymous/code_search': 6000,
    'token/code_search': 6000,
  } as Record<string, number>,
} as const;

/** Identity of "no credential". */
export const ANONYMOUS = 'anonymous';

/**
 * The identity a credential's budget is kept under: `anonymous` without one, else `token-` and
 * 16 hex digits of its SHA-256 — stable across processes and restarts, never the secret itself
 * (64 bits of a hash of a high-entropy token cannot be turned back into it).
 */
export function credentialIdentity(secret: string | null | undefined): string {
  if (!secret) return ANONYMOUS;
  return `token-${createHash('sha256').update(secret).digest('hex').slice(0, 16)}`;
}

/** The persisted form (JSON-safe). Requests in flight are not in it: after a restart they are re-asked. */
export interface RateBudgetSnapshot {
  version: 1;
  resources: Array<{
    identity: string;
    resource: string;
    limit: number | null;
    remaining: number | null;
    /** Window end, ms since the epoch, or null when unknown. */
    resetAt: number | null;
    lastGrantAt: number | null;
  }>;
  blocks: Array<{ identity: string; group: string; until: number; streak: number }>;
}

/** A wait in force, for status (`waiting for rate limit until …`). */
export interface ActiveWait {
  identity: string;
  /** The resource (primary) or group (secondary) that waits. */
  scope: string;
  until: number;
  reason: 'primary' | 'secondary';
}

interface ResourceState {
  limit: number | null;
  /** Estimated requests left in the window: the server's figure minus our grants since. */
  remaining: number | null;
  resetAt: number | null;
  /** Whether a response was seen (until then, one request at a time: it tells the limits). */
  known: boolean;
  lastGrantAt: number | null;
  /** Grant times of requests not yet observed, oldest first. */
  inFlight: number[];
}

interface GroupBlock {
  until: number;
  /** Rate-limit refusals in a row (reset by a success): the exponent of the backoff. */
  streak: number;
}

function header(h: HeaderSource, name: string): string | null {
  if (typeof (h as { get?: unknown }).get === 'function')
    return (h as { get(n: string): string | null }).get(name);
  const v = (h as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}

function intHeader(h: HeaderSource, name: string): number | null {
  const v = header(h, name);
  if (v === null || !/^\s*\d+\s*$/.test(v)) return null;
  return Number(v);
}

const sep = '\u0000';

/** One collector's rate budgets (see the module comment). Not thread-safe: hold it in one place. */
export class RateBudget {
  private readonly resources = new Map<string, ResourceState>();
  private readonly blocks = new Map<string, GroupBlock>();
  private readonly now: () => number;
  private readonly opts: Required<Omit<RateBudgetOptions, 'now'>>;

  constructor(options: RateBudgetOptions = {}) {
    this.now = options.now ?? Date.now;
    this.opts = {
      resetMarginMs: options.resetMarginMs ?? RATE_BUDGET_DEFAULTS.resetMarginMs,
      secondaryBackoffMs: options.secondaryBackoffMs ?? RATE_BUDGET_DEFAULTS.secondaryBackoffMs,
      secondaryBackoffMaxMs: options.secondaryBackoffMaxMs ?? RATE_BUDGET_DEFAULTS.secondaryBackoffMaxMs,
      probeWaitMs: options.probeWaitMs ?? RATE_BUDGET_DEFAULTS.probeWaitMs,
      reservationTtlMs: options.reservationTtlMs ?? RATE_BUDGET_DEFAULTS.reservationTtlMs,
      spacingMs: options.spacingMs ?? RATE_BUDGET_DEFAULTS.spacingMs,
      groupOf: options.groupOf ?? ((r) => (r === 'raw' ? 'raw' : 'api')),
    };
  }

  private state(identity: string, resource: string): ResourceState {
    const k = identity + sep + resource;
    let s = this.resources.get(k);
    if (!s) {
      s = { limit: null, remaining: null, resetAt: null, known: false, lastGrantAt: null, inFlight: [] };
      this.resources.set(k, s);
    }
    return s;
  }

  /**
   * Ask to send one request. A grant counts the request against the resource until its response
   * is observed (so concurrent askers never overspend); call {@link observe} after the response,
   * or {@link release} if the request is not sent after all.
   * @returns `{ ok: true }`, or `{ ok: false, waitUntil, reason }`: ask again at `waitUntil`.
   */
  reserve(key: BudgetKey): Grant {
    const now = this.now();
    const block = this.blocks.get(key.identity + sep + this.opts.groupOf(key.resource));
    if (block && now < block.until) return { ok: false, waitUntil: block.until, reason: 'secondary' };
    const s = this.state(key.identity, key.resource);
    while (s.inFlight.length > 0 && now - s.inFlight[0] > this.opts.reservationTtlMs) s.inFlight.shift();
    if (s.resetAt !== null && now >= s.resetAt + this.opts.resetMarginMs) {
      // The window is over: a fresh one starts with the full limit, less the requests still in
      // flight (they may land in it); its reset is learnt from the next response.
      s.remaining = s.limit === null ? null : s.limit - s.inFlight.length;
      s.resetAt = null;
    }
    if (s.remaining !== null && s.remaining <= 0) {
      if (s.resetAt !== null)
        return { ok: false, waitUntil: s.resetAt + this.opts.resetMarginMs, reason: 'primary' };
      return { ok: false, waitUntil: now + this.opts.probeWaitMs, reason: 'probe' };
    }
    if (!s.known && s.inFlight.length > 0)
      return { ok: false, waitUntil: now + this.opts.probeWaitMs, reason: 'probe' };
    const kind = key.identity === ANONYMOUS ? 'anonymous' : 'token';
    const gap = this.opts.spacingMs[`${kind}/${key.resource}`] ?? 0;
    if (gap > 0 && s.lastGrantAt !== null && now < s.lastGrantAt + gap)
      return { ok: false, waitUntil: s.lastGrantAt + gap, reason: 'spacing' };
    s.lastGrantAt = now;
    s.inFlight.push(now);
    if (s.remaining !== null) s.remaining--;
    return { ok: true };
  }

  /** Give back a grant whose request was not sent. */
  release(key: BudgetKey): void {
    const s = this.state(key.identity, key.resource);
    if (s.inFlight.length > 0) {
      s.inFlight.pop();
      if (s.remaining !== null && s.limit !== null && s.remaining < s.limit) s.remaining++;
    }
  }

  /**
   * Record a response (or a failure: `status` null) to a granted request.
   * @param status the HTTP status, or null when no response came (network error, timeout).
   * @param headers the response headers (rate-limit headers are read when present).
   * @param bodyHint a little of the body, when the caller has it: a 403 whose message mentions a
   *   rate limit ("You have exceeded a secondary rate limit") is one; a 403 with rate-limit headers
   *   showing budget left and no such message is a permission error and blocks nothing.
   * @returns the wait this response imposes, or null.
   */
  observe(
    key: BudgetKey,
    status: number | null,
    headers: HeaderSource = {},
    bodyHint?: string,
  ): BudgetWait | null {
    const now = this.now();
    const own = this.state(key.identity, key.resource);
    own.inFlight.shift();
    // A 304 to a conditional request does not count against the primary limit (GitHub REST docs,
    // "Best practices": conditional requests): the grant's request is given back.
    if (status === 304 && own.remaining !== null && (own.limit === null || own.remaining < own.limit))
      own.remaining++;
    // Any answer ends the probe: one without rate-limit headers means there is nothing to learn.
    if (status !== null) own.known = true;
    const limit = intHeader(headers, 'x-ratelimit-limit');
    const remaining = intHeader(headers, 'x-ratelimit-remaining');
    const reset = intHeader(headers, 'x-ratelimit-reset');
    const named = header(headers, 'x-ratelimit-resource')?.trim();
    if (remaining !== null && reset !== null) {
      // Epoch seconds; small values are "seconds from now" (the IETF RateLimit draft's form).
      const resetAt = reset > 1e9 ? reset * 1000 : now + reset * 1000;
      this.learn(own, limit, remaining, resetAt);
      if (named && named !== key.resource)
        this.learn(this.state(key.identity, named), limit, remaining, resetAt);
    }
    const groupKey = key.identity + sep + this.opts.groupOf(key.resource);
    if (status === null) return null;
    if ((status >= 200 && status < 300) || status === 304) {
      const b = this.blocks.get(groupKey);
      if (b) b.streak = 0;
      return null;
    }
    if (status !== 403 && status !== 429) return null;
    const retryAfter = parseRetryAfter(header(headers, 'retry-after'), now);
    const hinted = bodyHint !== undefined && /rate limit|abuse/i.test(bodyHint);
    if (status === 403 && retryAfter === null && remaining !== null && remaining > 0 && !hinted) return null;
    if (retryAfter === null && remaining === 0 && reset !== null) {
      const s = this.state(key.identity, named || key.resource);
      return s.resetAt !== null
        ? { ok: false, waitUntil: s.resetAt + this.opts.resetMarginMs, reason: 'primary' }
        : null;
    }
    const prev = this.blocks.get(groupKey);
    const streak = (prev?.streak ?? 0) + 1;
    const wait =
      retryAfter ??
      Math.min(this.opts.secondaryBackoffMaxMs, this.opts.secondaryBackoffMs * 2 ** Math.min(streak - 1, 30));
    const until = Math.max(now + wait, prev?.until ?? 0);
    this.blocks.set(groupKey, { until, streak });
    return { ok: false, waitUntil: until, reason: 'secondary' };
  }

  /** Take in the server's figures for one resource's window. */
  private learn(s: ResourceState, limit: number | null, remaining: number | null, resetAt: number): void {
    s.known = true;
    if (limit !== null) s.limit = limit;
    if (remaining === null) return;
    // Requests granted and not yet answered may not be in the server's count: assume they are not.
    const estimate = remaining - s.inFlight.length;
    if (s.resetAt === null || resetAt > s.resetAt) {
      s.remaining = estimate; // a newer window (or the first seen)
      s.resetAt = resetAt;
    } else if (resetAt === s.resetAt) {
      s.remaining = Math.min(s.remaining ?? estimate, estimate);
    } // else: a late answer from an older window tells nothing about this one
  }

  /** The waits in force now (primary windows used up, secondary blocks), for status. */
  waits(): ActiveWait[] {
    const now = this.now();
    const out: ActiveWait[] = [];
    for (const [k, b] of this.blocks) {
      if (b.until <= now) continue;
      const [identity, scope] = k.split(sep);
      out.push({ identity, scope, until: b.until, reason: 'secondary' });
    }
    for (const [k, s] of this.resources) {
      if (s.remaining === null || s.remaining > 0 || s.resetAt === null) continue;
      const until = s.resetAt + this.opts.resetMarginMs;
      if (until <= now) continue;
      const [identity, scope] = k.split(sep);
      out.push({ identity, scope, until, reason: 'primary' });
    }
    return out.sort((a, b) => a.until - b.until);
  }

  /** The budget as plain JSON-safe data (see {@link RateBudget.fromSnapshot}). */
  snapshot(): RateBudgetSnapshot {
    const resources: RateBudgetSnapshot['resources'] = [];
    for (const [k, s] of this.resources) {
      if (!s.known && s.lastGrantAt === null) continue;
      const [identity, resource] = k.split(sep);
      resources.push({
        identity,
        resource,
        limit: s.limit,
        remaining: s.remaining,
        resetAt: s.resetAt,
        lastGrantAt: s.lastGrantAt,
      });
    }
    const blocks: RateBudgetSnapshot['blocks'] = [];
    for (const [k, b] of this.blocks) {
      const [identity, group] = k.split(sep);
      blocks.push({ identity, group, until: b.until, streak: b.streak });
    }
    return { version: 1, resources, blocks };
  }

  /**
   * A budget restored from {@link snapshot} (e.g. after a supervisor restart), so a wait in force
   * survives it. Entries of the wrong shape are skipped (a damaged file loses only them).
   * @throws TypeError when `data` is not a version-1 snapshot at all.
   */
  static fromSnapshot(data: unknown, options: RateBudgetOptions = {}): RateBudget {
    const d = data as Partial<RateBudgetSnapshot> | null;
    if (
      d === null ||
      typeof d !== 'object' ||
      d.version !== 1 ||
      !Array.isArray(d.resources) ||
      !Array.isArray(d.blocks)
    )
      throw new TypeError('not a rate budget snapshot (version 1)');
    const budget = new RateBudget(options);
    const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
    const numOrNull = (v: unknown): v is number | null => v === null || num(v);
    for (const r of d.resources) {
      if (!r || typeof r.identity !== 'string' || typeof r.resource !== 'string') continue;
      if (
        !numOrNull(r.limit) ||
        !numOrNull(r.remaining) ||
        !numOrNull(r.resetAt) ||
        !numOrNull(r.lastGrantAt)
      )
        continue;
      const s = budget.state(r.identity, r.resource);
      Object.assign(s, {
        limit: r.limit,
        remaining: r.remaining,
        resetAt: r.resetAt,
        lastGrantAt: r.lastGrantAt,
      });
      s.known = true;
    }
    for (const b of d.blocks) {
      if (
        !b ||
        typeof b.identity !== 'string' ||
        typeof b.group !== 'string' ||
        !num(b.until) ||
        !num(b.streak)
      )
        continue;
      budget.blocks.set(b.identity + sep + b.group, { until: b.until, streak: b.streak });
    }
    return budget;
  }
}
