/**
 * A host's queue of URLs pushed with a priority other than 0 (few, in practice: a source's hub
 * pages or its most wanted requests): a binary heap, higher priority first, then lower depth,
 * then first come. URLs without a priority never enter it, so the plain crawl pays nothing.
 */

/** One prioritized URL. */
export interface LaneEntry {
  url: string;
  depth: number;
  priority: number;
  /** Arrival order, breaking ties. */
  seq: number;
}

function before(a: LaneEntry, b: LaneEntry): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (a.depth !== b.depth) return a.depth < b.depth;
  return a.seq < b.seq;
}

/** A heap of prioritized URLs. */
export class PriorityLane {
  private readonly heap: LaneEntry[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  /** Priority of the first entry (undefined when empty). */
  get topPriority(): number | undefined {
    return this.heap[0]?.priority;
  }

  push(url: string, depth: number, priority: number): void {
    const h = this.heap;
    h.push({ url, depth, priority, seq: this.seq++ });
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i], h[parent])) break;
      [h[i], h[parent]] = [h[parent], h[i]];
      i = parent;
    }
  }

  /** Take the first entry. @throws when empty. */
  pop(): LaneEntry {
    const h = this.heap;
    const top = h[0];
    if (top === undefined) throw new Error('PriorityLane.pop: empty');
    const last = h.pop() as LaneEntry;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l], h[m])) m = l;
        if (r < h.length && before(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}
