/**
 * One connection to the crawl's Redis, with the scripts defined on it, that never gives up: while
 * Redis is unavailable (down, restarting, unreachable) commands wait in order and the connection
 * is retried with a growing backoff; each change of state (lost, back) is logged once and said on
 * stderr. A write Redis refuses for want of memory (`OOM command not allowed`, maxmemory with
 * noeviction) is sent again with a growing backoff until it goes through or the pause passes its
 * bound (`redis-faults.ts`); a script answering that the crawl's record is gone is reported.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import * as S from './frontier-scripts.js';
import { RATE_BUDGET_SCRIPTS } from './rate-budget-scripts.js';
import { parseRedisUrl, redactRedisUrl, redisHostPort } from './redis-address.js';
import { isCrawlLost, isOutOfMemory, RedisFaults } from './redis-faults.js';
import { SEEN_SET_SCRIPTS } from './seen-set-scripts.js';

/** First reconnect delay, ms; it grows by this much per attempt. */
export const RECONNECT_STEP_MS = 200;
/** Longest reconnect delay, ms: a Redis back after an outage is seen within this. */
export const RECONNECT_MAX_MS = 5_000;
/** Time to connect, ms, before an attempt counts as failed. */
const CONNECT_TIMEOUT_MS = 5_000;

/** The scripts, by name, as ioredis commands. */
const SCRIPTS = {
  enqueue: S.ENQUEUE,
  claim: S.CLAIM,
  done: S.DONE,
  retry: S.RETRY,
  ack: S.ACK,
  acked: S.ACKED,
  reclaim: S.RECLAIM,
  pauseHost: S.PAUSE_HOST,
  slowDown: S.SLOW_DOWN,
  heartbeat: S.HEARTBEAT,
  stop: S.STOP,
  join: S.JOIN,
  confirm: S.CONFIRM,
  ...SEEN_SET_SCRIPTS,
  ...RATE_BUDGET_SCRIPTS,
} as const;

/** A script call: every argument as a string or number; the reply as Redis gives it. */
export type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

/** First wait before a write refused for want of memory is sent again, ms (doubles, to 5 s). */
export const OOM_RETRY_FIRST_MS = 100;

/** The connection and its state, as the backend's parts use it. */
export interface RedisLink {
  /**
   * Run a script (waits while Redis is unavailable, and while it refuses writes for want of
   * memory; rejects on a script error, a crawl whose record is gone, or an out-of-memory pause
   * past its bound).
   */
  script(name: keyof typeof SCRIPTS, args: (string | number)[]): Promise<unknown>;
  /** Run any command the way {@link script} runs a script (`call` is made again on each try). */
  send<T>(call: () => Promise<T>): Promise<T>;
  /** Out-of-memory pauses and the crawl-lost stop, as this link met them. */
  readonly faults: RedisFaults;
  /** The raw client (reads of the status view). */
  readonly client: Redis;
  /** Redis answers now. */
  readonly up: boolean;
  /** Times the connection came back after being lost. */
  readonly reconnects: number;
  /** Called each time the connection comes back after a loss. */
  onBack: (() => void) | null;
  /** Close: wait up to `ms` for queued commands, then drop the connection. */
  close(ms: number): Promise<void>;
}

/** Faults of a link used outside a crawl (status, tests): logged, not said, never fatal. */
function quietFaults(address: string, log: Logger): RedisFaults {
  return new RedisFaults({
    at: redisHostPort(address),
    crawlId: '',
    giveUpMs: RECONNECT_MAX_MS * 12,
    log,
    say: () => {},
    onFatal: () => {},
  });
}

/**
 * Connect to `address` (see {@link parseRedisUrl}); resolves at once, commands wait for the
 * connection. State changes are logged to `log` (one line each) and said through `faults`.
 */
export function openRedisLink(
  address: string,
  log: Logger,
  faults: RedisFaults = quietFaults(address, log),
): RedisLink {
  parseRedisUrl(address);
  const shown = redactRedisUrl(address);
  const client = new Redis(address, {
    // Commands wait for Redis, however long it is away: nothing a worker sends is dropped.
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    autoResendUnfulfilledCommands: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(times * RECONNECT_STEP_MS, RECONNECT_MAX_MS),
    lazyConnect: false,
  });
  for (const [name, lua] of Object.entries(SCRIPTS)) client.defineCommand(name, { numberOfKeys: 0, lua });
  let up = false;
  let lost = false;
  let closing = false;
  let reconnects = 0;
  /** Sends `call` until it is not refused for want of memory (see the module comment). */
  const send = async <T>(call: () => Promise<T>): Promise<T> => {
    for (
      let wait = OOM_RETRY_FIRST_MS, refusedBefore = false;
      ;
      wait = Math.min(wait * 2, RECONNECT_MAX_MS)
    ) {
      try {
        const r = await call();
        if (refusedBefore) faults.recovered();
        return r;
      } catch (e) {
        refusedBefore = true;
        if (isCrawlLost(e)) faults.crawlLost();
        if (!isOutOfMemory(e) || closing || !faults.outOfMemory(client)) throw e;
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  };
  const link: RedisLink = {
    client,
    faults,
    onBack: null,
    get up() {
      return up;
    },
    get reconnects() {
      return reconnects;
    },
    script(name, args) {
      return send(() => (client as unknown as Record<string, ScriptCall>)[name](...args));
    },
    send,
    async close(ms) {
      closing = true;
      faults.halt();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((r) => {
        timer = setTimeout(() => r('timeout'), ms);
      });
      const quit = client.quit().then(
        () => 'quit' as const,
        () => 'quit' as const,
      );
      const how = await Promise.race([quit, timeout]);
      clearTimeout(timer);
      if (how === 'timeout') {
        log.warn({ redis: shown }, 'redis unavailable at stop: leases left to expire');
        client.disconnect();
      }
    },
  };
  client.on('ready', () => {
    up = true;
    if (lost) {
      lost = false;
      reconnects++;
      log.info({ redis: shown }, 'redis available again: resuming');
      faults.say(`redis at ${faults.at} available again: resuming`);
      link.onBack?.();
    }
  });
  const down = (err?: Error) => {
    up = false;
    if (!lost && !closing) {
      lost = true;
      log.warn({ redis: shown, err: err?.message }, 'redis unavailable: pausing, retrying with backoff');
      const why = err?.message ? ` (${err.message})` : '';
      faults.say(`redis at ${faults.at} unavailable${why}: paused, retrying with backoff`);
    }
  };
  client.on('error', (e: Error) => down(e));
  client.on('close', () => {
    if (up) down();
  });
  return link;
}
