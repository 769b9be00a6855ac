/**
 * The name of a crawl on a shared backend when none is given: collectors started with the same
 * seeds, scope and source join the same crawl.
 */
import { createHash } from 'node:crypto';
import { UsageError } from '../config/usage-error.js';

/** Longest crawl id (as `--crawl-id` allows). */
const CRAWL_ID_MAX = 64;

/**
 * The crawl id used when none is given: `crawl-` and 12 hex digits of a SHA-256 over the sorted
 * seeds, the scope and the source, so collectors started with the same command share a crawl.
 */
export function defaultCrawlId(seeds: string[], scope: string, source: string): string {
  const h = createHash('sha256').update(JSON.stringify({ seeds: [...seeds].sort(), scope, source }));
  return `crawl-${h.digest('hex').slice(0, 12)}`;
}

/**
 * The crawl id of worker type `group` of a `collector run` config on a shared backend:
 * `<crawlId>.<group>`, where the crawl id is the config's, else derived from the type's seeds,
 * scope and source; each worker type is a shared crawl of its own.
 * @throws UsageError when the id is longer than 64 characters.
 */
export function typeCrawlId(
  crawlId: string | undefined,
  group: string,
  seeds: string[],
  scope: string,
  source: string,
): string {
  const id = `${crawlId ?? defaultCrawlId(seeds, scope, source)}.${group}`;
  if (id.length > CRAWL_ID_MAX) {
    throw new UsageError(
      `crawlId: "${id}" (the crawl id, a dot and the worker type's name) is longer than ${CRAWL_ID_MAX} characters; use a shorter crawlId or name`,
    );
  }
  return id;
}
