/**
 * Whether a request is new, so that it is queued (or handed to its owner) once: by the crawl-wide
 * seen-set, or, for a request fetched again in every round (a seed at a later round, or one marked
 * `everyRound`), once per round. Every admitted URL is in the seen-set, so a plain link to it is
 * not fetched a second time. The first pass of a process (round 0: a new crawl, or a resume) goes
 * by the seen-set alone, so a restart does not fetch again what its state says is done.
 */
import type { SeenSet } from '../dedup/seen-set.js';
import type { RequestMeta } from '../frontier/request-meta.js';

/** The admission of one worker's requests. */
export class Admission {
  /** URLs admitted for the round in progress past the seen-set (few: hub pages). */
  private readonly thisRound = new Set<string>();
  /** A later round is in progress: every-round requests go past the seen-set. */
  private later = false;

  constructor(private readonly seen: SeenSet) {}

  /**
   * Admit `url`: new to the seen-set, or, in a later round, an `everyRound` request not yet
   * admitted this round.
   */
  admit(url: string, meta: RequestMeta | undefined): boolean {
    if (this.later && meta?.everyRound === true) return this.admitForRound(url);
    return this.seen.add(url);
  }

  /** Admit `url` once this round, seen before or not. */
  admitForRound(url: string): boolean {
    this.seen.add(url);
    if (this.thisRound.has(url)) return false;
    this.thisRound.add(url);
    return true;
  }

  /** A later round starts: every-round requests may go again. */
  newRound(): void {
    this.later = true;
    this.thisRound.clear();
  }
}
