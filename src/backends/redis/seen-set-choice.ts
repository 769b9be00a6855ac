/**
 * Which shared seen-set a crawl uses (`--seen-set exact|bloom`), agreed in Redis when the first
 * machine joins: the exact set of 64-bit fingerprints, RedisBloom's `BF.*` when the server has the
 * `bf` module, or a Bloom filter of our own in plain strings. A machine asking for another kind
 * than the crawl's is refused; one asking another Bloom size takes the crawl's (and says so).
 */
import type { Logger } from 'pino';
import { BLOOM_SEGMENT_BITS, bloomShape } from './bloom-sizing.js';
import type { RedisLink } from './redis-link.js';

/** What a machine asks for. */
export interface SeenSetOptions {
  kind: 'exact' | 'bloom';
  /** With `bloom`: expected URLs. */
  capacity: number;
  /** With `bloom`: false-positive rate at `capacity`. */
  errorRate: number;
  /** Bits per Redis key of our own filter (tests cut a small filter into several keys). */
  segmentBits?: number;
}

/** The crawl's seen-set, as stored in Redis. */
export interface SeenSetInUse {
  /** `exact`, `bloom` (our filter) or `bf` (RedisBloom). */
  mode: 'exact' | 'bloom' | 'bf';
  capacity: number;
  errorRate: number;
  bits: number;
  hashes: number;
  segmentBits: number;
}

/** The scripts a machine queues and marks with, for its crawl's seen-set. */
export interface SeenSetScripts {
  enqueue: 'enqueue' | 'enqueueBloom';
  /** null: the exact set (a plain `SADD`). */
  mark: 'markBloom' | null;
}

/** The scripts for a seen-set kind (the Bloom ones serve RedisBloom and ours alike). */
export function seenSetScripts(kind: SeenSetOptions['kind']): SeenSetScripts {
  return kind === 'exact'
    ? { enqueue: 'enqueue', mark: null }
    : { enqueue: 'enqueueBloom', mark: 'markBloom' };
}

/** Whether the server has RedisBloom (`MODULE LIST` names `bf`). A refused `MODULE` means no. */
export async function hasRedisBloom(link: RedisLink): Promise<boolean> {
  try {
    const mods = (await link.client.call('MODULE', 'LIST')) as unknown[];
    return mods.some((m) => Array.isArray(m) && String(m[1]).toLowerCase() === 'bf');
  } catch {
    return false;
  }
}

/**
 * Agree on the crawl's seen-set: the first machine stores its choice (and reserves RedisBloom's
 * filter), the others read it.
 * @throws Error (one line) when the crawl's seen-set is of another kind than `want.kind`.
 */
export async function joinSeenSet(
  link: RedisLink,
  prefix: string,
  want: SeenSetOptions,
  log: Logger,
): Promise<SeenSetInUse> {
  const shape = bloomShape(want.capacity, want.errorRate, want.segmentBits ?? BLOOM_SEGMENT_BITS);
  const mode = want.kind === 'exact' ? 'exact' : (await hasRedisBloom(link)) ? 'bf' : 'bloom';
  const r = (await link.script('seenSetSetup', [
    prefix,
    mode,
    shape.capacity,
    shape.errorRate,
    shape.bits,
    shape.hashes,
    shape.segmentBits,
  ])) as string[];
  const used: SeenSetInUse = {
    mode: r[0] as SeenSetInUse['mode'],
    capacity: Number(r[1]),
    errorRate: Number(r[2]),
    bits: Number(r[3]),
    hashes: Number(r[4]),
    segmentBits: Number(r[5]),
  };
  const usedKind = used.mode === 'exact' ? 'exact' : 'bloom';
  if (usedKind !== want.kind) {
    throw new Error(
      `this crawl's seen-set is ${usedKind} (set by the first machine): start with --seen-set ${usedKind}, or use another --crawl-id`,
    );
  }
  if (used.mode !== 'exact') {
    if (used.capacity !== want.capacity || used.errorRate !== want.errorRate) {
      log.warn(
        { capacity: used.capacity, errorRate: used.errorRate },
        'bloom filter sized by the first machine: its capacity and error rate are used',
      );
    }
    log.info({ ...used }, 'shared seen-set: bloom filter');
  }
  return used;
}
