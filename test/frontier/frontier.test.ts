import { describe, expect, it } from 'vitest';
import {
  Frontier,
  type FrontierEntry,
  type PolitenessOptions,
  StringFifo,
} from '../../src/frontier/frontier.js';
import { mulberry32 } from '../fixtures/prng.js';

/** A frontier on a fake clock (`clock.t`, ms) with a fixed random value. */
function make(opts: Partial<PolitenessOptions> = {}, randomValue = 0) {
  const clock = { t: 1000 };
  const frontier = new Frontier({
    delayMs: 500,
    jitter: 0.5,
    hostConcurrency: 2,
    now: () => clock.t,
    random: () => randomValue,
    ...opts,
  });
  return { clock, frontier };
}

function take(f: Frontier): FrontierEntry {
  const e = f.next();
  expect(e).not.toBeNull();
  return e as FrontierEntry;
}

describe('Frontier: entries and counts', () => {
  it('hands out what was pushed with host, depth and attempt 0', () => {
    const { frontier } = make();
    frontier.push('http://a.example/x', 3);
    expect(frontier.next()).toEqual({ url: 'http://a.example/x', host: 'a.example', depth: 3, attempt: 0 });
  });

  it('keys hosts by host[:port]', () => {
    const { frontier } = make({ hostConcurrency: 1 });
    frontier.push('http://a.example:8080/1', 0);
    frontier.push('http://a.example/2', 0);
    expect(frontier.hostCount).toBe(2);
    expect(take(frontier).host).toBe('a.example:8080');
    expect(take(frontier).host).toBe('a.example'); // a different slot: not held back by the delay
  });

  it('counts queued and in-flight URLs', () => {
    const { frontier, clock } = make({ delayMs: 0 });
    expect(frontier.queued).toBe(0);
    expect(frontier.inFlight).toBe(0);
    frontier.push('http://a.example/1', 0);
    frontier.push('http://a.example/2', 0);
    frontier.push('http://b.example/1', 0);
    expect(frontier.queued).toBe(3);
    const e1 = take(frontier);
    const e2 = take(frontier);
    expect(frontier.queued).toBe(1);
    expect(frontier.inFlight).toBe(2);
    frontier.done(e1);
    expect(frontier.inFlight).toBe(1);
    frontier.retry(e2, 100);
    expect(frontier.queued).toBe(2);
    expect(frontier.inFlight).toBe(0);
    clock.t += 100;
    const a = take(frontier);
    const b = take(frontier);
    frontier.done(a);
    frontier.done(b);
    expect(frontier.queued).toBe(0);
    expect(frontier.inFlight).toBe(0);
    expect(frontier.next()).toBeNull();
  });

  it('serves breadth-first by depth within a host (FIFO within a depth)', () => {
    const { frontier } = make({ delayMs: 0, hostConcurrency: 100 });
    frontier.push('http://a.example/d2', 2);
    frontier.push('http://a.example/d1', 1);
    frontier.push('http://a.example/d2b', 2);
    frontier.push('http://a.example/d0', 0);
    frontier.push('http://a.example/d1b', 1);
    const order = [1, 2, 3, 4, 5].map(() => take(frontier));
    expect(order.map((e) => e.url)).toEqual([
      'http://a.example/d0',
      'http://a.example/d1',
      'http://a.example/d1b',
      'http://a.example/d2',
      'http://a.example/d2b',
    ]);
    expect(order.map((e) => e.depth)).toEqual([0, 1, 1, 2, 2]);
  });

  it('serves a shallower URL pushed after deeper ones were partly served', () => {
    const { frontier } = make({ delayMs: 0, hostConcurrency: 100 });
    frontier.push('http://a.example/d3', 3);
    frontier.push('http://a.example/d3b', 3);
    expect(take(frontier).url).toBe('http://a.example/d3');
    frontier.push('http://a.example/d1', 1);
    expect(take(frontier).url).toBe('http://a.example/d1');
    expect(take(frontier).url).toBe('http://a.example/d3b');
  });

  it('drains a long FIFO in order (queue compaction keeps order)', () => {
    const { frontier } = make({ delayMs: 0, hostConcurrency: 1_000_000 });
    const n = 5000;
    for (let i = 0; i < n; i++) frontier.push(`http://a.example/${i}`, 0);
    for (let i = 0; i < n; i++) {
      const e = take(frontier);
      if (e.url !== `http://a.example/${i}`) expect(e.url).toBe(`http://a.example/${i}`);
      if (i === 2000) frontier.push('http://a.example/late', 0);
    }
    expect(take(frontier).url).toBe('http://a.example/late');
    expect(frontier.next()).toBeNull();
  });
});

