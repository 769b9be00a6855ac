import { describe, expect, it } from 'vitest';
import {
  ANONYMOUS,
  type BudgetKey,
  credentialIdentity,
  RATE_BUDGET_DEFAULTS,
  RateBudget,
} from '../../src/http/rate-budget.js';

const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);
const TOKEN = 'ghp_secretsecretsecret';

function clock(start = T0) {
  let t = start;
  return { now: () => t, set: (v: number) => (t = v), add: (ms: number) => (t += ms) };
}

const core: BudgetKey = { identity: credentialIdentity(TOKEN), resource: 'core' };
const search: BudgetKey = { identity: credentialIdentity(TOKEN), resource: 'search' };
const anonSearch: BudgetKey = { identity: ANONYMOUS, resource: 'search' };
const raw: BudgetKey = { identity: ANONYMOUS, resource: 'raw' };

/** GitHub's primary-limit headers. */
function limits(limit: number, remaining: number, resetSec: number, resource = 'core') {
  return {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(resetSec),
    'x-ratelimit-used': String(limit - remaining),
    'x-ratelimit-resource': resource,
  };
}

const resetSec = (ms: number) => Math.ceil(ms / 1000);

describe('credentialIdentity', () => {
  it('is stable, distinct per token, and never contains the token', () => {
    const id = credentialIdentity(TOKEN);
    expect(id).toMatch(/^token-[0-9a-f]{16}$/);
    expect(id).toBe(credentialIdentity(TOKEN));
    expect(id).not.toBe(credentialIdentity(`${TOKEN}x`));
    expect(id).not.toContain(TOKEN);
    expect(credentialIdentity('')).toBe(ANONYMOUS);
    expect(credentialIdentity(undefined)).toBe(ANONYMOUS);
  });
});

describe('RateBudget: primary limits', () => {
  it('sends one probe first, then spends exactly what the headers allow, then waits for the reset', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now });
    const reset = resetSec(T0 + 5000);
    expect(b.reserve(core)).toEqual({ ok: true });
    // The first answer is not in yet: nobody else goes (the limit is unknown).
    expect(b.reserve(core)).toEqual({ ok: false, waitUntil: T0 + 1000, reason: 'probe' });
    b.observe(core, 200, limits(5, 4, reset));
    const grants = [1, 2, 3, 4].map(() => b.reserve(core));
    expect(grants.every((g) => g.ok)).toBe(true);
    expect(b.reserve(core)).toEqual({ ok: false, waitUntil: reset * 1000 + 1000, reason: 'primary' });
    // Answers while those are in flight do not give budget back.
    b.observe(core, 200, limits(5, 3, reset));
    b.observe(core, 200, limits(5, 2, reset));
    expect(b.reserve(core).ok).toBe(false);
    // Not one millisecond early.
    c.set(reset * 1000 + 999);
    expect(b.reserve(core).ok).toBe(false);
    c.set(reset * 1000 + 1000);
    expect(b.reserve(core)).toEqual({ ok: true });
  });

  it('a 304 (a conditional request not modified) gives its grant back: revisits cost no budget', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now });
    const reset = resetSec(T0 + 60_000);
    b.reserve(core);
    b.observe(core, 200, limits(2, 1, reset));
    // One request left: spent on conditional requests, answered 304 (the server does not count them).
    for (let i = 0; i < 10; i++) {
      expect(b.reserve(core), `revisit ${i}`).toEqual({ ok: true });
      b.observe(core, 304, limits(2, 1, reset));
    }
    // A full answer spends the last one.
    expect(b.reserve(core)).toEqual({ ok: true });
    b.observe(core, 200, limits(2, 0, reset));
    expect(b.reserve(core)).toMatchObject({ ok: false, reason: 'primary' });
  });

  it('after Remaining: 0 nothing is sent for that resource before the reset; other resources go on', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now, spacingMs: {} });
    const reset = resetSec(T0 + 60_000);
    b.reserve(core);
    b.observe(core, 200, limits(60, 0, reset));
    expect(b.reserve(core)).toEqual({ ok: false, waitUntil: reset * 1000 + 1000, reason: 'primary' });
    expect(b.reserve(search).ok).toBe(true);
    expect(b.waits()).toEqual([
      { identity: core.identity, scope: 'core', until: reset * 1000 + 1000, reason: 'primary' },
    ]);
  });

  it('counts grants in flight against a newer window the server reports', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now });
    b.reserve(core);
    b.observe(core, 200, limits(10, 9, resetSec(T0 + 1000)));
    for (let i = 0; i < 3; i++) expect(b.reserve(core).ok).toBe(true);
    // One answer arrives from a new window with 2 left; 2 grants are still unanswered.
    c.add(2500);
    b.observe(core, 200, limits(10, 2, resetSec(T0 + 10_000)));
    expect(b.reserve(core).ok).toBe(false);
  });

  it('a new window starts with the limit less the requests still in flight from the old one', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now, resetMarginMs: 0 });
    const reset = resetSec(T0 + 1000);
    b.reserve(core);
    b.observe(core, 200, limits(3, 2, reset));
    expect(b.reserve(core).ok).toBe(true); // in flight across the reset
    c.set(reset * 1000);
    expect(b.reserve(core).ok).toBe(true);
    expect(b.reserve(core).ok).toBe(true);
    expect(b.reserve(core)).toMatchObject({ ok: false, reason: 'probe' });
  });

  it('takes the resource the server names, as well as the one asked', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now, spacingMs: {} });
    const reset = resetSec(T0 + 30_000);
    b.reserve(core);
    b.observe(core, 200, limits(30, 0, reset, 'search'));
    expect(b.reserve(search)).toMatchObject({ ok: false, reason: 'primary' });
    expect(b.reserve(core)).toMatchObject({ ok: false, reason: 'primary' });
  });

  it('a 403 with Remaining: 0 and no Retry-After waits for the reset, and blocks only that resource', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now, spacingMs: {} });
    const reset = resetSec(T0 + 3000);
    b.reserve(search);
    expect(b.observe(search, 403, limits(30, 0, reset, 'search'))).toEqual({
      ok: false,
      waitUntil: reset * 1000 + 1000,
      reason: 'primary',
    });
    expect(b.reserve(search).ok).toBe(false);
    expect(b.reserve(core).ok).toBe(true);
  });

  it('a grant never answered stops counting after the reservation TTL; release gives it back', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now });
    expect(b.reserve(core).ok).toBe(true);
    expect(b.reserve(core).ok).toBe(false); // probe in flight
    c.add(RATE_BUDGET_DEFAULTS.reservationTtlMs + 1);
    expect(b.reserve(core).ok).toBe(true); // the lost probe no longer counts
    b.release(core);
    expect(b.reserve(core).ok).toBe(true);
  });
});

