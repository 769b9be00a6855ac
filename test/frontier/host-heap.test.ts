import { describe, expect, it } from 'vitest';
import { type HeapItem, HostHeap } from '../../src/frontier/host-heap.js';
import { mulberry32 } from '../fixtures/prng.js';

interface Item extends HeapItem {
  id: number;
}

function item(id: number): Item {
  return { id, heapKey: 0, heapIndex: -1 };
}

/** Pop everything, returning the keys in pop order. */
function drain(heap: HostHeap<Item>): number[] {
  const keys: number[] = [];
  for (let it = heap.pop(); it !== undefined; it = heap.pop()) {
    expect(it.heapIndex).toBe(-1);
    keys.push(it.heapKey);
  }
  return keys;
}

describe('HostHeap', () => {
  it('is empty at first', () => {
    const heap = new HostHeap<Item>();
    expect(heap.size).toBe(0);
    expect(heap.peek()).toBeUndefined();
    expect(heap.pop()).toBeUndefined();
  });

  it('pops in key order and peek shows the minimum', () => {
    const heap = new HostHeap<Item>();
    const keys = [50, 10, 40, 30, 20, 10, 60];
    keys.forEach((k, i) => {
      heap.push(item(i), k);
    });
    expect(heap.size).toBe(keys.length);
    expect(heap.peek()?.heapKey).toBe(10);
    expect(drain(heap)).toEqual([10, 10, 20, 30, 40, 50, 60]);
    expect(heap.size).toBe(0);
  });

  it('update moves an item up or down', () => {
    const heap = new HostHeap<Item>();
    const items = [item(0), item(1), item(2), item(3)];
    items.forEach((it, i) => {
      heap.push(it, (i + 1) * 10);
    });
    heap.update(items[3], 5); // 40 -> 5: becomes the minimum
    expect(heap.peek()).toBe(items[3]);
    heap.update(items[3], 100); // back down below everything
    expect(heap.peek()).toBe(items[0]);
    heap.update(items[0], 35);
    expect(drain(heap)).toEqual([20, 30, 35, 100]);
  });

  it('remove takes out any member and is a no-op for non-members', () => {
    const heap = new HostHeap<Item>();
    const items = [5, 3, 8, 1, 9, 2].map((k, i) => {
      const it = item(i);
      heap.push(it, k);
      return it;
    });
    heap.remove(items[1]); // key 3, somewhere in the middle
    expect(items[1].heapIndex).toBe(-1);
    heap.remove(items[1]); // second time: no-op
    heap.remove(item(99)); // never a member: no-op
    expect(heap.size).toBe(5);
    heap.remove(items[3]); // the minimum (1)
    expect(heap.peek()?.heapKey).toBe(2);
    expect(drain(heap)).toEqual([2, 5, 8, 9]);
  });

  it('a removed item can be pushed again', () => {
    const heap = new HostHeap<Item>();
    const a = item(1);
    const b = item(2);
    heap.push(a, 1);
    heap.push(b, 2);
    heap.remove(a);
    heap.push(a, 3);
    expect(drain(heap)).toEqual([2, 3]);
  });

  it('keeps the heap property under random push/update/remove/pop (vs. a naive sort)', () => {
    const rand = mulberry32(0xc0ffee);
    const heap = new HostHeap<Item>();
    const members = new Set<Item>();
    const pool = Array.from({ length: 200 }, (_, i) => item(i));
    const keyOf = () => Math.floor(rand() * 1000); // many duplicate keys
    for (let step = 0; step < 20_000; step++) {
      const op = rand();
      const it = pool[Math.floor(rand() * pool.length)];
      if (op < 0.4) {
        if (!members.has(it)) {
          heap.push(it, keyOf());
          members.add(it);
        }
      } else if (op < 0.7) {
        if (members.has(it)) heap.update(it, keyOf());
      } else if (op < 0.85) {
        heap.remove(it);
        members.delete(it);
      } else {
        const naiveMin = Math.min(...[...members].map((m) => m.heapKey));
        const top = heap.pop();
        if (members.size === 0) {
          expect(top).toBeUndefined();
        } else {
          expect(top?.heapKey).toBe(naiveMin);
          members.delete(top as Item);
        }
      }
      if (heap.size !== members.size) expect(heap.size).toBe(members.size);
      if (members.size > 0) {
        const naiveMin = Math.min(...[...members].map((m) => m.heapKey));
        if (heap.peek()?.heapKey !== naiveMin) expect(heap.peek()?.heapKey).toBe(naiveMin);
      }
      // Positions: members hold distinct indexes in [0, size); non-members hold -1.
      const seen = new Set<number>();
      for (const p of pool) {
        const ok = members.has(p)
          ? p.heapIndex >= 0 && p.heapIndex < heap.size && !seen.has(p.heapIndex)
          : p.heapIndex === -1;
        if (!ok)
          expect({ step, id: p.id, heapIndex: p.heapIndex, member: members.has(p) }).toBe('consistent');
        seen.add(p.heapIndex);
      }
    }
    const expected = [...members].map((m) => m.heapKey).sort((x, y) => x - y);
    expect(drain(heap)).toEqual(expected);
  });
});
