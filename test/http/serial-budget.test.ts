/**
 * API requests in turns: one in flight per credential, the next answered when the previous one's
 * response is observed (with the wait that response imposed), raw requests concurrent, and a turn
 * never answered ended after its time to live.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Grant, RateBudget } from '../../src/http/rate-budget.js';
import { SerialBudget } from '../../src/http/serial-budget.js';

const core = { identity: 'token-1', resource: 'core' };
const search = { identity: 'token-1', resource: 'search' };
const raw = { identity: 'anonymous', resource: 'raw' };

function setup(turnTtlMs = 60_000) {
  let now = 1_000_000;
  const budget = new SerialBudget(new RateBudget({ now: () => now, spacingMs: {} }), {
    turnTtlMs,
    now: () => now,
  });
  const answers: Array<Grant | undefined> = [];
  const ask = (key: typeof core) => {
    const i = answers.push(undefined) - 1;
    budget.reserve(key, (g) => {
      answers[i] = g;
    });
    return i;
  };
  return { budget, answers, ask, tick: (ms: number) => (now += ms), now: () => now };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SerialBudget', () => {
  it('one API request of a credential at a time: the next is granted when the first is answered', () => {
    const { budget, answers, ask } = setup();
    ask(core);
    ask(search);
    ask(core);
    expect(answers).toEqual([{ ok: true }, undefined, undefined]);
    budget.observe(core, 200, {});
    expect(answers[1]).toEqual({ ok: true });
    expect(answers[2]).toBeUndefined();
    budget.release(search);
    expect(answers[2]).toEqual({ ok: true });
  });

  it('a secondary limit in the answer reaches the request that waited for it', () => {
    const { budget, answers, ask, now } = setup();
    ask(core);
    ask(core);
    budget.observe(core, 403, { 'retry-after': '2' }, 'You have exceeded a secondary rate limit');
    expect(answers[1]).toEqual({ ok: false, waitUntil: now() + 2000, reason: 'secondary' });
    // Waits do not hold the turn: a later ask is answered at once (with the same wait).
    ask(core);
    expect(answers[2]).toMatchObject({ ok: false, reason: 'secondary' });
  });

  it('other credentials and the raw host are not held up', () => {
    const { budget, answers, ask } = setup();
    ask(raw);
    budget.observe(raw, 200, {}); // the first answer tells the budget (until then, one probe)
    ask(core);
    ask({ identity: 'token-2', resource: 'core' });
    ask(raw);
    ask(raw);
    expect(answers).toEqual([{ ok: true }, { ok: true }, { ok: true }, { ok: true }, { ok: true }]);
  });

  it('a turn never answered (its process died) ends after its time to live', () => {
    vi.useFakeTimers();
    const { budget, answers, ask, tick } = setup(5000);
    ask(core);
    budget.observe(core, 200, {});
    ask(core); // never answered
    ask(core);
    expect(answers[2]).toBeUndefined();
    tick(5001);
    vi.advanceTimersByTime(5001);
    expect(answers[2]).toMatchObject({ ok: true });
  });
});
