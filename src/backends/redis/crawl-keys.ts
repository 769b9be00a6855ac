/**
 * The Redis key names of one crawl. Every key starts with `collector:{<crawl id>}:`, so two crawls
 * share one Redis safely, and (by the `{…}` hash tag) all keys of a crawl sit in one Redis Cluster
 * slot, where the scripts that touch several of them may run.
 */

/** Allowed crawl ids: what is safe in a key name and a command line. */
export const CRAWL_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The key prefix of crawl `crawlId`: `collector:{<crawlId>}:`.
 * @throws Error when the id is not {@link CRAWL_ID_PATTERN}.
 */
export function crawlPrefix(crawlId: string): string {
  if (!CRAWL_ID_PATTERN.test(crawlId)) {
    throw new Error(`crawl id "${crawlId}": use 1 to 64 letters, digits, '.', '_' or '-'`);
  }
  return `collector:{${crawlId}}:`;
}

/**
 * Keys below the prefix (the scripts build the per-host and per-machine ones themselves):
 * - `seen` SET of 64-bit URL fingerprints (16 hex digits): every URL ever queued.
 * - `e` HASH url → entry JSON `{d: depth, a: attempt, m?: metadata}` of queued and leased URLs.
 * - `q:<host>` ZSET of a host's queued URLs (score: retries, priority, depth, arrival).
 * - `ready` ZSET host → ms (Redis clock) from which the host may be served: hosts with URLs queued
 *   and a free concurrency token.
 * - `h:<host>` HASH politeness clock: `n` next-allowed ms, `p` paused-until ms, `f` requests in
 *   flight, `c` Crawl-delay ms, `y` slow-down penalty ms.
 * - `l:<machine>` HASH url → `host|1` (leased, in flight) or `host|0` (response in, item not yet
 *   acknowledged); `t:<machine>` HASH host → tokens that machine holds.
 * - `w:<machine>` HASH url → batch: URLs that machine acknowledged whose item lines may not be
 *   written yet (they are in its pending items file); cleared by the machine once written, or at
 *   its resume; kept (no TTL) when the machine is silent, since its resume needs them.
 * - `machines` SET of machine ids; `hb:<machine>` heartbeat (JSON status, expires: the lease).
 * - `n:queued`, `n:leased`, `n:done`, `n:seq` counters; `stop` the ms a stop was asked at.
 * - `crawl` HASH the crawl's record: `epoch` (random, made once by the first machine), `created`
 *   ms; every script that writes the crawl's state fails (`CRAWLLOST`) when it is gone.
 * - `asking` ZSET machine → ms of its last claim; `hungry` ZSET machine → ms of its last claim that
 *   got less than it asked; `sv:<host>` HASH machine → ms it last got a token of the host (the
 *   fair share of a host's slots, see CLAIM).
 * - With a Bloom seen-set (`seen-set-scripts.ts`) instead of `seen`: `seenset` HASH its kind and
 *   shape, `bloom:<i>` STRING bits of our filter (2^32 per key at most), `bf` RedisBloom's filter,
 *   `n:seen` URLs it took as new.
 */
export const KEY = {
  seen: 'seen',
  bloomSeen: 'n:seen',
  machines: 'machines',
  queued: 'n:queued',
  leased: 'n:leased',
  done: 'n:done',
  stop: 'stop',
  heartbeat: (machine: string) => `hb:${machine}`,
} as const;
