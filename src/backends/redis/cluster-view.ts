/**
 * One view of a crawl shared through Redis, for the ops commands: the crawl-wide counters and
 * every live machine's heartbeat (`collector status --backend`), and the crawl-wide stop
 * (`collector stop --backend`). A short-lived connection that fails fast: an ops command tells
 * the user Redis is unavailable rather than waiting for it.
 */
import { Redis } from 'ioredis';
import { crawlPrefix, KEY } from './crawl-keys.js';
import * as S from './frontier-scripts.js';
import type { MachineStatus } from './machine-heartbeat.js';
import { parseRedisUrl, redactRedisUrl } from './redis-address.js';

/** Time allowed to connect and answer, ms. */
const OPS_TIMEOUT_MS = 5_000;

/** The state of a shared crawl. */
export interface ClusterView {
  crawlId: string;
  /** URLs queued, leased (being fetched or written), and acknowledged, crawl-wide. */
  queued: number;
  leased: number;
  done: number;
  /** URLs ever queued (the shared seen-set's size). */
  seen: number;
  /** Wall-clock ms a stop was asked at, or null. */
  stopAskedAt: number | null;
  /** Live machines (heartbeat not expired), by id. */
  machines: MachineStatus[];
}

async function withClient<T>(address: string, use: (c: Redis) => Promise<T>): Promise<T> {
  parseRedisUrl(address);
  const c = new Redis(address, {
    lazyConnect: true,
    connectTimeout: OPS_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  c.on('error', () => {});
  try {
    await c.connect();
  } catch (e) {
    c.disconnect();
    throw new Error(`redis at ${redactRedisUrl(address)} is unavailable: ${(e as Error).message}`);
  }
  try {
    return await use(c);
  } finally {
    c.disconnect();
  }
}

/**
 * Read a shared crawl's counters and machines.
 * @throws Error naming the address when Redis is unavailable, or the crawl id when malformed.
 */
export async function readCluster(address: string, crawlId: string): Promise<ClusterView> {
  const P = crawlPrefix(crawlId);
  return withClient(address, async (c) => {
    const [queued, leased, done, stop] = await c.mget(
      P + KEY.queued,
      P + KEY.leased,
      P + KEY.done,
      P + KEY.stop,
    );
    // The exact set's size, or the URLs a Bloom seen-set took as new (its false positives aside).
    const seen = (await c.scard(P + KEY.seen)) + (Number(await c.get(P + KEY.bloomSeen)) || 0);
    const ids = await c.smembers(P + KEY.machines);
    const beats = ids.length === 0 ? [] : await c.mget(ids.map((m) => P + KEY.heartbeat(m)));
    const machines: MachineStatus[] = [];
    for (const b of beats) {
      if (b === null) continue;
      try {
        machines.push(JSON.parse(b) as MachineStatus);
      } catch {
        // a damaged heartbeat is replaced at the machine's next beat
      }
    }
    return {
      crawlId,
      queued: Number(queued) || 0,
      leased: Number(leased) || 0,
      done: Number(done) || 0,
      seen,
      stopAskedAt: stop === null ? null : Number(stop),
      machines,
    };
  });
}

/**
 * Ask every machine of a shared crawl to stop gracefully (each finishes or gives back what it
 * leased). Machines started later are not affected.
 * @returns the live machines told. @throws as {@link readCluster}.
 */
export async function stopCluster(address: string, crawlId: string): Promise<number> {
  const P = crawlPrefix(crawlId);
  return withClient(address, async (c) => {
    await c.eval(S.STOP, 0, P);
    return (await readCluster(address, crawlId)).machines.length;
  });
}
