/**
 * An indexed binary min-heap of host slots keyed by the time each may next be served, so the
 * frontier finds the next ready host in O(1) and re-keys a host in O(log hosts).
 */

/** What the heap needs of an element: its key and a slot for its position. */
export interface HeapItem {
  /** Sort key (ms on the frontier's clock). */
  heapKey: number;
  /** Position in the heap array, -1 when not in the heap. Owned by the heap. */
  heapIndex: number;
}

/** Min-heap on `heapKey`, with O(log n) update and removal of any member. */
export class HostHeap<T extends HeapItem> {
  private items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  /** The item with the smallest key, or undefined. */
  peek(): T | undefined {
    return this.items[0];
  }

  /** Insert `item` (must not be in the heap) with key `key`. */
  push(item: T, key: number): void {
    item.heapKey = key;
    item.heapIndex = this.items.length;
    this.items.push(item);
    this.up(item.heapIndex);
  }

  /** Remove and return the smallest item. */
  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    if (top === undefined) return undefined;
    this.removeAt(0);
    return top;
  }

  /** Change the key of a member. */
  update(item: T, key: number): void {
    const old = item.heapKey;
    item.heapKey = key;
    if (key < old) this.up(item.heapIndex);
    else this.down(item.heapIndex);
  }

  /** Remove a member (no-op if it is not in the heap). */
  remove(item: T): void {
    if (item.heapIndex >= 0) this.removeAt(item.heapIndex);
  }

  private removeAt(i: number): void {
    const items = this.items;
    const gone = items[i];
    const last = items.pop() as T;
    gone.heapIndex = -1;
    if (i < items.length) {
      items[i] = last;
      last.heapIndex = i;
      this.down(i);
      this.up(last.heapIndex);
    }
  }

  private up(i: number): void {
    const items = this.items;
    const item = items[i];
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = items[p];
      if (parent.heapKey <= item.heapKey) break;
      items[i] = parent;
      parent.heapIndex = i;
      i = p;
    }
    items[i] = item;
    item.heapIndex = i;
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    const item = items[i];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && items[r].heapKey < items[l].heapKey ? r : l;
      if (items[c].heapKey >= item.heapKey) break;
      items[i] = items[c];
      items[i].heapIndex = i;
      i = c;
    }
    items[i] = item;
    item.heapIndex = i;
  }
}
