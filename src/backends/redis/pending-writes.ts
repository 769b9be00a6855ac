/**
 * The writes a machine owes the shared crawl, batched: URLs to queue (one ENQUEUE script per batch:
 * seen-check and queueing in one atomic step, so the shared queue never holds a URL twice) and
 * URLs only to mark seen (redirect targets, URLs done before a resume). Sent on the next turn of
 * the event loop, or at once when a batch is full, in order on the one connection.
 */
import { fingerprint, fp } from '../../url/fingerprint.js';
import type { RedisLink } from './redis-link.js';
import { type SeenSetScripts, seenSetScripts } from './seen-set-choice.js';

/** URLs per ENQUEUE call (bounds one script's run time in Redis). */
export const ENQUEUE_BATCH = 500;

/** A URL's 64-bit fingerprint as 16 hex digits (the member of the shared seen-set). */
export function urlFingerprint(url: string): string {
  fingerprint(url);
  return fp[0].toString(16).padStart(8, '0') + fp[1].toString(16).padStart(8, '0');
}

/** Queue order bands (see the scripts): a priority above 0, plain, a priority below 0. */
const BAND_HIGH = 1;
const BAND_PLAIN = 2;
const BAND_LOW = 3;
/** Largest |priority| and depth kept apart in a score; larger ones are ordered as this. */
const MAX_LEVEL = 9_999;

/** The band and level of a queued URL (its order among its host's URLs). */
export function queueOrder(depth: number, priority: number): [band: number, level: number] {
  const clamp = (n: number) => Math.max(-MAX_LEVEL, Math.min(MAX_LEVEL, n));
  if (priority > 0) return [BAND_HIGH, -clamp(priority)];
  if (priority < 0) return [BAND_LOW, -clamp(priority)];
  return [BAND_PLAIN, clamp(depth)];
}

/** Batched writes of one machine. */
export class PendingWrites {
  private args: (string | number)[] = [];
  /** URLs marked seen here and not (yet) queued: sent as seen-only marks. */
  private readonly fresh = new Set<string>();
  private scheduled = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Writes sent so far (a claim's counts reflect every write sent before it). */
  sent = 0;

  /**
   * @param prefix the crawl's key prefix. @param hostConcurrency tokens per host.
   * @param onError told of a write Redis refused (a script error: a bug, or a Redis out of memory).
   * @param seen the scripts of the crawl's seen-set (default: the exact set).
   */
  constructor(
    private readonly link: RedisLink,
    private readonly prefix: string,
    private readonly hostConcurrency: number,
    private readonly onError: (e: Error) => void,
    private readonly seen: SeenSetScripts = seenSetScripts('exact'),
  ) {}

  /** Writes not yet sent, or sent and not yet answered. */
  get pending(): number {
    return this.args.length + this.fresh.size + this.inFlight.size;
  }

  /** `url` was found new by this machine's seen-set. */
  markSeen(url: string): void {
    this.fresh.add(url);
    this.schedule();
  }

  /** `url` was found new here and is not yet sent (so not yet queued or marked seen crawl-wide). */
  isFresh(url: string): boolean {
    return this.fresh.has(url);
  }

  /** Queue `url` in the shared frontier (if no machine queued it before). */
  push(url: string, host: string, depth: number, priority: number, entryJson: string): void {
    this.fresh.delete(url);
    const [band, level] = queueOrder(depth, priority);
    this.args.push(url, host, urlFingerprint(url), band, level, entryJson);
    if (this.args.length >= ENQUEUE_BATCH * 6) this.flush();
    else this.schedule();
  }

  /** Send everything now (in order before any command sent after this call). */
  flush(): void {
    this.scheduled = false;
    while (this.args.length > 0) {
      const batch = this.args.splice(0, ENQUEUE_BATCH * 6);
      this.track(this.link.script(this.seen.enqueue, [this.prefix, this.hostConcurrency, ...batch]));
    }
    if (this.fresh.size > 0) {
      const fps = [...this.fresh].map(urlFingerprint);
      this.fresh.clear();
      const mark = this.seen.mark;
      this.track(
        mark === null
          ? this.link.send(() => this.link.client.sadd(`${this.prefix}seen`, fps))
          : this.link.script(mark, [this.prefix, ...fps]),
      );
    }
  }

  /** Resolves when every write sent so far is answered. */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  /** Count `p` as a write of this machine (answered in order; a refusal goes to `onError`). */
  track(p: Promise<unknown>): void {
    this.sent++;
    const t = p.then(
      () => {
        this.inFlight.delete(t);
      },
      (e: Error) => {
        this.inFlight.delete(t);
        this.onError(e);
      },
    );
    this.inFlight.add(t);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      if (this.scheduled) this.flush();
    });
  }
}
