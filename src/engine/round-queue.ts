/**
 * A round's requests (continuous collection): made from the source (its `seeds()`, or the
 * configured seeds) with session ids removed, and, for a later round, queued past the seen-set —
 * those this worker owns, once each — with the known pages due again (`revisit`).
 */
import type { RequestMeta } from '../frontier/request-meta.js';
import { type EngineRequest, metaOf, urlOf } from '../sources/request.js';
import { roundRequests } from '../sources/source-runner.js';
import type { Admission } from './admission.js';
import type { NetworkParts } from './assembly.js';

/**
 * A later round's request is queued this much below its own priority, so that on its host it goes
 * after the work already queued (a round starts on time, whatever its host still holds): a host
 * that cannot keep up (rate budget, back-off) serves what earlier rounds found before the next
 * round's seeds, which otherwise, at depth 0, would go first every round and starve it.
 */
export const LATER_ROUND_STEP = 1;

/** What queueing a round works with. */
export interface RoundQueueParts {
  net: Pick<NetworkParts, 'source' | 'sessionIds' | 'scope' | 'revisits'>;
  admission: Admission;
  /** Whether this worker owns `url` among its siblings. */
  owns(url: string): boolean;
  /** Queue an admitted URL; `later`: a later round's (see {@link LATER_ROUND_STEP}). */
  push(url: string, depth: number, meta: RequestMeta | undefined, later: boolean): void;
}

/** Makes and queues the requests of each round. */
export class RoundQueue {
  constructor(private readonly parts: RoundQueueParts) {}

  /** The requests of a round; a failing `seeds()` is the source's error (logged, counted): none. */
  async make(): Promise<EngineRequest[]> {
    const { source, sessionIds } = this.parts.net;
    try {
      const strip = (u: string) => sessionIds.strip(u);
      return (await roundRequests(source)).map((r) =>
        typeof r === 'string' ? strip(r) : { url: strip(r.url), meta: r.meta },
      );
    } catch (e) {
      source.ctx.log.error(`seeds() failed: ${(e as Error)?.message ?? String(e)}`);
      return [];
    }
  }

  /** A later round `round`: its requests widen the scope, and those owned here go again, once each. */
  queue(requests: EngineRequest[], round: number): void {
    const { net, admission, owns, push } = this.parts;
    admission.newRound(round);
    for (const r of requests) {
      const url = urlOf(r);
      if (metaOf(r)?.scope !== false) net.scope.addSeed(url);
      if (owns(url) && admission.admitForRound(url)) push(url, 0, metaOf(r), true);
    }
    // Known pages due again (`revisit`): asked for again, conditionally.
    net.revisits?.startRound(round, (url, depth, meta) => {
      if (!admission.admitForRound(url)) return false;
      push(url, depth, meta, true);
      return true;
    });
  }
}
