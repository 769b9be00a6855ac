/**
 * The readiness rule of a rendered page (`readiness`), decided from what the renderer sees: its
 * requests in flight and their last event, and the DOM's last change. A fake clock throughout.
 */
import { describe, expect, it } from 'vitest';
import { DOM_STABLE_MS, NETWORK_IDLE_MS, readiness, SETTLED_MS } from '../../src/http/readiness.js';

const T = 1_000_000;
const view = (
  quietMs: number,
  inFlight: number,
  dom: { changedSinceLoad: boolean; stillMs: number } | null = null,
) => ({
  now: T + quietMs,
  inFlight,
  lastRequestAt: T,
  dom,
});

describe('readiness', () => {
  it('is ready once nothing has been in flight for NETWORK_IDLE_MS, without reading the DOM', () => {
    expect(readiness(view(NETWORK_IDLE_MS, 0))).toEqual({ ready: true });
    expect(readiness(view(NETWORK_IDLE_MS + 5000, 0))).toEqual({ ready: true });
  });

  it('waits, without reading the DOM, until the network has been quiet for SETTLED_MS', () => {
    expect(readiness(view(0, 0))).toEqual({ wait: SETTLED_MS });
    expect(readiness(view(SETTLED_MS - 30, 0))).toEqual({ wait: 30 });
  });

  it('past SETTLED_MS of a quiet network, asks for the DOM', () => {
    expect(readiness(view(SETTLED_MS, 0))).toEqual({ readDom: true });
    expect(readiness(view(NETWORK_IDLE_MS - 1, 0))).toEqual({ readDom: true });
  });

  it('is ready sooner when the DOM changed since load and has been still for SETTLED_MS: the fetched content is written', () => {
    expect(readiness(view(SETTLED_MS, 0, { changedSinceLoad: true, stillMs: SETTLED_MS }))).toEqual({
      ready: true,
    });
  });

  it('is not ready sooner when the DOM changed too recently, or not since load (a page not yet written)', () => {
    const recent = readiness(view(SETTLED_MS + 20, 0, { changedSinceLoad: true, stillMs: 60 }));
    expect(recent).toEqual({ wait: SETTLED_MS - 60 });
    const never = readiness(view(SETTLED_MS + 20, 0, { changedSinceLoad: false, stillMs: 5000 }));
    expect('ready' in never).toBe(false);
    // it looks again, but no later than when the network becomes idle
    expect(readiness(view(NETWORK_IDLE_MS - 10, 0, { changedSinceLoad: false, stillMs: 5000 }))).toEqual({
      wait: 10,
    });
  });

  it('while requests are in flight, is ready only when the DOM has been still for DOM_STABLE_MS after a change since load', () => {
    expect(readiness(view(5000, 1))).toEqual({ readDom: true });
    expect(readiness(view(5000, 1, { changedSinceLoad: true, stillMs: DOM_STABLE_MS }))).toEqual({
      ready: true,
    });
    expect('ready' in readiness(view(5000, 1, { changedSinceLoad: true, stillMs: DOM_STABLE_MS - 1 }))).toBe(
      false,
    );
    // a shell waiting on a slow content request has not changed since load: it waits for the network,
    // looking again at the poll interval (a quiet time past NETWORK_IDLE_MS does not count while in flight)
    expect(readiness(view(5000, 2, { changedSinceLoad: false, stillMs: 60_000 }))).toEqual({ wait: 50 });
    // a DOM still for SETTLED_MS is not enough while a request is in flight
    expect('ready' in readiness(view(5000, 1, { changedSinceLoad: true, stillMs: SETTLED_MS }))).toBe(false);
  });

  it('never waits less than 1 ms or more than the poll interval once it reads the DOM', () => {
    for (const quiet of [SETTLED_MS, 150, NETWORK_IDLE_MS - 1])
      for (const stillMs of [0, 1, 99, 500])
        for (const changedSinceLoad of [true, false]) {
          const r = readiness(view(quiet, 0, { changedSinceLoad, stillMs }));
          if ('wait' in r) {
            expect(r.wait).toBeGreaterThanOrEqual(1);
            expect(r.wait).toBeLessThanOrEqual(50);
          }
        }
  });
});
