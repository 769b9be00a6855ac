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

  it("a rate budget's waits: each once, however many requests it holds back; lengthened, only the extra; refusals by kind", () => {
    let now = 1_000_000;
    const c = new CounterSet(() => now);
    const wait = (reason: 'primary' | 'secondary', until: number, scope = 'token-x/core') =>
      c.budget({ kind: 'wait', scope, reason, until });
    wait('primary', now + 10_000);
    wait('primary', now + 10_000); // another request held by the same wait
    now += 2000;
    wait('primary', now + 8000);
    wait('secondary', now + 1000); // a Retry-After pause meanwhile
    wait('secondary', now + 3000); // lengthened: 2 s more, not a new wait
    wait('primary', now + 1000, 'anonymous/search'); // another budget
    now += 20_000;
    wait('primary', now - 1); // already over: nothing
    wait('primary', now + 5000); // the next window used up: a new wait
    for (const r of ['retry-after', 'retry-after', 'primary', 'secondary'] as const)
      c.budget({ kind: 'refusal', refusal: r });
    c.rateLimitWait(500); // a host's pause
    const s = c.snapshot();
    expect(s.rateLimitWaitsByKind).toEqual({ primary: 3, secondary: 1, host: 1 });
    expect(s.rateLimitWaits).toBe(5);
    expect(s.rateLimitWaitMs).toBe(10_000 + 3000 + 1000 + 5000 + 500);
    expect(s.rateLimitRefusals).toEqual({ 'retry-after': 2, primary: 1, secondary: 1 });
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
