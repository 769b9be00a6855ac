import { describe, expect, it } from 'vitest';
import { StatusHistory } from '../../src/ops/status-history.js';
import { CarriedCounters, CounterSet, LATENCY_BUCKETS_MS } from '../../src/supervision/worker-counters.js';

describe('worker counters', () => {
  it('count items, errors by kind (a store error as "store"), bytes, latency buckets and rate-limit waits', () => {
    const c = new CounterSet();
    c.item({ bytes: 100 });
    c.item({ bytes: 0, error: { kind: 'timeout' } });
    c.item({ bytes: 5, data: { storeError: 'ENOSPC' } });
    c.fetch(5);
    c.fetch(10); // on a bound: in that bucket
    c.fetch(11);
    c.fetch(60_000); // past the last bound: +Inf
    c.rateLimitWait(1500);
    const s = c.snapshot();
    expect(s).toMatchObject({ items: 3, bytes: 105, errorsByKind: { timeout: 1, store: 1 }, fetches: 4 });
    expect(s.fetchBuckets).toHaveLength(LATENCY_BUCKETS_MS.length + 1);
    expect(s.fetchBuckets[0]).toBe(2);
    expect(s.fetchBuckets[1]).toBe(1);
    expect(s.fetchBuckets.at(-1)).toBe(1);
    expect(s.fetchMsSum).toBe(60_026);
    expect([s.rateLimitWaits, s.rateLimitWaitMs]).toEqual([1, 1500]);
    c.item({ bytes: 1 });
    expect(s.items).toBe(3); // a snapshot is a copy
  });

  it('carried over restarts: a new pid adds to what the earlier processes reported, never goes back', () => {
    const carry = new CarriedCounters();
    const at = (items: number) => {
      const c = new CounterSet();
      for (let i = 0; i < items; i++) c.item({ bytes: 1, error: i === 0 ? { kind: 'network' } : undefined });
      return c.snapshot();
    };
    carry.report('w', 10, at(5));
    carry.report('w', 10, at(7));
    expect(carry.total('w').items).toBe(7);
    carry.report('w', 11, at(2)); // restarted
    expect(carry.total('w')).toMatchObject({ items: 9, bytes: 9, errorsByKind: { network: 2 } });
    carry.report('w', 12, at(0));
    expect(carry.total('w').items).toBe(9);
    expect(carry.total('other').items).toBe(0);
  });
});

describe('status history ring', () => {
  it('keeps the newest `capacity` samples in time order', () => {
    const h = new StatusHistory(3);
    for (let t = 1; t <= 5; t++) h.add([t, t * 10, 0, null]);
    expect(h.samples().map((s) => s[0])).toEqual([3, 4, 5]);
    expect(h.length).toBe(3);
    expect(() => new StatusHistory(1)).toThrow(RangeError);
  });
});
