/**
 * The name of a crawl on a shared backend when none is given: collectors started with the same
 * seeds, scope and source join the same crawl.
 */
import { createHash } from 'node:crypto';

/**
 * The crawl id used when none is given: `crawl-` and 12 hex digits of a SHA-256 over the sorted
 * seeds, the scope and the source, so collectors started with the same command share a crawl.
 */
export function defaultCrawlId(seeds: string[], scope: string, source: string): string {
  const h = createHash('sha256').update(JSON.stringify({ seeds: [...seeds].sort(), scope, source }));
  return `crawl-${h.digest('hex').slice(0, 12)}`;
}
