import { describe, expect, it } from 'vitest';
import { PagePool } from '../../src/engine/page-pool.js';
import type { PageProcessor } from '../../src/engine/page-processor.js';
import { markdownId, type PageJob, type WorkedPage } from '../../src/engine/page-work.js';

/** A page thread that answers when told to, and says what it was asked. */
class HeldMember implements PageProcessor {
  readonly calls: string[] = [];
  private readonly pending = new Map<
    number,
    { resolve: (w: WorkedPage) => void; reject: (e: Error) => void }
  >();
  constructor(readonly name: string) {}
  work(job: PageJob): Promise<WorkedPage> {
    this.calls.push(`work ${job.id}`);
    return new Promise((resolve, reject) => this.pending.set(job.id, { resolve, reject }));
  }
  finish(id: number, markdown = false): void {
    this.pending
      .get(id)!
      .resolve({ id, bytes: 1, sha256: 'x', ...(markdown ? { markdown: true as const } : {}) });
    this.pending.delete(id);
  }
  fail(id: number): void {
    this.pending.get(id)!.reject(new Error('page thread exited'));
    this.pending.delete(id);
  }
  store(id: number): Promise<string> {
    this.calls.push(`store ${id}`);
    return Promise.resolve(`${this.name}/${id}`);
  }
  drop(id: number): void {
    this.calls.push(`drop ${id}`);
  }
  close(): Promise<void> {
    this.calls.push('close');
    return Promise.resolve();
  }
}

const job = (id: number): PageJob => ({
  id,
  url: `http://127.0.0.1/${id}`,
  finalUrl: `http://127.0.0.1/${id}`,
  status: 200,
  contentType: 'text/html',
  contentEncoding: null,
  headers: {},
  depth: 0,
  maxBytes: 1 << 20,
  extract: true,
  body: new Uint8Array(1),
});

describe('PagePool', () => {
  it('sends pages to the first thread until it has a backlog of spillAt, then to the least busy', async () => {
    const a = new HeldMember('a');
    const b = new HeldMember('b');
    const c = new HeldMember('c');
    const pool = new PagePool([a, b, c], 2);
    const work = [1, 2, 3, 4, 5].map((id) => pool.work(job(id)));
    expect(a.calls).toEqual(['work 1', 'work 2']);
    expect(b.calls).toEqual(['work 3', 'work 5']);
    expect(c.calls).toEqual(['work 4']);
    expect(pool.inFlight).toEqual([2, 2, 1]);
    a.finish(1);
    await work[0];
    void pool.work(job(6)); // the first thread's backlog is under spillAt again
    expect(a.calls.at(-1)).toBe('work 6');
  });

  it('stores and drops a body (and its Markdown) with the thread that worked it', async () => {
    const a = new HeldMember('a');
    const b = new HeldMember('b');
    const pool = new PagePool([a, b], 1);
    const p1 = pool.work(job(1));
    const p2 = pool.work(job(2));
    a.finish(1);
    b.finish(2, true);
    await Promise.all([p1, p2]);
    expect(pool.kept).toBe(3); // two bodies and one Markdown
    expect(await pool.store(2, 'u2')).toBe('b/2');
    expect(await pool.store(markdownId(2), 'u2')).toBe(`b/${markdownId(2)}`);
    pool.drop(1);
    expect(a.calls).toEqual(['work 1', 'drop 1']);
    expect(b.calls).toEqual(['work 2', 'store 2', `store ${markdownId(2)}`]);
    expect(pool.kept).toBe(0);
    await expect(pool.store(1, 'u1')).rejects.toThrow('no body kept for u1');
  });

  it('keeps nothing of a page whose thread failed, and closes every thread', async () => {
    const a = new HeldMember('a');
    const pool = new PagePool([a, new HeldMember('b')]);
    const p = pool.work(job(7));
    a.fail(7);
    await expect(p).rejects.toThrow('page thread exited');
    expect(pool.kept).toBe(0);
    expect(pool.inFlight).toEqual([0, 0]);
    await pool.close();
    expect(a.calls.at(-1)).toBe('close');
    expect(() => new PagePool([])).toThrow(RangeError);
  });
});
