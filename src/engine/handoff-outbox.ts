/**
 * URL ownership among the processes of one worker type (DESIGN §1), and the outbox of links
 * owned by other processes: each is recorded in `handoff-<owner>.log` with the request's metadata
 * (so it can be sent again, as it was, after the owner restarts), then sent to its owner through
 * the supervisor in batches.
 */
import { type Journal, readHandoffs } from '../frontier/journal.js';
import { ReplayFilter } from '../frontier/replay-filter.js';
import type { RequestMeta } from '../frontier/request-meta.js';
import type { Admission } from './admission.js';

// Ownership itself is computed in url/ (the runtime's plan recovery uses it too).
export { ownerOf } from '../url/ownership.js';

/** Links sent in one message at most; a fuller box is sent at once. */
export const HANDOFF_BATCH = 500;

/** Links per message when the handoff log is sent again. */
export const RESEND_BATCH = 1000;

/** A link handed to its owner: canonical URL, depth, and the request's metadata when it has some. */
export type HandoffLink = [url: string, depth: number, meta?: RequestMeta];

/**
 * Ownership among the `count` workers of one type: a URL belongs to worker
 * `hash(host) mod count` (or `hash(url) mod count` with `by: 'url'`); links owned by another
 * worker are handed to it, so no URL is fetched twice without a shared seen-set.
 */
export interface Partition {
  /** This worker's number, 0-based. */
  index: number;
  /** Workers of this type. */
  count: number;
  /** What is hashed: the host (politeness stays in one process) or the whole URL (one big site). */
  by: 'host' | 'url';
  /** Send links to their owner (batched by the outbox). */
  handoff(owner: number, links: HandoffLink[]): void;
  /** Called when the worker becomes idle (nothing queued or in flight) or busy again. */
  onIdle(idle: boolean): void;
}

/** Links waiting to be sent to their owners. One per worker that has siblings. */
export class HandoffOutbox {
  private readonly boxes = new Map<number, HandoffLink[]>();
  private scheduled = false;

  /**
   * @param stateDir this worker's state dir, holding its `handoff-<owner>.log` files.
   * @param replayFilter checks the lines read back by {@link resend} (damaged ones are skipped;
   *   they were reported when the worker resumed).
   */
  constructor(
    private readonly partition: Partition,
    private readonly admission: Admission,
    private readonly journal: Journal,
    private readonly stateDir: string,
    private readonly replayFilter: () => ReplayFilter = () => new ReplayFilter(),
  ) {}

  /**
   * Hand a link to its owner, once (the seen-set remembers it here too; an every-round request
   * once per round). Sent at the end of this event-loop turn, or at once when the box holds
   * {@link HANDOFF_BATCH} links.
   */
  add(owner: number, url: string, depth: number, meta?: RequestMeta): void {
    if (!this.admission.admitForOwner(url, meta)) return;
    this.journal.handedOff(owner, url, depth, meta);
    let box = this.boxes.get(owner);
    if (box === undefined) {
      box = [];
      this.boxes.set(owner, box);
    }
    box.push(meta === undefined ? [url, depth] : [url, depth, meta]);
    if (box.length >= HANDOFF_BATCH) this.flush();
    else if (!this.scheduled) {
      // Batches form naturally within a turn, and the owner is not kept waiting (a fixed 50 ms
      // delay per hop slowed multi-process crawls).
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Send every box now. */
  flush(): void {
    this.scheduled = false;
    for (const [owner, links] of this.boxes) if (links.length > 0) this.partition.handoff(owner, links);
    this.boxes.clear();
  }

  /**
   * Send again to worker `owner` every URL ever handed to it (after it restarted: whatever it had
   * not saved is queued again; its seen-set drops the rest).
   * @returns how many were sent.
   */
  async resend(owner: number): Promise<number> {
    await this.journal.flush();
    let batch: HandoffLink[] = [];
    let n = 0;
    await readHandoffs(
      this.stateDir,
      owner,
      (url, depth, meta) => {
        batch.push(meta === undefined ? [url, depth] : [url, depth, meta]);
        n++;
        if (batch.length >= RESEND_BATCH) {
          this.partition.handoff(owner, batch);
          batch = [];
        }
      },
      this.replayFilter(),
    );
    if (batch.length > 0) this.partition.handoff(owner, batch);
    return n;
  }
}
