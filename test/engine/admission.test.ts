import { describe, expect, it } from 'vitest';
import { FingerprintSet } from '../../src/dedup/fingerprint-set.js';
import { Admission } from '../../src/engine/admission.js';

describe('Admission: which requests are queued', () => {
  it('plain requests once per crawl; every-round ones once per later round, and once in the first pass', () => {
    const seen = new FingerprintSet(16);
    const a = new Admission(seen);
    const hub = 'http://h/feed';
    const every = { everyRound: true as const };
    expect(a.admit('http://h/a', undefined)).toBe(true);
    expect(a.admit('http://h/a', undefined)).toBe(false);
    // The first pass (a new crawl, or a resume): the seen-set decides, also for hubs.
    expect(a.admit(hub, every)).toBe(true);
    expect(a.admit(hub, every)).toBe(false);
    a.newRound();
    expect(a.admit(hub, every)).toBe(true);
    expect(a.admit(hub, every)).toBe(false);
    expect(a.admit('http://h/a', undefined)).toBe(false);
    // A hub is in the seen-set: a plain link to it is not fetched on top.
    expect(a.admit(hub, undefined)).toBe(false);
    a.newRound();
    expect(a.admitForRound('http://h/seed')).toBe(true);
    expect(a.admitForRound('http://h/seed')).toBe(false);
    expect(a.admit(hub, every)).toBe(true);
  });
});
