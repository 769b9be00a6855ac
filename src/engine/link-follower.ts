/**
 * Where a page's links go: session ids are removed from them (`--keep-param`); past `--max-depth`
 * (page requisites excepted) or out of scope (the scope, `--include`/`--exclude`
 * and the trap rules) they are counted and skipped, the first {@link TRAP_LOG_LIMIT} traps of each
 * kind logged; a link owned by another process goes to the handoff outbox; the rest are queued
 * here.
 */
import type { Logger } from 'pino';
import type { RequestMeta } from '../frontier/request-meta.js';
import type { EngineRequest } from '../sources/request.js';
import { REQUISITE_LABEL, type Scope } from '../url/scope.js';
import type { SessionIdStripper } from '../url/session-ids.js';
import type { CrawlStats } from './crawl-stats.js';
import { type HandoffOutbox, ownerOf, type Partition } from './handoff-outbox.js';

/** Trap links logged per reason (`trap link skipped`); past this they are only counted in the stats. */
export const TRAP_LOG_LIMIT = 100;

/** What the follower works with. */
export interface LinkFollowerParts {
  scope: Scope;
  /** Session-id removal, before the scope sees a link. */
  sessionIds: SessionIdStripper;
  /** Counters of links skipped, by reason (changed in place). */
  skipped: CrawlStats['skipped'];
  log: Logger;
  /** `--max-depth`; undefined = unlimited. */
  maxDepth: number | undefined;
  /** With sibling processes: who owns which URL, and the outbox to them. */
  handoff: { partition: Partition; outbox: HandoffOutbox } | null;
  /** Queue a link this worker owns (when it is new), found on a page of round `from`. */
  enqueue(url: string, depth: number, meta: RequestMeta | undefined, from?: number): void;
}

/** Follows the links of one worker's pages. */
export class LinkFollower {
  constructor(private readonly parts: LinkFollowerParts) {}

  /**
   * Follow `links` (canonical URLs, with their metadata when they have some) found at depth
   * `depth - 1`, on a page of round `from` (continuous collection); session ids are removed from
   * their URLs first.
   */
  follow(links: EngineRequest[], depth: number, from?: number): void {
    const { scope, sessionIds, skipped, log, maxDepth, handoff } = this.parts;
    const deep = maxDepth !== undefined && depth > maxDepth;
    for (const request of links) {
      let found: string;
      let meta: RequestMeta | undefined;
      if (typeof request === 'string') found = request;
      else ({ url: found, meta } = request);
      // A page requisite is fetched past --max-depth, as wget -p does (its own are requisites too).
      const requisite = meta?.label === REQUISITE_LABEL;
      if (deep && !requisite) {
        skipped.depth++;
        continue;
      }
      const link = sessionIds.strip(found);
      // A navigation file (robots.txt, a sitemap) is fetched whatever the scope.
      const verdict = meta?.scope === false ? 'ok' : scope.check(link, requisite);
      if (verdict !== 'ok') {
        const n = ++skipped[verdict];
        if (n <= TRAP_LOG_LIMIT && verdict.startsWith('trap-')) {
          log.info({ url: link, reason: verdict }, 'trap link skipped');
        }
        continue;
      }
      if (handoff !== null) {
        const { partition, outbox } = handoff;
        const owner = ownerOf(link, partition.count, partition.by);
        if (owner !== partition.index) {
          outbox.add(owner, link, depth, meta);
          continue;
        }
      }
      this.parts.enqueue(link, depth, meta, from);
    }
  }
}
