/**
 * The shared seen-set, as one machine sees it: a local {@link FingerprintSet} answers at once (a
 * URL this machine saw is never sent twice), and every URL new here is made known crawl-wide,
 * either queued by the atomic ENQUEUE script (which drops a URL another machine queued first) or
 * marked seen on its own (a redirect target).
 */
import { FingerprintSet } from '../../dedup/fingerprint-set.js';
import type { SeenSet } from '../../dedup/seen-set.js';
import type { PendingWrites } from './pending-writes.js';

/** Members the local set is sized for before it first grows. */
const LOCAL_INITIAL_CAPACITY = 1 << 14;

/** One machine's view of the shared seen-set. */
export class RedisSeenSet implements SeenSet {
  private readonly local = new FingerprintSet(LOCAL_INITIAL_CAPACITY);

  constructor(private readonly writes: PendingWrites) {}

  /** URLs seen by this machine. */
  get size(): number {
    return this.local.size;
  }

  add(url: string): boolean {
    if (!this.local.add(url)) return false;
    this.writes.markSeen(url);
    return true;
  }

  has(url: string): boolean {
    return this.local.has(url);
  }
}
