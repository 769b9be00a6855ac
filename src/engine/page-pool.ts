/**
 * Several page threads behind one {@link PageProcessor}: a page goes to the first thread unless
 * that thread already has a backlog, then to the least busy one, so a second core is used only
 * when the page work (large pages, Markdown for every page) outruns one thread. A crawl of one
 * site runs in one worker process (work is partitioned by host), so without this its page work
 * would be bound to one core. Each member is a page thread with its body writer, started on its
 * first page and ended when idle (`ThreadedPageProcessor`); a page's body and Markdown stay with
 * the member that worked it until they are stored or dropped.
 */
import type { PageProcessor } from './page-processor.js';
import { markdownId, type PageJob, type WorkedPage } from './page-work.js';

/** Defaults of {@link PagePool}. */
export const PAGE_POOL_DEFAULTS = {
  /**
   * Pages in flight on the first thread from which the next page goes to a less busy one. The
   * fetch loop keeps up to `--concurrency` pages in flight; a thread that keeps up holds one or
   * two at a time, so a backlog of this many means it is the bottleneck.
   */
  spillAt: 4,
} as const;

/** Page threads behind one {@link PageProcessor} (see the module comment). */
export class PagePool implements PageProcessor {
  /** The member keeping each body (by page id, and by its Markdown's id when it has one). */
  private readonly owner = new Map<number, PageProcessor>();
  /** Pages each member is working on. */
  private readonly busy: number[];

  /**
   * @param members the page threads, the first preferred; at least one.
   * @param spillAt pages in flight on the first member from which the others are used.
   * @throws RangeError without members.
   */
  constructor(
    private readonly members: readonly PageProcessor[],
    private readonly spillAt: number = PAGE_POOL_DEFAULTS.spillAt,
  ) {
    if (members.length === 0) throw new RangeError('a page pool needs at least one page thread');
    this.busy = members.map(() => 0);
  }

  /** Pages in flight per member. */
  get inFlight(): readonly number[] {
    return this.busy;
  }

  /** Bodies kept, awaiting a store or a drop (pages and Markdown). */
  get kept(): number {
    return this.owner.size;
  }

  /** The member the next page goes to: the first while its backlog is under `spillAt`, else the least busy. */
  private pick(): number {
    if (this.busy[0] < this.spillAt) return 0;
    let best = 0;
    for (let i = 1; i < this.members.length; i++) if (this.busy[i] < this.busy[best]) best = i;
    return best;
  }

  async work(job: PageJob): Promise<WorkedPage> {
    const i = this.pick();
    const member = this.members[i];
    this.owner.set(job.id, member);
    this.busy[i]++;
    try {
      const worked = await member.work(job);
      if (worked.markdown) this.owner.set(markdownId(job.id), member);
      return worked;
    } catch (e) {
      this.owner.delete(job.id); // a page that failed keeps nothing
      throw e;
    } finally {
      this.busy[i]--;
    }
  }

  store(id: number, url: string, extension?: string): Promise<string> {
    const member = this.owner.get(id);
    if (member === undefined) return Promise.reject(new Error(`no body kept for ${url}`));
    this.owner.delete(id);
    return member.store(id, url, extension);
  }

  drop(id: number): void {
    const member = this.owner.get(id) ?? this.owner.get(markdownId(id));
    this.owner.delete(id);
    this.owner.delete(markdownId(id));
    member?.drop(id);
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.close()));
    this.owner.clear();
  }
}
