/**
 * A {@link RateBudget} whose API requests go one at a time per credential: a reserve while another
 * request of the same credential's API group is in flight is answered when that one's response
 * has been observed. GitHub's documented best practice ("make requests for a single user or
 * client ID serially instead of concurrently") and the only way a secondary limit announced by
 * one response can stop the next request: two requests in flight at once would both be sent
 * before either answer is known.
 */
import type { BudgetKey, Grant, HeaderSource, RateBudget } from './rate-budget.js';

/** Defaults of {@link SerialBudget}. */
export const SERIAL_BUDGET_DEFAULTS = {
  /**
   * A grant whose response is not observed within this time frees its turn (its process died),
   * ms: above any request timeout.
   */
  turnTtlMs: 60_000,
} as const;

/** Resources not taken in turns: the raw-content host has no secondary limits. */
const CONCURRENT_RESOURCES: ReadonlySet<string> = new Set(['raw']);

interface Turn {
  /** When the request in flight was granted (epoch ms), or null when none is. */
  since: number | null;
  /** Reserves waiting for the turn, first come first served. */
  queue: Array<{ key: BudgetKey; answer: (g: Grant) => void }>;
  /** Ends a turn never answered (see {@link SERIAL_BUDGET_DEFAULTS}). */
  timer: NodeJS.Timeout | null;
}

/** See the module comment. Not thread-safe: hold it in one place (the supervisor, or one process). */
export class SerialBudget {
  private readonly turns = new Map<string, Turn>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    readonly budget: RateBudget,
    options: { turnTtlMs?: number; now?: () => number } = {},
  ) {
    this.ttlMs = options.turnTtlMs ?? SERIAL_BUDGET_DEFAULTS.turnTtlMs;
    this.now = options.now ?? Date.now;
  }

  /**
   * Ask to send one request; `answer` is called once, now or when the credential's request in
   * flight has been answered: with a grant, or with the budget's wait.
   */
  reserve(key: BudgetKey, answer: (g: Grant) => void): void {
    const turn = this.turn(key);
    if (turn === null) {
      answer(this.budget.reserve(key));
      return;
    }
    if (turn.since !== null && this.now() - turn.since > this.ttlMs) this.next(key);
    if (turn.since !== null || turn.queue.length > 0) {
      turn.queue.push({ key, answer });
      // Should the request in flight never be answered (its process died), its turn ends anyway.
      if (turn.timer === null) {
        turn.timer = setTimeout(() => {
          turn.timer = null;
          this.next(key);
        }, this.ttlMs);
        turn.timer.unref();
      }
      return;
    }
    this.grant(turn, key, answer);
  }

  /** A granted request's response (`status` null: none). @returns the wait it imposes, or null. */
  observe(key: BudgetKey, status: number | null, headers: HeaderSource, hint?: string) {
    const wait = this.budget.observe(key, status, headers, hint);
    this.next(key);
    return wait;
  }

  /** A granted request was not sent. */
  release(key: BudgetKey): void {
    this.budget.release(key);
    this.next(key);
  }

  private grant(turn: Turn, key: BudgetKey, answer: (g: Grant) => void): void {
    const g = this.budget.reserve(key);
    if (g.ok) turn.since = this.now();
    answer(g);
  }

  /** The turn is over: answer the waiting reserves until one is granted. */
  private next(key: BudgetKey): void {
    const turn = this.turn(key);
    if (turn === null) return;
    turn.since = null;
    if (turn.timer !== null) clearTimeout(turn.timer);
    turn.timer = null;
    while (turn.since === null && turn.queue.length > 0) {
      const w = turn.queue.shift() as Turn['queue'][number];
      this.grant(turn, w.key, w.answer);
    }
  }

  private turn(key: BudgetKey): Turn | null {
    if (CONCURRENT_RESOURCES.has(key.resource)) return null;
    let t = this.turns.get(key.identity);
    if (!t) {
      t = { since: null, queue: [], timer: null };
      this.turns.set(key.identity, t);
    }
    return t;
  }
}
