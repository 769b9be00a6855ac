/**
 * Gives every entry taken from the frontier back exactly once: its host slot is released early,
 * as soon as its response is in (the host's next request, its politeness gap and concurrency, need
 * not wait for decoding, parsing and storing), or when its outcome is known; or the entry goes back
 * in the queue for another try.
 */
import type { FrontierEntry, FrontierQueue } from '../frontier/frontier-queue.js';

/** The frontier's side of one worker's entries in flight. */
export class HostSlots {
  /** Entries whose slot was released when their response arrived. */
  private readonly releasedEarly = new WeakSet<FrontierEntry>();

  constructor(private readonly frontier: FrontierQueue) {}

  /** The response is in: free the host's slot now. `answered` as in `FrontierQueue.done`. */
  releaseEarly(entry: FrontierEntry, answered: boolean): void {
    this.frontier.done(entry, answered);
    this.releasedEarly.add(entry);
  }

  /** The entry has its item: free its slot, unless {@link releaseEarly} did. */
  release(entry: FrontierEntry, answered: boolean): void {
    if (!this.releasedEarly.delete(entry)) this.frontier.done(entry, answered);
  }

  /**
   * Try the entry again after `delayMs`; `counts`: the try counts against `--retries`; `reason`:
   * why its host waits (status).
   */
  retry(entry: FrontierEntry, delayMs: number, counts: boolean, reason?: string): void {
    this.frontier.retry(entry, delayMs, this.releasedEarly.delete(entry), counts, reason);
  }

  /**
   * Fetch a released entry again at once without counting a try: its body was lost after its
   * item was on the way (the page thread died while storing it).
   */
  refetch(entry: FrontierEntry): void {
    this.frontier.retry(entry, 0, true, false);
  }
}
