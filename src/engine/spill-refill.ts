/**
 * Keeps the in-memory frontier within `--max-queued-in-memory`: past it (and while anything is
 * spilled, so order is kept) URLs go to the spill file, and they are read back in order once the
 * in-memory queue is down to half its budget.
 */
import type { Logger } from 'pino';
import type { FrontierQueue } from '../frontier/frontier-queue.js';
import type { RequestMeta } from '../frontier/request-meta.js';
import type { SpillQueue } from '../frontier/spill-queue.js';

/** The frontier in memory plus its spill on disk. One per worker. */
export class SpillRefill {
  private refilling = false;

  /**
   * @param budget URLs queued in memory at most (`--max-queued-in-memory`).
   * @param wake called when spilled URLs are back in the frontier (or reading them failed).
   * @param priorityOf the priority of a URL read back (the spill file keeps only URL and depth).
   */
  constructor(
    private readonly frontier: FrontierQueue,
    private readonly spill: SpillQueue,
    private readonly budget: number,
    private readonly log: Logger,
    private readonly wake: () => void,
    private readonly priorityOf: (url: string) => number = () => 0,
  ) {}

  /** Queue a URL: into the frontier, or past its budget to the spill file. */
  push(url: string, depth: number, priority = 0, meta?: RequestMeta): void {
    if (this.spill.size > 0 || this.frontier.queued >= this.budget) this.spill.push(url, depth);
    else this.frontier.push(url, depth, priority, meta);
  }

  /** URLs are waiting on disk, or being read back. */
  get holdsUrls(): boolean {
    return this.spill.size > 0 || this.refilling;
  }

  /** Read spilled URLs back once the in-memory queue is down to half its budget. */
  refill(): void {
    if (this.refilling || this.spill.size === 0) return;
    const room = this.budget - this.frontier.queued;
    if (room < this.budget / 2) return;
    this.refilling = true;
    this.spill.take(room).then(
      (entries) => {
        for (const [url, depth] of entries) this.frontier.push(url, depth, this.priorityOf(url));
        this.refilling = false;
        this.wake();
      },
      (e: Error) => {
        this.log.error({ err: e.message }, 'reading the spilled frontier failed');
        this.refilling = false;
        this.wake();
      },
    );
  }

  /** Close the spill file. */
  close(): Promise<void> {
    return this.spill.close();
  }
}
