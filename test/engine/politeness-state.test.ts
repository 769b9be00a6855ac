/**
 * The politeness state saved across restarts (issue 18 §5): each host's slow-down and pause, the
 * unavailable robots.txt verdicts and the round, written by one process and taken back by the
 * next; a damaged file or entry is reported and ignored, never trusted.
 */
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { PolitenessState, parseSavedPoliteness, politenessPath } from '../../src/engine/politeness-state.js';
import { Frontier } from '../../src/frontier/frontier.js';
import { RobotsCache } from '../../src/http/robots.js';
import { tempDir } from '../fixtures/cli.js';

const log = pino({ level: 'silent' });

function parts(round = { number: 0, startedAt: Date.now() }) {
  const frontier = new Frontier({ delayMs: 100, jitter: 0, hostConcurrency: 1 });
  const robots = new RobotsCache({
    userAgent: 'collector/0.1',
    fetch: async () => ({ status: 503, location: null, body: '' }),
  });
  return { frontier, robots, round: () => round, log };
}

describe('politeness state', () => {
  it('a restart takes back the hosts’ slow-down and pauses, unavailable robots.txt and the round', async () => {
    const dir = tempDir();
    const a = parts({ number: 7, startedAt: 1_700_000_000_000 });
    const { state } = await PolitenessState.open(dir, a);
    a.frontier.slowDown('slow.example', undefined, '429');
    a.frontier.pauseHost('paused.example', 30_000, 'rate-limit');
    await a.robots.check('http://down.example/x'); // 503: unavailable for 60 s
    await state.close();

    const b = parts();
    const { state: again, round } = await PolitenessState.open(dir, b);
    await again.close();
    expect(round).toEqual({ number: 7, startedAt: 1_700_000_000_000 });
    expect(b.frontier.gapFor('slow.example')).toBe(100 + 250);
    b.frontier.push('http://paused.example/a', 0);
    expect(b.frontier.next()).toBeNull();
    expect(b.frontier.nextReadyIn()).toBeGreaterThan(28_000);
    expect(b.robots.unavailableOrigins().map((o) => o.origin)).toEqual(['http://down.example']);
    expect((await b.robots.check('http://down.example/x')).reason).toBe('unavailable');
  });

  it('checks every field: a damaged file is ignored, bad entries are skipped', async () => {
    expect(parseSavedPoliteness('{"format":1,')).toBe('not JSON');
    expect(parseSavedPoliteness('{"format":2}')).toBe('not format 1');
    expect(
      parseSavedPoliteness('{"format":1,"round":{"number":-1,"startedAt":0},"hosts":[],"robots":[]}'),
    ).toBe('bad round');
    const doc = {
      format: 1,
      savedAt: 1,
      round: { number: 3, startedAt: 5 },
      hosts: [
        { host: 'ok.example', penaltyMs: 500, pausedUntil: 0, reason: '503' },
        { host: 'bad host/', penaltyMs: 500, pausedUntil: 0, reason: '' },
        { host: 'neg.example', penaltyMs: -1, pausedUntil: 0, reason: '' },
        'nonsense',
      ],
      robots: [
        { origin: 'https://r.example', until: 9 },
        { origin: 'file:///etc', until: 9 },
      ],
    };
    const parsed = parseSavedPoliteness(JSON.stringify(doc));
    expect(typeof parsed).toBe('object');
    if (typeof parsed === 'string') return;
    expect(parsed.skipped).toBe(4);
    expect(parsed.saved.hosts.map((h) => h.host)).toEqual(['ok.example']);
    expect(parsed.saved.robots.map((o) => o.origin)).toEqual(['https://r.example']);

    const dir = tempDir();
    fs.writeFileSync(politenessPath(dir), 'garbage\n');
    const p = parts();
    const { state, round } = await PolitenessState.open(dir, p);
    expect(round).toBeNull();
    await state.close(); // replaced by a good one
    expect(parseSavedPoliteness(fs.readFileSync(path.join(dir, 'politeness.json'), 'utf8'))).toMatchObject({
      skipped: 0,
    });
  });
});
