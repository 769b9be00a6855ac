/**
 * The rate budgets a source's requests spend (`SourceDefinition.rateBudget`): asked before each hop
 * is sent and told each response. The budgets live in the supervisor when the worker runs under
 * one (one budget per credential and resource for the whole collector, DESIGN §2b), else in this
 * process.
 */
import { decodeContent } from '../http/decompress.js';
import type { Grant, BudgetKey as RateBudgetKey } from '../http/rate-budget.js';
import { RateBudget } from '../http/rate-budget.js';
import { SerialBudget } from '../http/serial-budget.js';
import type { RunningSource } from '../sources/source-runner.js';

/** Where budgets are kept: this process ({@link localRateBudgets}) or the supervisor (IPC). */
export interface RateBudgets {
  /** May `key` send one request now? A grant counts it until {@link observe} or {@link release}. */
  reserve(key: RateBudgetKey): Promise<Grant>;
  /**
   * The response to a granted request (`status` null: none came). `headers`: only the rate-limit
   * ones ({@link rateLimitHeaders}); `bodyHint`: a little of a 403/429 body.
   */
  observe(
    key: RateBudgetKey,
    status: number | null,
    headers: Record<string, string>,
    bodyHint?: string,
  ): void;
  /** A granted request was not sent after all. */
  release(key: RateBudgetKey): void;
}

/** Budgets held in this process (a single-process crawl, the library, tests); API requests in turns. */
export function localRateBudgets(rates: RateBudget = new RateBudget()): RateBudgets {
  const budget = new SerialBudget(rates);
  return {
    reserve: (key) => new Promise((resolve) => budget.reserve(key, resolve)),
    observe: (key, status, headers, hint) => {
      budget.observe(key, status, headers, hint);
    },
    release: (key) => budget.release(key),
  };
}

/** What the hop loop asks of the budgets for one source. */
export interface HopBudget {
  /** The budget a hop spends, or null (the source's `rateBudget`). @throws what the hook throws. */
  keyOf(url: string, label: string | undefined): RateBudgetKey | null;
  budgets: RateBudgets;
}

/**
 * The hop budget of a source with a `rateBudget` hook, or undefined without one.
 * @param shared the supervisor's budgets, when the worker has a supervisor; else a local one.
 */
export function hopBudget(source: RunningSource, shared: RateBudgets | undefined): HopBudget | undefined {
  const hook = source.def.rateBudget;
  if (hook === undefined) return undefined;
  return {
    keyOf: (url, label) => hook.call(source.def, { url, label }, source.ctx) ?? null,
    budgets: shared ?? localRateBudgets(),
  };
}

/** The response headers a rate budget reads (GitHub's documented ones, and Retry-After). */
const RATE_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-used',
  'x-ratelimit-resource',
  'retry-after',
] as const;

/** Bytes of a 403/429 body read for its message ("You have exceeded a secondary rate limit"). */
const BODY_HINT_BYTES = 512;

/** The rate-limit headers of a response, as plain strings (small enough to send over IPC). */
export function rateLimitHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of RATE_HEADERS) {
    const v = headers[name];
    if (v !== undefined) out[name] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** Largest decoded size of a compressed 403/429 body read for its message, bytes (GitHub's are < 1 KiB). */
const BODY_HINT_DECODE_LIMIT = 64 * 1024;

/**
 * The start of a 403/429 body as text ({@link BODY_HINT_BYTES} bytes), decoded from its
 * Content-Encoding first when it still has one (gzip, deflate, br: GitHub compresses its refusals
 * like any answer), so a compressed "secondary rate limit" message is recognised; undefined for
 * another status, or a body that cannot be decoded within {@link BODY_HINT_DECODE_LIMIT}.
 * @param contentEncoding the Content-Encoding the body still carries, or null when it is plain.
 */
export function bodyHint(status: number, body: Buffer, contentEncoding: string | null): string | undefined {
  if (status !== 403 && status !== 429) return undefined;
  let plain = body;
  if (contentEncoding !== null) {
    try {
      const decoded = decodeContent(body, contentEncoding, BODY_HINT_DECODE_LIMIT);
      if (decoded.flag === 'unknown-encoding') return undefined;
      plain = decoded.body;
    } catch {
      return undefined;
    }
  }
  return plain.subarray(0, BODY_HINT_BYTES).toString('utf8');
}

/**
 * Kinds of rate-limit refusal, as status counts them: `primary` (`X-RateLimit-Remaining: 0`, wait
 * for the reset), `retry-after` (the answer says how long), `secondary` (a 429, or a 403 whose
 * message speaks of a rate limit, without either header: the budget's own backoff).
 */
export type RefusalKind = 'primary' | 'secondary' | 'retry-after';

/**
 * Whether a response is a rate-limit refusal (so the request waits for the budget and goes again,
 * without using a try), and which kind: a 429, or a 403 judged by its headers first
 * (`Retry-After`, `X-RateLimit-Remaining: 0`), then by its message ({@link bodyHint}, decoded)
 * speaking of a rate limit. A 403 with budget left and no such message is a permission error,
 * final (null).
 */
export function rateLimitRefusal(
  status: number,
  headers: Record<string, string>,
  hint: string | undefined,
): RefusalKind | null {
  if (status !== 403 && status !== 429) return null;
  if (headers['retry-after'] !== undefined) return 'retry-after';
  if (headers['x-ratelimit-remaining']?.trim() === '0') return 'primary';
  if (status === 429) return 'secondary';
  return hint !== undefined && /rate limit|abuse/i.test(hint) ? 'secondary' : null;
}

/**
 * What the hop loop tells the counters about a source's rate budget: a request held back by a
 * wait in force (`primary`: the resource's window is used up; `secondary`: a Retry-After or
 * secondary-limit pause), until epoch ms, for the budget `scope` (`<identity>/<resource>`, the
 * identity a hash, never a credential); or a response that was a rate-limit refusal.
 */
export type BudgetEvent =
  | { kind: 'wait'; scope: string; reason: 'primary' | 'secondary'; until: number }
  | { kind: 'refusal'; refusal: RefusalKind };

/** Whether a response is a rate-limit refusal ({@link rateLimitRefusal} is not null). */
export function isRateLimited(
  status: number,
  headers: Record<string, string>,
  hint: string | undefined,
): boolean {
  return rateLimitRefusal(status, headers, hint) !== null;
}