describe('RateBudget: secondary limits', () => {
  it('a 403 or 429 with Retry-After blocks every API resource of that credential until it passed', () => {
    for (const status of [403, 429]) {
      const c = clock();
      const b = new RateBudget({ now: c.now, spacingMs: {} });
      b.reserve(core);
      const w = b.observe(core, status, {
        ...limits(5000, 4000, resetSec(T0 + 3_600_000)),
        'retry-after': '30',
      });
      expect(w).toEqual({ ok: false, waitUntil: T0 + 30_000, reason: 'secondary' });
      expect(b.reserve(core)).toEqual(w);
      expect(b.reserve(search)).toEqual(w);
      expect(b.reserve({ identity: ANONYMOUS, resource: 'core' }).ok).toBe(true); // another credential
      expect(b.reserve(raw).ok).toBe(true); // the raw host is its own group
      c.set(T0 + 29_999);
      expect(b.reserve(search).ok).toBe(false);
      c.set(T0 + 30_000);
      expect(b.reserve(search).ok).toBe(true);
      expect(b.waits()).toEqual([]);
    }
  });

  it('reads Retry-After as an HTTP-date too', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now });
    b.reserve(core);
    const w = b.observe(core, 429, { 'retry-after': new Date(T0 + 90_000).toUTCString() });
    expect(w?.waitUntil).toBe(T0 + 90_000);
  });

  it('a rate-limit 403/429 without headers backs off a minute, doubling while it repeats, reset by a success', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now, spacingMs: {} });
    const hit = (status: number, hint?: string) => {
      expect(b.reserve(core).ok).toBe(true);
      return b.observe(core, status, {}, hint)?.waitUntil ?? null;
    };
    expect(hit(429)).toBe(c.now() + 60_000);
    c.add(60_000);
    expect(hit(403)).toBe(c.now() + 120_000);
    c.add(120_000);
    expect(hit(403, 'You have exceeded a secondary rate limit')).toBe(c.now() + 240_000);
    c.add(240_000);
    expect(hit(200)).toBeNull();
    expect(hit(429)).toBe(c.now() + 60_000);
  });

  it('the backoff is capped', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now, secondaryBackoffMs: 1000, secondaryBackoffMaxMs: 5000 });
    let w = 0;
    for (let i = 0; i < 10; i++) {
      b.reserve(core);
      w = b.observe(core, 429, {})!.waitUntil - c.now();
      c.set(c.now() + w);
    }
    expect(w).toBe(5000);
  });

  it('a 403 with budget left and no rate-limit message is a permission error: nothing waits', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now });
    b.reserve(core);
    expect(
      b.observe(
        core,
        403,
        limits(5000, 4990, resetSec(T0 + 3_600_000)),
        '{"message":"Resource not accessible"}',
      ),
    ).toBeNull();
    expect(b.reserve(core).ok).toBe(true);
    b.observe(core, 404, limits(5000, 4989, resetSec(T0 + 3_600_000)));
    b.observe(core, 500, {});
    expect(b.reserve(core).ok).toBe(true);
  });

  it('a 429 from the raw host blocks the raw host only', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now, spacingMs: {} });
    b.reserve(raw);
    b.observe(raw, 429, { 'retry-after': '5' });
    expect(b.reserve(raw)).toEqual({ ok: false, waitUntil: T0 + 5000, reason: 'secondary' });
    expect(b.reserve({ identity: ANONYMOUS, resource: 'core' }).ok).toBe(true);
  });

  it('raw requests (no rate-limit headers) are not serialised after the first answer', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now });
    b.reserve(raw);
    b.observe(raw, 200, {});
    for (let i = 0; i < 20; i++) expect(b.reserve(raw).ok).toBe(true);
  });
});