describe('Frontier: politeness clock', () => {
  it('keeps two URLs of one host at least delay apart while other hosts are served', () => {
    const { frontier, clock } = make({ delayMs: 500, jitter: 0 });
    frontier.push('http://a.example/1', 0);
    frontier.push('http://a.example/2', 0);
    frontier.push('http://b.example/1', 0);
    frontier.push('http://c.example/1', 0);
    const t0 = clock.t;
    const first = take(frontier);
    expect(first.host).toBe('a.example');
    // a is waiting; b and c are released at once
    const others = [take(frontier), take(frontier)].map((e) => e.host).sort();
    expect(others).toEqual(['b.example', 'c.example']);
    expect(frontier.next()).toBeNull();
    clock.t = t0 + 499;
    expect(frontier.next()).toBeNull();
    clock.t = t0 + 500;
    expect(take(frontier).url).toBe('http://a.example/2');
  });

  it('never releases a host twice within delay (randomised simulation)', () => {
    const rand = mulberry32(42);
    const delay = 300;
    const jitter = 0.5;
    const clock = { t: 0 };
    const frontier = new Frontier({
      delayMs: delay,
      jitter,
      hostConcurrency: 2,
      now: () => clock.t,
      random: rand,
    });
    const hosts = ['a', 'b', 'c', 'd', 'e'];
    let pushed = 0;
    for (const h of hosts)
      for (let i = 0; i < 20; i++, pushed++) frontier.push(`http://${h}.example/${i}`, i % 3);
    const last = new Map<string, number>();
    const lastDone = new Map<string, number>();
    const inFlight: FrontierEntry[] = [];
    const released: number[] = [];
    while (frontier.queued > 0 || inFlight.length > 0) {
      for (let e = frontier.next(); e !== null; e = frontier.next()) {
        const prev = last.get(e.host);
        if (prev !== undefined && clock.t - prev < delay) {
          expect(clock.t - prev).toBeGreaterThanOrEqual(delay);
        }
        const prevDone = lastDone.get(e.host);
        if (prevDone !== undefined && clock.t - prevDone < delay) {
          expect(clock.t - prevDone).toBeGreaterThanOrEqual(delay);
        }
        last.set(e.host, clock.t);
        inFlight.push(e);
        released.push(clock.t);
      }
      // finish some requests, then let time pass
      while (inFlight.length > 0 && rand() < 0.6) {
        const e = inFlight.shift() as FrontierEntry;
        frontier.done(e);
        lastDone.set(e.host, clock.t);
      }
      clock.t += Math.floor(rand() * 120);
    }
    expect(released.length).toBe(pushed);
    expect(frontier.queued).toBe(0);
    expect(frontier.inFlight).toBe(0);
  });

  it('jitter adds at most jitter × delay (random → 0.999)', () => {
    const { frontier, clock } = make({ delayMs: 1000, jitter: 0.5 }, 0.999);
    frontier.push('http://a.example/1', 0);
    frontier.push('http://a.example/2', 0);
    const t0 = clock.t;
    take(frontier);
    // next allowed at t0 + 1000 + 0.999 × 0.5 × 1000 = t0 + 1499.5 < t0 + 1500
    expect(frontier.nextReadyIn()).toBeCloseTo(1499.5, 6);
    expect(frontier.nextReadyIn()).toBeLessThan(1000 * (1 + 0.5));
    clock.t = t0 + 1499;
    expect(frontier.next()).toBeNull();
    clock.t = t0 + 1499.5;
    expect(take(frontier).url).toBe('http://a.example/2');
  });

  it('random → 0 gives exactly the delay', () => {
    const { frontier, clock } = make({ delayMs: 1000, jitter: 0.5 }, 0);
    frontier.push('http://a.example/1', 0);
    frontier.push('http://a.example/2', 0);
    take(frontier);
    expect(frontier.nextReadyIn()).toBe(1000);
    clock.t += 1000;
    expect(frontier.next()).not.toBeNull();
  });

  it('limits requests in flight per host to hostConcurrency', () => {
    const { frontier, clock } = make({ delayMs: 0, hostConcurrency: 2 });
    for (let i = 0; i < 5; i++) frontier.push(`http://a.example/${i}`, 0);
    const a0 = take(frontier);
    const a1 = take(frontier);
    expect([a0.url, a1.url]).toEqual(['http://a.example/0', 'http://a.example/1']);
    expect(frontier.next()).toBeNull();
    frontier.push('http://b.example/0', 0);
    expect(take(frontier).host).toBe('b.example'); // other hosts are not held back
    clock.t += 10_000;
    expect(frontier.next()).toBeNull(); // a is at its limit, however long we wait
    expect(frontier.nextReadyIn()).toBe(Number.POSITIVE_INFINITY);
    frontier.done(a0);
    expect(take(frontier).url).toBe('http://a.example/2');
    expect(frontier.next()).toBeNull();
  });

  it('nextReadyIn: Infinity when empty, 0 when ready, the remaining wait otherwise', () => {
    const { frontier, clock } = make({ delayMs: 500, jitter: 0 });
    expect(frontier.nextReadyIn()).toBe(Number.POSITIVE_INFINITY);
    frontier.push('http://a.example/1', 0);
    frontier.push('http://a.example/2', 0);
    expect(frontier.nextReadyIn()).toBe(0);
    take(frontier);
    expect(frontier.nextReadyIn()).toBe(500);
    clock.t += 200;
    expect(frontier.nextReadyIn()).toBe(300);
    clock.t += 1000;
    expect(frontier.nextReadyIn()).toBe(0); // never negative
    take(frontier);
    expect(frontier.nextReadyIn()).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('Frontier: retry, pause, slow-down, crawl-delay', () => {
  it('retry() puts the entry back first, with attempt+1, and pauses the host by the delay', () => {
    const { frontier, clock } = make({ delayMs: 100, jitter: 0, hostConcurrency: 1 });
    frontier.push('http://a.example/1', 0);
    frontier.push('http://a.example/2', 0);
    frontier.push('http://b.example/1', 0);
    const t0 = clock.t;
    const e = take(frontier);
    expect(e.url).toBe('http://a.example/1');
    frontier.retry(e, 5000);
    expect(frontier.inFlight).toBe(0);
    expect(frontier.queued).toBe(3);
    // b is unaffected; a waits for the retry delay, not just the politeness delay
    expect(take(frontier).host).toBe('b.example');
    clock.t = t0 + 4999;
    expect(frontier.next()).toBeNull();
    expect(frontier.nextReadyIn()).toBe(1);
    clock.t = t0 + 5000;
    const again = take(frontier);
    expect(again).toMatchObject({ url: 'http://a.example/1', depth: 0, attempt: 1 });
    frontier.retry(again, 0);
    clock.t += 100;
    expect(take(frontier)).toMatchObject({ url: 'http://a.example/1', attempt: 2 });
  });

  it('retried entries are served before shallower new ones', () => {
    const { frontier, clock } = make({ delayMs: 0, hostConcurrency: 1 });
    frontier.push('http://a.example/deep', 5);
    const e = take(frontier);
    frontier.push('http://a.example/seed', 0);
    frontier.retry(e, 10);
    clock.t += 10;
    expect(take(frontier).url).toBe('http://a.example/deep');
  });

  it('pauseHost holds one host back and never shortens an existing pause', () => {
    const { frontier, clock } = make({ delayMs: 0 });
    frontier.push('http://a.example/1', 0);
    frontier.push('http://b.example/1', 0);
    const t0 = clock.t;
    frontier.pauseHost('a.example', 2000);
    frontier.pauseHost('a.example', 500); // shorter: ignored
    expect(take(frontier).host).toBe('b.example');
    expect(frontier.next()).toBeNull();
    expect(frontier.nextReadyIn()).toBe(2000);
    clock.t = t0 + 1999;
    expect(frontier.next()).toBeNull();
    clock.t = t0 + 2000;
    expect(take(frontier).host).toBe('a.example');
  });

  it('pauseHost before any URL of the host is pushed still applies', () => {
    const { frontier, clock } = make({ delayMs: 0 });
    frontier.pauseHost('a.example', 1000);
    frontier.push('http://a.example/1', 0);
    expect(frontier.next()).toBeNull();
    clock.t += 1000;
    expect(take(frontier).host).toBe('a.example');
  });

  it('slowDown grows the gap by one step per 429/503 (capped) and done(success) decays it', () => {
    const { frontier, clock } = make({ delayMs: 500, jitter: 0, maxPenaltyMs: 3000 });
    frontier.push('http://a.example/1', 0);
    const e = take(frontier);
    expect(frontier.gapFor('a.example')).toBe(500);
    frontier.slowDown('a.example');
    expect(frontier.gapFor('a.example')).toBe(500 + 500);
    frontier.slowDown('a.example');
    expect(frontier.gapFor('a.example')).toBe(500 + 1000);
    frontier.slowDown('a.example');
    expect(frontier.gapFor('a.example')).toBe(500 + 1500); // additive, not doubling (2000)
    for (let i = 0; i < 5; i++) frontier.slowDown('a.example');
    expect(frontier.gapFor('a.example')).toBe(500 + 3000); // capped at maxPenaltyMs
    frontier.done(e, false); // a failure does not decay
    expect(frontier.gapFor('a.example')).toBe(3500);
    frontier.push('http://a.example/2', 0);
    clock.t += 3500;
    const e2 = take(frontier);
    frontier.done(e2, true);
    expect(frontier.gapFor('a.example')).toBe(500 + 3000 * 0.8);
  });

  it("slowDown never takes the penalty above the server's Retry-After (the ceiling)", () => {
    const { frontier } = make({ delayMs: 500, jitter: 0, maxPenaltyMs: 600_000 });
    for (let i = 0; i < 50; i++) frontier.slowDown('a.example', 5000, '503 Retry-After 5s');
    expect(frontier.gapFor('a.example')).toBe(500 + 5000);
    expect(frontier.politeness()).toEqual([
      {
        host: 'a.example',
        gapMs: 5500,
        penaltyMs: 5000,
        pausedForMs: 0,
        crawlDelayMs: 0,
        reason: '503 Retry-After 5s',
      },
    ]);
    frontier.slowDown('b.example', 0); // Retry-After: 0 asks for no slow-down
    expect(frontier.gapFor('b.example')).toBe(500);
  });

  it('at a steady 50% of 503s the gap settles far below the cap; at 100% it reaches the cap', () => {
    // The answers of one host, alternating 503 and 200 (and in a random order at 50%): the
    // multiplicative slow-down (× 2 per 503, × 0.8 per 200) walked to the 10-minute cap here.
    const run = (errorRate: number, answers: number) => {
      const { frontier, clock } = make({ delayMs: 500, jitter: 0, maxPenaltyMs: 600_000 });
      const rand = mulberry32(3);
      const gaps: number[] = [];
      for (let i = 0; i < answers; i++) {
        frontier.push(`http://a.example/${i}`, 0);
        clock.t += 1_000_000;
        const e = take(frontier);
        const error = errorRate === 0.5 && i < answers / 2 ? i % 2 === 0 : rand() < errorRate;
        if (error) frontier.slowDown('a.example');
        frontier.done(e, !error);
        gaps.push(frontier.gapFor('a.example'));
      }
      return gaps;
    };
    const half = run(0.5, 2000);
    const settled = half.slice(-1000);
    // p / (1 - p) × step / (1 - 0.8) = 5 steps of 500 ms, plus the delay: about 3 s
    expect(Math.max(...settled)).toBeLessThan(15_000);
    expect(Math.max(...half.slice(500, 1000))).toBeLessThan(4_000);
    expect(Math.min(...settled)).toBeGreaterThan(500);
    expect(run(1, 1300).at(-1)).toBe(600_500);
    expect(run(0, 100).at(-1)).toBe(500);
  });

  it('politeness() lists the hosts slowed, paused or with a Crawl-delay, longest first; restore() takes them back', () => {
    const { frontier, clock } = make({ delayMs: 500, jitter: 0 });
    frontier.push('http://plain.example/1', 0);
    frontier.slowDown('slow.example', undefined, '429');
    frontier.pauseHost('paused.example', 8000, 'rate-limit');
    frontier.setCrawlDelay('cd.example', 2000);
    expect(frontier.politeness().map((p) => [p.host, p.gapMs, p.pausedForMs, p.reason])).toEqual([
      ['paused.example', 500, 8000, 'rate-limit'],
      ['cd.example', 2000, 0, 'crawl-delay'],
      ['slow.example', 1000, 0, '429'],
    ]);
    expect(frontier.politeness(1).map((p) => p.host)).toEqual(['paused.example']);
    const saved = frontier.politeness();
    const { frontier: again } = make({ delayMs: 500, jitter: 0 });
    for (const p of saved) again.restore(p);
    again.push('http://paused.example/x', 0);
    expect(again.next()).toBeNull(); // still paused after the "restart"
    expect(again.nextReadyIn()).toBe(8000);
    expect(again.gapFor('slow.example')).toBe(1000);
    clock.t += 8000;
    expect(frontier.politeness().map((p) => p.host)).toEqual(['cd.example', 'slow.example']);
  });

  it("each host's reason (status): kept when a later slow-down or pause gives none; retry() and restore() record theirs", () => {
    const { frontier, clock } = make({ delayMs: 500, jitter: 0 });
    const reasons = () => Object.fromEntries(frontier.politeness().map((p) => [p.host, p.reason]));
    frontier.slowDown('a.example', undefined, '429');
    frontier.pauseHost('a.example', 1000); // no reason of its own: still the 429's
    frontier.pauseHost('b.example', 1000, 'rate-limit');
    frontier.slowDown('b.example'); // still the rate limit's
    frontier.slowDown('n.example'); // slowed with no reason and no Crawl-delay: none
    frontier.setCrawlDelay('eq.example', 500); // a Crawl-delay no longer than --delay: not listed
    frontier.push('http://c.example/1', 0);
    const e = take(frontier);
    frontier.retry(e, 2000, false, true, 'timeout');
    expect(reasons()).toEqual({
      'a.example': '429',
      'b.example': 'rate-limit',
      'n.example': '',
      'c.example': 'timeout',
    });
    clock.t += 2000;
    frontier.retry(take(frontier), 1000); // a retry with no reason keeps the host's
    frontier.restore({ host: 'a.example', penaltyMs: 0, pausedForMs: 0, reason: '' }); // nothing saved
    frontier.restore({ host: 'r.example', penaltyMs: 0, pausedForMs: 5000, reason: '503 Retry-After 5s' });
    expect(reasons()).toMatchObject({
      'a.example': '429',
      'c.example': 'timeout',
      'r.example': '503 Retry-After 5s',
    });
  });

  it('the penalty decays to zero after enough successes', () => {
    const { frontier, clock } = make({ delayMs: 100, jitter: 0 });
    frontier.slowDown('a.example'); // penalty = max(100, 250) = 250
    expect(frontier.gapFor('a.example')).toBe(350);
    for (let i = 0; i < 20; i++) {
      frontier.push(`http://a.example/${i}`, 0);
      clock.t += 10_000;
      frontier.done(take(frontier), true);
    }
    expect(frontier.gapFor('a.example')).toBe(100);
  });

  it('a slowed-down host is released with the larger gap', () => {
    const { frontier, clock } = make({ delayMs: 500, jitter: 0 });
    frontier.push('http://a.example/1', 0);
    frontier.push('http://a.example/2', 0);
    frontier.push('http://a.example/3', 0);
    frontier.slowDown('a.example'); // gap 1000
    const e1 = take(frontier);
    expect(frontier.nextReadyIn()).toBe(1000);
    frontier.done(e1, false);
    clock.t += 1000;
    take(frontier);
    expect(frontier.nextReadyIn()).toBe(1000);
  });

  it('setCrawlDelay raises the gap above --delay but never lowers it', () => {
    const { frontier, clock } = make({ delayMs: 500, jitter: 0 });
    frontier.setCrawlDelay('a.example', 2000);
    frontier.setCrawlDelay('b.example', 100);
    expect(frontier.gapFor('a.example')).toBe(2000);
    expect(frontier.gapFor('b.example')).toBe(500);
    expect(frontier.gapFor('unknown.example')).toBe(500);
    frontier.push('http://a.example/1', 0);
    frontier.push('http://a.example/2', 0);
    const t0 = clock.t;
    take(frontier);
    clock.t = t0 + 1999;
    expect(frontier.next()).toBeNull();
    clock.t = t0 + 2000;
    expect(take(frontier).url).toBe('http://a.example/2');
  });

  it('jitter scales with the host gap (crawl-delay), not only --delay', () => {
    const { frontier } = make({ delayMs: 500, jitter: 0.5 }, 0.5);
    frontier.setCrawlDelay('a.example', 2000);
    frontier.push('http://a.example/1', 0);
    frontier.push('http://a.example/2', 0);
    take(frontier);
    expect(frontier.nextReadyIn()).toBe(2000 + 0.5 * 0.5 * 2000);
  });

  it('with delay 0 there is no gap and no jitter', () => {
    const { frontier } = make({ delayMs: 0, jitter: 0.5, hostConcurrency: 3 }, 0.9);
    for (let i = 0; i < 3; i++) frontier.push(`http://a.example/${i}`, 0);
    expect([take(frontier), take(frontier), take(frontier)].map((e) => e.url)).toEqual([
      'http://a.example/0',
      'http://a.example/1',
      'http://a.example/2',
    ]);
  });

  it('the gap also runs from the completion of the previous request', () => {
    const { frontier, clock } = make({ delayMs: 500, jitter: 0 });
    frontier.push('http://a.example/1', 0);
    frontier.push('http://a.example/2', 0);
    const t0 = clock.t;
    const e = take(frontier);
    clock.t = t0 + 300; // a slow response: completes 300 ms after its start
    frontier.done(e);
    expect(frontier.nextReadyIn()).toBe(500);
    clock.t = t0 + 799;
    expect(frontier.next()).toBeNull();
    clock.t = t0 + 800;
    expect(take(frontier).url).toBe('http://a.example/2');
  });

  it('a quick completion does not shorten the gap from the start', () => {
    const { frontier, clock } = make({ delayMs: 500, jitter: 0.5 }, 0.5);
    frontier.push('http://a.example/1', 0);
    frontier.push('http://a.example/2', 0);
    const t0 = clock.t;
    const e = take(frontier); // next start at t0 + 500 + 125
    clock.t = t0 + 10;
    frontier.done(e); // t0 + 510 < t0 + 625: start-based gap wins
    expect(frontier.nextReadyIn()).toBe(615);
  });

  it('keeps the politeness clock of a host that went idle', () => {
    const { frontier, clock } = make({ delayMs: 500, jitter: 0 });
    frontier.push('http://a.example/1', 0);
    const t0 = clock.t;
    const e = take(frontier);
    clock.t = t0 + 100;
    frontier.done(e); // idle now, but its next request may only start at t0 + 600
    frontier.push('http://a.example/2', 0);
    expect(frontier.next()).toBeNull();
    clock.t = t0 + 599;
    expect(frontier.next()).toBeNull();
    clock.t = t0 + 600;
    expect(take(frontier).url).toBe('http://a.example/2');
  });

  it('forgets an idle host at once when it has no clock running (delay 0)', () => {
    const { frontier } = make({ delayMs: 0 });
    frontier.push('http://a.example/1', 0);
    expect(frontier.hostCount).toBe(1);
    frontier.done(take(frontier));
    expect(frontier.hostCount).toBe(0);
  });

  it('remembers hosts with a Crawl-delay or a penalty even when idle', () => {
    const { frontier, clock } = make({ delayMs: 0 });
    frontier.setCrawlDelay('a.example', 1000);
    frontier.slowDown('b.example');
    frontier.push('http://a.example/1', 0);
    frontier.push('http://b.example/1', 0);
    const a = take(frontier);
    const b = take(frontier);
    clock.t += 1_000_000;
    frontier.done(a);
    frontier.done(b, false);
    expect(frontier.hostCount).toBe(2);
    expect(frontier.gapFor('a.example')).toBe(1000);
    expect(frontier.gapFor('b.example')).toBe(250);
  });

  it('host memory does not grow with hosts seen: idle hosts are swept once their clock runs out', () => {
    const { frontier, clock } = make({ delayMs: 500, jitter: 0, hostConcurrency: 1 });
    const n = 5000;
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < n; i++) frontier.push(`http://h${round}-${i}.example/`, 0);
      const taken: FrontierEntry[] = [];
      for (let e = frontier.next(); e !== null; e = frontier.next()) taken.push(e);
      expect(taken.length).toBe(n);
      clock.t += 50; // fast responses: every host finishes within its delay
      for (const e of taken) frontier.done(e);
      clock.t += 1000; // all those clocks run out before the next round
    }
    expect(frontier.queued).toBe(0);
    expect(frontier.inFlight).toBe(0);
    // 20,000 hosts seen; only a bounded number of recently idle ones are still held
    expect(frontier.hostCount).toBeLessThan(2 * n);
  });
});

describe('StringFifo: compaction', () => {
  /** The FIFO's backing array length (what compaction bounds). */
  const backing = (q: StringFifo) => (q as unknown as { items: string[] }).items.length;

  it('copies the rest down once 1024 entries are taken and they are half the array, not before', () => {
    const q = new StringFifo();
    for (let i = 0; i < 2048; i++) q.push(String(i));
    for (let i = 0; i < 1023; i++) expect(q.shift()).toBe(String(i));
    expect(backing(q)).toBe(2048); // 1023 taken: not yet
    expect(q.shift()).toBe('1023'); // the 1024th: exactly half of 2048
    expect(backing(q)).toBe(1024);
    expect(q.length).toBe(1024);
    expect(q.shift()).toBe('1024');
  });

  it('never copies a short FIFO', () => {
    const q = new StringFifo();
    for (let i = 0; i < 4; i++) q.push(String(i));
    q.shift();
    q.shift();
    expect(backing(q)).toBe(4);
    expect(q.shift()).toBe('2');
  });

  it('waits until the taken entries are half the array', () => {
    const q = new StringFifo();
    for (let i = 0; i < 2049; i++) q.push(String(i));
    for (let i = 0; i < 1024; i++) q.shift();
    expect(backing(q)).toBe(2049); // 1024 × 2 < 2049
    q.shift();
    expect(backing(q)).toBe(1024);
    expect(q.shift()).toBe('1025');
  });
});

describe('Frontier: defaults and edge cases (mutation testing)', () => {
  it('without a clock option it runs on performance.now', () => {
    const f = new Frontier({ delayMs: 1000, jitter: 0, hostConcurrency: 2 });
    f.push('http://a.example/1', 0);
    f.push('http://a.example/2', 0);
    expect(take(f).url).toBe('http://a.example/1');
    const wait = f.nextReadyIn();
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(1000);
  });

  it('done() counts as a success by default: the penalty decays', () => {
    const { frontier } = make({ delayMs: 0, jitter: 0 });
    frontier.push('http://a.example/1', 0);
    const e = take(frontier);
    frontier.slowDown('a.example');
    frontier.done(e);
    expect(frontier.gapFor('a.example')).toBe(200);
  });

  it('done() of an entry whose host is unknown changes nothing', () => {
    const { frontier } = make();
    frontier.done({ url: 'http://x.example/', host: 'x.example', depth: 0, attempt: 0 });
    expect(frontier.inFlight).toBe(0);
    expect(frontier.hostCount).toBe(0);
  });

  it('a penalty of exactly 50 ms decays by × 0.8; only below 50 it drops to 0', () => {
    const { frontier, clock } = make({ delayMs: 0, jitter: 0, maxPenaltyMs: 50 });
    frontier.slowDown('a.example'); // min(50, 250)
    expect(frontier.gapFor('a.example')).toBe(50);
    frontier.push('http://a.example/1', 0);
    frontier.done(take(frontier), true);
    expect(frontier.gapFor('a.example')).toBe(40);
    frontier.push('http://a.example/2', 0);
    clock.t += 100;
    frontier.done(take(frontier), true);
    expect(frontier.gapFor('a.example')).toBe(0);
  });

  it('retry() of an entry already released does not count it out again; a free retry keeps its attempt', () => {
    const { frontier } = make({ delayMs: 0 });
    frontier.push('http://a.example/1', 0);
    const e = take(frontier);
    frontier.done(e);
    frontier.retry(e, 0, true, false);
    expect(frontier.inFlight).toBe(0);
    expect(frontier.queued).toBe(1);
    const again = take(frontier);
    expect(again.attempt).toBe(0);
    frontier.retry(again, 0); // counted: attempt 1, slot given back
    expect(frontier.inFlight).toBe(0);
    expect(take(frontier).attempt).toBe(1);
  });

  it('the idle sweep runs at the 1025th idle host kept, and keeps hosts with work, a running clock, a Crawl-delay or a penalty', () => {
    const { frontier, clock } = make({ delayMs: 1000, jitter: 0, hostConcurrency: 1 });
    clock.t = 0;
    // a host with a Crawl-delay and one with a penalty: never idle, never counted
    frontier.setCrawlDelay('cd.example', 5000);
    frontier.push('http://cd.example/1', 0);
    frontier.slowDown('pen.example');
    frontier.push('http://pen.example/1', 0);
    for (const e of [take(frontier), take(frontier)]) frontier.done(e, false);
    // a host that goes idle (kept: 1), then gets a URL it may serve at 1000
    frontier.push('http://queued.example/0', 0);
    frontier.done(take(frontier));
    frontier.push('http://queued.example/1', 0);
    // 1,023 more hosts go idle with their clock running (ready again at 1000): kept, 1,024 in all
    for (let i = 0; i < 1023; i++) {
      frontier.push(`http://h${i}.example/`, 0);
      frontier.done(take(frontier));
    }
    frontier.push('http://waiting.example/1', 0);
    frontier.push('http://waiting.example/2', 0);
    const w = take(frontier); // waiting.example: one in flight, one queued
    expect(frontier.hostCount).toBe(1023 + 4);
    clock.t = 1000; // the idle hosts' clocks run out exactly now
    frontier.push('http://last.example/', 0);
    const last = take(frontier);
    expect(last.url).toBe('http://last.example/');
    frontier.done(last);
    // the 1,025th idle host kept: the sweep ran. Swept: the 1,023 whose clock ran out; kept: last
    // (clock running), waiting (in flight), queued (work queued), cd (Crawl-delay), pen (penalty)
    expect(frontier.hostCount).toBe(5);
    expect(frontier.gapFor('cd.example')).toBe(5000);
    expect(frontier.gapFor('pen.example')).toBe(2000); // delay 1000 + a penalty of 1000
    frontier.push('http://last.example/again', 0);
    const q = take(frontier);
    expect(q.url).toBe('http://queued.example/1');
    expect(frontier.next()).toBeNull(); // last.example's clock was kept: not before 2000
    frontier.done(q);
    frontier.done(w);
    expect(frontier.inFlight).toBe(0);
    clock.t = 2000;
    expect([take(frontier).url, take(frontier).url].sort()).toEqual([
      'http://last.example/again',
      'http://waiting.example/2',
    ]);
  });
});

describe('Frontier: priorities', () => {
  it('within a host: higher priority first, then breadth-first by depth; below 0 after the plain URLs', () => {
    const { frontier, clock } = make({ delayMs: 0, hostConcurrency: 100 });
    frontier.push('http://a.example/plain-d2', 2);
    frontier.push('http://a.example/low', 0, -1);
    frontier.push('http://a.example/plain-d1', 1);
    frontier.push('http://a.example/p1-d3', 3, 1);
    frontier.push('http://a.example/p5', 4, 5);
    frontier.push('http://a.example/p1-d0', 0, 1);
    frontier.push('http://a.example/lower', 0, -5);
    expect(frontier.queued).toBe(7);
    const order: string[] = [];
    for (let e = frontier.next(); e !== null; e = frontier.next()) {
      order.push(new URL(e.url).pathname.slice(1));
      clock.t += 1;
    }
    expect(order).toEqual(['p5', 'p1-d0', 'p1-d3', 'plain-d1', 'plain-d2', 'low', 'lower']);
    expect(frontier.queued).toBe(0);
  });

  it('a prioritized entry keeps its depth; a retry still goes first', () => {
    const { frontier } = make({ delayMs: 0, hostConcurrency: 100 });
    frontier.push('http://a.example/first', 0);
    const first = take(frontier);
    frontier.push('http://a.example/urgent', 7, 3);
    frontier.retry(first, 0);
    expect(take(frontier).url).toBe('http://a.example/first');
    expect(take(frontier)).toEqual({
      url: 'http://a.example/urgent',
      host: 'a.example',
      depth: 7,
      attempt: 0,
    });
  });
});

describe('Frontier: plainDepthOf', () => {
  it('finds a URL waiting without a priority, at its depth, until it is handed out', () => {
    const { frontier } = make({ delayMs: 0, jitter: 0, hostConcurrency: 8 });
    frontier.push('http://a.example/', 0);
    frontier.push('http://a.example/x', 2);
    frontier.push('http://a.example/y', 2);
    frontier.push('http://a.example/hub', 1, 20);
    frontier.push('http://b.example/x', 1);
    expect(frontier.plainDepthOf('http://a.example/y')).toBe(2);
    expect(frontier.plainDepthOf('http://b.example/x')).toBe(1);
    // pushed with a priority, another host's path, never pushed
    expect(frontier.plainDepthOf('http://a.example/hub')).toBeNull();
    expect(frontier.plainDepthOf('http://c.example/x')).toBeNull();
    expect(frontier.plainDepthOf('http://a.example/z')).toBeNull();
    const taken: string[] = [];
    for (let e = frontier.next(); e !== null; e = frontier.next()) taken.push(e.url);
    expect(taken).toContain('http://a.example/y');
    expect(frontier.plainDepthOf('http://a.example/y')).toBeNull();
    expect(frontier.plainDepthOf('http://a.example/')).toBeNull();
  });

  it('finds one past the first 1,024 taken of its queue (the queue compacts as it drains)', () => {
    const { frontier } = make({ delayMs: 0, jitter: 0, hostConcurrency: 5000 });
    for (let i = 0; i < 3000; i++) frontier.push(`http://a.example/${i}`, 1);
    for (let i = 0; i < 1500; i++) frontier.next();
    expect(frontier.plainDepthOf('http://a.example/1499')).toBeNull();
    expect(frontier.plainDepthOf('http://a.example/1500')).toBe(1);
    expect(frontier.plainDepthOf('http://a.example/2999')).toBe(1);
  });
});
