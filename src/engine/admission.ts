/**
 * Whether a request is new, so that it is queued (or handed to its owner) once: by the crawl-wide
 * seen-set, or, for a request fetched again in every round (a seed at a later round, or one marked
 * `everyRound`), once per round. Every admitted URL is in the seen-set, so a plain link to it is
 * not fetched a second time. The first pass of a process (a new crawl, or a resume) goes by the
 * seen-set alone, so a restart does not fetch again what its state says is done. A round request
 * still queued or in flight from an earlier round (its host is backed off) is not queued again: it
 * goes once, and the other requests of the new round go on time regardless.
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
  /** The round in progress (0: none since the crawl began). */
  private round = 0;
  /** Round requests queued or in flight, until their item: URL → the round that admitted it. */
  private readonly pendingRound = new Map<string, number>();
  /**
   * With rounds: every other URL queued here, until its item → the round whose requests led to
   * it (the round of the page it was found on). A round starts on time, while an earlier round's
   * pages may still be queued; an item says the round it belongs to, not the one in progress.
   */
  private readonly lineage: Map<string, number> | null;

  /**
   * @param revisits what this worker knows of the pages it fetched (continuous collection), to
   *   admit again a page a source says changed (`lastmod`); null otherwise.
   * @param rounds the worker collects in rounds (`interval`): each queued URL's round is kept.
   */
  constructor(
    private readonly seen: SeenSet,
    private readonly revisits: Pick<Revisits, 'changedSince'> | null = null,
    rounds = revisits !== null,
    /**
     * Keep round requests and the pages they led to pending here until their item (not queued
     * again meanwhile); false with a shared frontier, which does that crawl-wide (their item may
     * be written by another machine, so this one would hold them pending for ever).
     */
    private readonly pendingHere = true,
  ) {
    this.lineage = rounds && pendingHere ? new Map() : null;
  }

  /**
   * Admit `url` to this worker's frontier: new to the seen-set, or, in a later round, an
   * `everyRound` request not yet admitted this round, or a page the source says changed (its
   * `lastmod`) since it was fetched here, once per round.
   * @param from the round of the page `url` was found on (default: the round in progress).
   */
  admit(url: string, meta: RequestMeta | undefined, from?: number): boolean {
    if (this.later && meta?.everyRound === true) return this.admitForRound(url);
    if (this.seen.add(url)) {
      this.lineage?.set(url, from ?? this.round);
      return true;
    }
    const lastmod = meta?.lastmod;
    if (lastmod === undefined || this.revisits === null) return false;
    return this.revisits.changedSince(url, lastmod) === true && this.admitForRound(url);
  }

  /**
   * Admit `url` to be handed to its owner: as {@link admit}, except that a seen request with a
   * `lastmod` goes once per round, since only its owner knows when it fetched it.
   */
  admitForOwner(url: string, meta: RequestMeta | undefined): boolean {
    // handed to its owner, who tracks it as pending: not here
    if (this.later && meta?.everyRound === true) return this.admitForRound(url, false);
    if (this.seen.add(url)) return true;
    return meta?.lastmod !== undefined && this.revisits !== null && this.admitForRound(url, false);
  }

  /** Admit `url` once this round, seen before or not, unless it is still pending from an earlier one. */
  admitForRound(url: string, owned = true): boolean {
    this.seen.add(url);
    // still queued or in flight from an earlier round (a round request, or a page found then)
    if (this.thisRound.has(url) || this.pendingRound.has(url) || this.lineage?.has(url)) return false;
    this.thisRound.add(url);
    // Only a URL queued here gets its item here: one handed to its owner is the owner's to track.
    if (owned && this.pendingHere) this.pendingRound.set(url, this.round);
    return true;
  }

  /**
   * A later round starts: every-round requests may go again.
   * @param round its number (`data.round` of its items).
   */
  newRound(round: number = this.round + 1): void {
    this.later = true;
    this.round = round;
    this.thisRound.clear();
  }

  /**
   * A round request restored pending from the state at a restart: it is not queued again by the
   * next round, and its item says the round it belongs to.
   */
  restoredPending(url: string, round: number): void {
    if (this.pendingHere) this.pendingRound.set(url, round);
  }

  /** A seed of the first pass (as {@link admit}); once queued, it is pending like a round request. */
  admitSeed(url: string, meta: RequestMeta | undefined): boolean {
    if (!this.admit(url, meta)) return false;
    if (this.pendingHere) this.pendingRound.set(url, this.round);
    return true;
  }

  /**
   * @returns the round `url` belongs to: the round that queued it (a round request), or the round
   *   of the page it was found on, or, not known here (handed by a sibling, restored at a restart),
   *   the round in progress; always 0 without rounds.
   */
  roundOf(url: string): number {
    // A shared frontier's rounds do not overlap, and a machine joins an entry's round before it
    // takes it: the round in progress.
    if (!this.pendingHere) return this.round;
    if (this.lineage === null) return this.pendingRound.size === 0 ? 0 : (this.pendingRound.get(url) ?? 0);
    return this.pendingRound.get(url) ?? this.lineage.get(url) ?? this.round;
  }

  /** The item of `url` is written: a round request of it may go again in the next round. */
  acknowledged(url: string): void {
    if (this.pendingRound.size > 0) this.pendingRound.delete(url);
    this.lineage?.delete(url);
  }
}
