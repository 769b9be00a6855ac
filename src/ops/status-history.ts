/**
 * A bounded ring of samples of a collector's totals (items, errors, data size) for the status
 * page's charts: fixed capacity, the oldest sample dropped first, so memory stays constant
 * however long the supervisor runs.
 */

/**
 * One sample: `[epoch seconds, items, errors, data bytes]` (compact: sent to the page as is);
 * data bytes is null until the first measurement of the data dir.
 */
export type HistorySample = [t: number, items: number, errors: number, dataBytes: number | null];

/** Default sampling period of the history, ms (10 s). */
export const HISTORY_SAMPLE_MS = 10_000;

/** Default span kept, ms (6 hours: 2,160 samples of 10 s, about 70 KB). */
export const HISTORY_SPAN_MS = 6 * 3_600_000;

/** Fixed-capacity ring of samples, in time order. */
export class StatusHistory {
  private readonly buf: HistorySample[] = [];
  private start = 0;

  /** @param capacity samples kept (at least 2). */
  constructor(readonly capacity: number) {
    if (!(capacity >= 2)) throw new RangeError(`history capacity must be at least 2, got ${capacity}`);
  }

  /** Add a sample; the oldest one goes when full. */
  add(sample: HistorySample): void {
    if (this.buf.length < this.capacity) this.buf.push(sample);
    else {
      this.buf[this.start] = sample;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  get length(): number {
    return this.buf.length;
  }

  /** The samples, oldest first. */
  samples(): HistorySample[] {
    return [...this.buf.slice(this.start), ...this.buf.slice(0, this.start)];
  }
}
