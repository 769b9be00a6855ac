/**
 * Whether a request is new, so that it is queued (or handed to its owner) once: by the crawl-wide
 * seen-set, or, for a request fetched again in every round (a seed at a later round, or one marked
 * `everyRound`), once per round. Every admitted URL is in the seen-set, so a plain link to it is
 * not fetched a second time. The first pass of a process (round 0: a new crawl, or a resume) goes
 * by the seen-set alone, so a restart does not fetch again what its state says is done.
 */
import type { SeenSet } from '../dedup/seen-set.js';
import type { RequestMeta } from '../frontier/request-meta.js';
import type { Revisits } from './revisits.js';

/** The admission of one worker's requests. */
export class Admission {
  /** URLs admitted for the round in progress past the seen-set (few: hub pages). */
  private readonly thisRound = new Set<string>();
  /** A later round is in progress: every-round requests go past the seen-set. */
  private later = false;

  /**
   * @param revisits what this worker knows of the pages it fetched (continuous collection), to
   *   admit again a page a source says changed (`lastmod`); null otherwise.
   */
  constructor(
    private readonly seen: SeenSet,
    private readonly revisits: Pick<Revisits, 'changedSince'> | null = null,
  ) {}

  /**
   * Admit `url` to this worker's frontier: new to the seen-set, or, in a later round, an
   * `everyRound` request not yet admitted this round, or a page the source says changed (its
   * `lastmod`) since it was fetched here, once per round.
   */
  admit(url: string, meta: RequestMeta | undefined): boolean {
    if (this.later && meta?.everyRound === true) return this.admitForRound(url);
    if (this.seen.add(url)) return true;
    const lastmod = meta?.lastmod;
    if (lastmod === undefined || this.revisits === null) return false;
    return this.revisits.changedSince(url, lastmod) === true && this.admitForRound(url);
  }

  /**
   * Admit `url` to be handed to its owner: as {@link admit}, except that a seen request with a
   * `lastmod` goes once per round, since only its owner knows when it fetched it.
   */
  admitForOwner(url: string, meta: RequestMeta | undefined): boolean {
    if (this.later && meta?.everyRound === true) return this.admitForRound(url);
    if (this.seen.add(url)) return true;
    return meta?.lastmod !== undefined && this.revisits !== null && this.admitForRound(url);
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
