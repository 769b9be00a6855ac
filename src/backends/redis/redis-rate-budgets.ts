/**
 * A source's rate budgets (GitHub's search and core limits, Retry-After and secondary-limit
 * pauses) shared by every machine of a crawl through Redis: one budget per crawl id and credential,
 * each grant and each response decided by a Lua script (`rate-budget-scripts.ts`), so machines
 * together never spend more than the budget and a pause learnt by one holds the others. As in one
 * process (`http/serial-budget.ts`), API requests of one credential go one at a time, crawl-wide.
 */
import type { Logger } from 'pino';
import { type BudgetKey, type Grant, RATE_BUDGET_DEFAULTS, type WaitReason } from '../../http/rate-budget.js';
import { parseRetryAfter } from '../../http/retry-policy.js';
import { SERIAL_BUDGET_DEFAULTS } from '../../http/serial-budget.js';
import type { RedisLink } from './redis-link.js';

/** How often a machine asks again while another machine's request of the credential is in flight, ms. */
export const TURN_POLL_MS = 50;
/** The wait answered when Redis refuses a budget script (a bug, Redis out of memory), ms. */
const REFUSED_WAIT_MS = 5_000;

/** Resources not taken in turns (as `serial-budget.ts`): the raw-content host has no secondary limits. */
const CONCURRENT_RESOURCES: ReadonlySet<string> = new Set(['raw']);

/** A script's answer: {granted 1/0, until ms (Redis clock), reason, Redis now ms}. */
type Answer = [number, number, string, number];

/**
 * The budgets of one machine's crawl, kept in Redis (see the module comment); the engine's
 * `RateBudgets` (`engine/rate-gate.ts`) in shape.
 */
export class RedisRateBudgets {
  private seq = 0;
  /** Grant tokens not yet observed, oldest first, per identity and resource. */
  private readonly tokens = new Map<string, string[]>();
  /** This machine's own queue per credential: one of its reserves asks Redis at a time. */
  private readonly turns = new Map<string, Promise<void>>();
  /** Ends this machine's turn of a credential (its request in flight is answered). */
  private readonly turnEnds = new Map<string, () => void>();

  /** @param prefix the crawl's key prefix. @param machine this machine's id (names its grants). */
  constructor(
    private readonly link: RedisLink,
    private readonly prefix: string,
    private readonly machine: string,
    private readonly log: Logger,
  ) {}

  /** May `key` send one request now? A grant counts it until {@link observe} or {@link release}. */
  async reserve(key: BudgetKey): Promise<Grant> {
    if (CONCURRENT_RESOURCES.has(key.resource)) return this.ask(key, false);
    // Wait for this machine's earlier reserve of the credential (its request answered, or refused).
    const before = this.turns.get(key.identity) ?? Promise.resolve();
    let end = () => {};
    const mine = new Promise<void>((r) => {
      end = r;
    });
    const tail = before.then(() => mine);
    this.turns.set(key.identity, tail);
    await before;
    const grant = await this.ask(key, true).catch((e: Error) => {
      end();
      throw e;
    });
    if (grant.ok) this.turnEnds.set(key.identity, end);
    else end();
    return grant;
  }

  /** The response to a granted request (`status` null: none came); rate-limit headers only. */
  observe(key: BudgetKey, status: number | null, headers: Record<string, string>, hint?: string): void {
    const token = this.takeToken(key);
    if (token === undefined) return;
    const serial = !CONCURRENT_RESOURCES.has(key.resource);
    const int = (name: string) => {
      const v = headers[name];
      return v !== undefined && /^\s*\d+\s*$/.test(v) ? Number(v) : -1;
    };
    const retryAfter = parseRetryAfter(headers['retry-after'] ?? null, Date.now());
    const hinted = hint !== undefined && /rate limit|abuse/i.test(hint);
    const D = RATE_BUDGET_DEFAULTS;
    this.run('budgetObserve', [
      key.identity,
      key.resource,
      groupOf(key.resource),
      token,
      serial ? 1 : 0,
      status ?? -1,
      int('x-ratelimit-limit'),
      int('x-ratelimit-remaining'),
      int('x-ratelimit-reset'),
      headers['x-ratelimit-resource']?.trim() ?? '',
      retryAfter ?? -1,
      hinted ? 1 : 0,
      D.resetMarginMs,
      D.secondaryBackoffMs,
      D.secondaryBackoffMaxMs,
    ]);
    // Sent before any later reserve of this machine (one connection, in order).
    if (serial) this.endTurn(key.identity);
  }

  /** A granted request was not sent after all. */
  release(key: BudgetKey): void {
    const token = this.takeToken(key);
    if (token === undefined) return;
    const serial = !CONCURRENT_RESOURCES.has(key.resource);
    this.run('budgetRelease', [key.identity, key.resource, token, serial ? 1 : 0]);
    if (serial) this.endTurn(key.identity);
  }

  /** Ask Redis until granted or told a budget wait (another machine's turn is waited out here). */
  private async ask(key: BudgetKey, serial: boolean): Promise<Grant> {
    const D = RATE_BUDGET_DEFAULTS;
    const kind = key.identity === 'anonymous' ? 'anonymous' : 'token';
    const gap = D.spacingMs[`${kind}/${key.resource}`] ?? 0;
    const token = `${this.machine}:${++this.seq}`;
    for (;;) {
      let a: Answer;
      try {
        a = (await this.link.script('budgetReserve', [
          this.prefix,
          key.identity,
          key.resource,
          groupOf(key.resource),
          gap,
          token,
          serial ? 1 : 0,
          D.resetMarginMs,
          D.probeWaitMs,
          D.reservationTtlMs,
          SERIAL_BUDGET_DEFAULTS.turnTtlMs,
          TURN_POLL_MS,
        ])) as Answer;
      } catch (e) {
        this.log.error({ err: (e as Error).message }, 'redis refused a rate budget script: waiting');
        return { ok: false, waitUntil: Date.now() + REFUSED_WAIT_MS, reason: 'probe' };
      }
      if (a[0] === 1) {
        const k = tokenKey(key);
        const list = this.tokens.get(k) ?? [];
        list.push(token);
        this.tokens.set(k, list);
        return { ok: true };
      }
      if (a[2] === 'turn') {
        await new Promise((r) => setTimeout(r, TURN_POLL_MS));
        continue;
      }
      // Redis's clock to this machine's: the same distance from now.
      return { ok: false, waitUntil: Date.now() + Math.max(0, a[1] - a[3]), reason: a[2] as WaitReason };
    }
  }

  private takeToken(key: BudgetKey): string | undefined {
    const list = this.tokens.get(tokenKey(key));
    const token = list?.shift();
    if (list !== undefined && list.length === 0) this.tokens.delete(tokenKey(key));
    return token;
  }

  private endTurn(identity: string): void {
    const end = this.turnEnds.get(identity);
    this.turnEnds.delete(identity);
    end?.();
  }

  private run(name: 'budgetObserve' | 'budgetRelease', args: (string | number)[]): void {
    this.link.script(name, [this.prefix, ...args]).catch((e: Error) => {
      this.log.error({ err: e.message }, 'redis refused a rate budget script');
    });
  }
}

/** The group a resource's secondary limits block together (as `rate-budget.ts`): `raw` alone, the rest `api`. */
function groupOf(resource: string): string {
  return resource === 'raw' ? 'raw' : 'api';
}

function tokenKey(key: BudgetKey): string {
  return `${key.identity}\u0000${key.resource}`;
}
