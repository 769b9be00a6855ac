/**
 * One connection to the crawl's Redis, with the scripts defined on it, that never gives up: while
 * Redis is unavailable (down, restarting, unreachable) commands wait in order and the connection
 * is retried with a growing backoff; each change of state (lost, back) is logged once.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import * as S from './frontier-scripts.js';
import { parseRedisUrl, redactRedisUrl } from './redis-address.js';
import { RATE_BUDGET_SCRIPTS } from './rate-budget-scripts.js';
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
  reclaim: S.RECLAIM,
  pauseHost: S.PAUSE_HOST,
  slowDown: S.SLOW_DOWN,
  heartbeat: S.HEARTBEAT,
  stop: S.STOP,
  ...SEEN_SET_SCRIPTS,
  ...RATE_BUDGET_SCRIPTS,
} as const;

/** A script call: every argument as a string or number; the reply as Redis gives it. */
export type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

/** The connection and its state, as the backend's parts use it. */
export interface RedisLink {
  /** Run a script (waits while Redis is unavailable; rejects only on a script error). */
  script(name: keyof typeof SCRIPTS, args: (string | number)[]): Promise<unknown>;
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

/**
 * Connect to `address` (see {@link parseRedisUrl}); resolves at once, commands wait for the
 * connection. State changes are logged to `log` (one line each).
 */
export function openRedisLink(address: string, log: Logger): RedisLink {
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
  const link: RedisLink = {
    client,
    onBack: null,
    get up() {
      return up;
    },
    get reconnects() {
      return reconnects;
    },
    script(name, args) {
      return (client as unknown as Record<string, ScriptCall>)[name](...args);
    },
    async close(ms) {
      closing = true;
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
      link.onBack?.();
    }
  });
  const down = (err?: Error) => {
    up = false;
    if (!lost && !closing) {
      lost = true;
      log.warn({ redis: shown, err: err?.message }, 'redis unavailable: pausing, retrying with backoff');
    }
  };
  client.on('error', (e: Error) => down(e));
  client.on('close', () => {
    if (up) down();
  });
  return link;
}