describe('RateBudget: spacing', () => {
  it('spaces unauthenticated searches ≥ 6 s and authenticated ones ≥ 2 s', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now });
    expect(b.reserve(anonSearch).ok).toBe(true);
    b.observe(anonSearch, 200, limits(10, 9, resetSec(T0 + 60_000), 'search'));
    expect(b.reserve(anonSearch)).toEqual({ ok: false, waitUntil: T0 + 6000, reason: 'spacing' });
    c.set(T0 + 5999);
    expect(b.reserve(anonSearch).ok).toBe(false);
    c.set(T0 + 6000);
    expect(b.reserve(anonSearch).ok).toBe(true);
    expect(b.reserve(search).ok).toBe(true);
    b.observe(search, 200, limits(30, 29, resetSec(T0 + 60_000), 'search'));
    expect(b.reserve(search)).toEqual({ ok: false, waitUntil: T0 + 8000, reason: 'spacing' });
    expect(b.reserve(core).ok).toBe(true); // core is not spaced
  });
});

describe('RateBudget: snapshot', () => {
  it('survives a restart through JSON with its waits and spacing, never holding the token', () => {
    const c = clock();
    const b = new RateBudget({ now: c.now });
    b.reserve(core);
    b.observe(core, 200, limits(5000, 0, resetSec(T0 + 600_000)));
    b.reserve(anonSearch);
    b.observe(anonSearch, 429, { 'retry-after': '120' });
    const text = JSON.stringify(b.snapshot());
    expect(text).not.toContain(TOKEN);
    const restored = RateBudget.fromSnapshot(JSON.parse(text), { now: c.now });
    expect(restored.waits()).toEqual(b.waits());
    expect(restored.reserve(core)).toEqual(b.reserve(core));
    expect(restored.reserve(anonSearch)).toMatchObject({
      ok: false,
      reason: 'secondary',
      waitUntil: T0 + 120_000,
    });
    c.set(T0 + 120_000);
    expect(restored.reserve(anonSearch).ok).toBe(true);
    // The last grant's time is kept too: a restart does not reset the search spacing.
    const again = RateBudget.fromSnapshot(JSON.parse(JSON.stringify(restored.snapshot())), { now: c.now });
    expect(again.reserve(anonSearch)).toEqual({ ok: false, waitUntil: T0 + 126_000, reason: 'spacing' });
  });

  it('skips damaged entries and refuses what is not a snapshot', () => {
    const good = {
      identity: 'anonymous',
      resource: 'core',
      limit: 60,
      remaining: 0,
      resetAt: T0 + 5000,
      lastGrantAt: T0,
    };
    const b = RateBudget.fromSnapshot(
      {
        version: 1,
        resources: [good, { identity: 1 }, null, { ...good, resource: 'search', remaining: 'x' }],
        blocks: [{ until: 'soon' }],
      },
      { now: () => T0 },
    );
    expect(b.snapshot().resources).toEqual([good]);
    expect(b.snapshot().blocks).toEqual([]);
    for (const bad of [null, {}, { version: 2, resources: [], blocks: [] }, '{}'])
      expect(() => RateBudget.fromSnapshot(bad)).toThrow(/not a rate budget snapshot/);
  });
});
