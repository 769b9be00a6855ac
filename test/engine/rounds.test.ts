import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { newCrawlStats } from '../../src/engine/crawl-stats.js';
import { Rounds } from '../../src/engine/rounds.js';

/** Rounds every `intervalMs`, whose requests are recorded with their round number. */
function rounds(intervalMs: number) {
  const queued: number[] = [];
  const r = new Rounds({
    intervalMs,
    load: async () => ['http://h/'],
    queue: (_requests, round) => queued.push(round),
    log: pino({ level: 'silent' }),
    wake: () => {},
    stats: newCrawlStats(),
  });
  return { r, queued };
}

describe('Rounds: on time, from the start of the previous round', () => {
  it('the first pass starts when the dispatch loop begins, not when the worker was built', () => {
    const { r } = rounds(2000);
    r.begin(10_000); // start-up took a while
    expect(r.dueIn(11_500)).toBe(500);
    expect(r.startIfDue(11_999)).toBe(false);
    expect(r.startIfDue(12_000)).toBe(true);
    expect(r.current).toBe(1);
    // the next one is due an interval after this one started, busy or not
    expect(r.dueIn(12_000)).toBe(2000);
  });

  it('a round continued from a restart keeps its saved number and start', async () => {
    const { r, queued } = rounds(2000);
    r.continueFrom({ number: 7, startedAt: 5_000 });
    r.begin(10_000);
    expect(r.dueIn(10_000)).toBe(0);
    expect(r.startIfDue(10_000)).toBe(true);
    await new Promise((done) => setImmediate(done));
    expect(queued).toEqual([8]);
  });

  it('without an interval there is one round', () => {
    const { r } = rounds(undefined as unknown as number);
    r.begin(0);
    expect(r.dueIn(1e12)).toBe(Number.POSITIVE_INFINITY);
    expect(r.startIfDue(1e12)).toBe(false);
  });
});
