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
    a.newRound(1);
    expect(a.admit(hub, every)).toBe(true);
    expect(a.admit(hub, every)).toBe(false);
    expect(a.roundOf(hub)).toBe(1);
    a.acknowledged(hub);
    expect(a.roundOf(hub)).toBe(0);
    expect(a.admit('http://h/a', undefined)).toBe(false);
    // A hub is in the seen-set: a plain link to it is not fetched on top.
    expect(a.admit(hub, undefined)).toBe(false);
    a.newRound(2);
    expect(a.admitForRound('http://h/seed')).toBe(true);
    expect(a.admitForRound('http://h/seed')).toBe(false);
    expect(a.admit(hub, every)).toBe(true);
  });

  it('a round request still pending from an earlier round (a backed-off host) is not queued again', () => {
    const a = new Admission(new FingerprintSet(16));
    const slow = 'http://slow/';
    const fast = 'http://fast/';
    a.newRound(1);
    expect(a.admitForRound(slow)).toBe(true);
    expect(a.admitForRound(fast)).toBe(true);
    a.acknowledged(fast); // fetched; the slow host's seed is still waiting
    a.newRound(2);
    expect(a.admitForRound(fast)).toBe(true);
    expect(a.admitForRound(slow)).toBe(false);
    expect(a.roundOf(slow)).toBe(1); // its item says the round that queued it
    expect(a.roundOf(fast)).toBe(2);
    a.acknowledged(slow);
    a.newRound(3);
    expect(a.admitForRound(slow)).toBe(true);
    // restored pending at a restart: not queued again by the next round
    const b = new Admission(new FingerprintSet(16));
    b.restoredPending(slow, 7);
    b.newRound(8);
    expect(b.admitForRound(slow)).toBe(false);
    expect(b.roundOf(slow)).toBe(7);
    // a seed of the first pass still waiting when round 1 starts
    const c = new Admission(new FingerprintSet(16));
    expect(c.admitSeed(slow, undefined)).toBe(true);
    expect(c.admitSeed(slow, undefined)).toBe(false);
    c.newRound(1);
    expect(c.admitForRound(slow)).toBe(false);
    expect(c.roundOf(slow)).toBe(0);
    // a hub handed to its owner (another process) is the owner's to track: handed again next round
    const d = new Admission(new FingerprintSet(16));
    d.newRound(1);
    expect(d.admitForOwner('http://other/feed', { everyRound: true })).toBe(true);
    d.newRound(2);
    expect(d.admitForOwner('http://other/feed', { everyRound: true })).toBe(true);
  });

  it('a seen page with a lastmod: again once per round when it changed since its fetch here; handed to its owner once per round', () => {
    const seen = new FingerprintSet(16);
    const fetched = new Map([['http://h/p', 1_000]]);
    const revisits = {
      changedSince: (url: string, lastmod: number) => {
        const at = fetched.get(url);
        return at === undefined ? undefined : lastmod > at;
      },
    };
    const a = new Admission(seen, revisits);
    expect(a.admit('http://h/p', undefined)).toBe(true);
    expect(a.admit('http://h/q', undefined)).toBe(true);
    a.acknowledged('http://h/p'); // fetched (q is still queued)
    // not changed since the fetch, or no lastmod: not again
    expect(a.admit('http://h/p', { lastmod: 1_000 })).toBe(false);
    expect(a.admit('http://h/p', undefined)).toBe(false);
    // changed: once this round
    expect(a.admit('http://h/p', { lastmod: 2_000 })).toBe(true);
    expect(a.admit('http://h/p', { lastmod: 2_000 })).toBe(false);
    // queued but never fetched here: not twice
    expect(a.admit('http://h/q', { lastmod: 2_000 })).toBe(false);
    a.acknowledged('http://h/p'); // fetched again (still pending, a next round would not queue it twice)
    a.newRound();
    expect(a.admit('http://h/p', { lastmod: 2_000 })).toBe(true);
    // a non-owner cannot know: it hands a seen page with a lastmod once per round, the owner decides
    expect(a.admitForOwner('http://h/r', undefined)).toBe(true);
    expect(a.admitForOwner('http://h/r', { lastmod: 5 })).toBe(true);
    expect(a.admitForOwner('http://h/r', { lastmod: 5 })).toBe(false);
    expect(a.admitForOwner('http://h/r', undefined)).toBe(false);
    // without revisits (a one-shot crawl) a lastmod changes nothing
    const plain = new Admission(new FingerprintSet(16));
    expect(plain.admit('http://h/p', undefined)).toBe(true);
    expect(plain.admit('http://h/p', { lastmod: 9e12 })).toBe(false);
    expect(plain.admitForOwner('http://h/p', { lastmod: 9e12 })).toBe(false);
  });

  it('with rounds, an item belongs to the round of the page its URL was found on, not the one in progress', () => {
    const a = new Admission(new FingerprintSet(16), null, true);
    expect(a.admitSeed('http://h/', undefined)).toBe(true);
    expect(a.admit('http://h/archive', undefined, a.roundOf('http://h/'))).toBe(true);
    a.acknowledged('http://h/');
    // Round 1 starts on time while round 0's pages are still queued.
    a.newRound(1);
    expect(a.roundOf('http://h/archive')).toBe(0);
    expect(a.admit('http://h/post-1', undefined, a.roundOf('http://h/archive'))).toBe(true);
    expect(a.admit('http://h/new-post', undefined)).toBe(true); // found by round 1's own pages
    expect(a.roundOf('http://h/post-1')).toBe(0);
    expect(a.roundOf('http://h/new-post')).toBe(1);
    a.acknowledged('http://h/post-1');
    // Not known here (its item written, or handed by a sibling): the round in progress.
    expect(a.roundOf('http://h/post-1')).toBe(1);
    expect(a.roundOf('http://h/handed')).toBe(1);
  });

  it('without rounds, nothing is kept per URL and every item is of round 0', () => {
    const a = new Admission(new FingerprintSet(16));
    expect(a.admit('http://h/a', undefined, 3)).toBe(true);
    expect(a.roundOf('http://h/a')).toBe(0);
  });

  it('with rounds, a page still queued from an earlier round is not queued again by a later one', () => {
    const a = new Admission(new FingerprintSet(16), null, true);
    const hub = 'http://h/feed.xml';
    const every = { everyRound: true as const };
    // found by the first pass, still queued when round 1 starts and finds it again
    expect(a.admit(hub, every, 0)).toBe(true);
    a.newRound(1);
    expect(a.admit(hub, every)).toBe(false);
    expect(a.roundOf(hub)).toBe(0);
    a.acknowledged(hub);
    a.newRound(2);
    expect(a.admit(hub, every)).toBe(true);
    expect(a.roundOf(hub)).toBe(2);
  });
});
