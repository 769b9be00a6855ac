import { describe, expect, it } from 'vitest';
import {
  decodeRecord,
  encodeRecord,
  type FetchObservation,
  type PageRecord,
  REVISIT_DEFAULTS,
  RevisitPolicy,
} from '../../src/frontier/revisit-policy.js';

const DAY = 86_400_000;
const URL_A = 'https://blog.example/2024/05/a/';
const SHA1 = 'a'.repeat(64);
const SHA2 = 'b'.repeat(64);
const LM = 'Wed, 01 May 2024 10:00:00 GMT';

const ok = (sha256: string, at: number, extra: Partial<FetchObservation> = {}): FetchObservation => ({
  status: 200,
  etag: null,
  lastModified: null,
  sha256,
  at,
  ...extra,
});
const notModified = (at: number, extra: Partial<FetchObservation> = {}): FetchObservation => ({
  status: 304,
  etag: null,
  lastModified: null,
  sha256: null,
  at,
  ...extra,
});

describe('RevisitPolicy: intervals', () => {
  it('uses the first matching rule, else the default, else none', () => {
    const p = new RevisitPolicy({
      intervalMs: DAY,
      rules: [
        { pattern: /\/feed\//, intervalMs: 3_600_000 },
        { pattern: /\/archive\//, intervalMs: 7 * DAY },
      ],
    });
    expect(p.baseIntervalFor('https://blog.example/feed/')).toBe(3_600_000);
    expect(p.baseIntervalFor('https://blog.example/archive/2020/')).toBe(7 * DAY);
    expect(p.baseIntervalFor(URL_A)).toBe(DAY);
    expect(new RevisitPolicy({ intervalMs: null }).baseIntervalFor(URL_A)).toBeNull();
  });

  it('refuses a non-positive interval', () => {
    expect(() => new RevisitPolicy({ intervalMs: 0 })).toThrow(RangeError);
    expect(
      () => new RevisitPolicy({ intervalMs: DAY, rules: [{ pattern: /x/, intervalMs: Number.NaN }] }),
    ).toThrow(/positive number of ms/);
  });

  it('a new page is version 1, due one interval later', () => {
    const p = new RevisitPolicy({ intervalMs: DAY });
    const { record, outcome } = p.observe(
      undefined,
      URL_A,
      ok(SHA1, 1_000, { etag: '"v1"', lastModified: 'Thu, 01 Jan 1970 00:00:01 GMT' }),
    );
    expect(outcome).toBe('new');
    expect(record).toEqual({
      url: URL_A,
      etag: '"v1"',
      lastModified: 'Thu, 01 Jan 1970 00:00:01 GMT',
      sha256: SHA1,
      version: 1,
      fetchedAt: 1_000,
      changedAt: 1_000,
      intervalMs: DAY,
      dueAt: 1_000 + DAY,
    });
    expect(p.isDue(record!, 1_000 + DAY - 1)).toBe(false);
    expect(p.isDue(record!, 1_000 + DAY)).toBe(true);
  });

  it('shrinks the interval of a page that changes, down to revisit/4', () => {
    const p = new RevisitPolicy({ intervalMs: DAY });
    let r = p.observe(undefined, URL_A, ok(SHA1, 0)).record!;
    const intervals: number[] = [];
    for (let i = 1; i <= 5; i++) {
      const out = p.observe(r, URL_A, ok(i % 2 ? SHA2 : SHA1, i * DAY));
      expect(out.outcome).toBe('changed');
      r = out.record!;
      intervals.push(r.intervalMs);
    }
    expect(intervals).toEqual([DAY / 2, DAY / 4, DAY / 4, DAY / 4, DAY / 4]);
    expect(r.version).toBe(6);
    expect(r.changedAt).toBe(5 * DAY);
    expect(r.dueAt).toBe(5 * DAY + DAY / 4);
  });

  it('grows the interval of a page that does not change, up to revisit×4', () => {
    const p = new RevisitPolicy({ intervalMs: DAY });
    let r = p.observe(undefined, URL_A, ok(SHA1, 0, { etag: '"v1"' })).record!;
    const intervals: number[] = [];
    for (let i = 1; i <= 6; i++) {
      // alternately a 304 and a 200 with the same body: both are "unchanged"
      const out = p.observe(r, URL_A, i % 2 ? notModified(i * DAY) : ok(SHA1, i * DAY, { etag: '"v1"' }));
      expect(out.outcome).toBe('unchanged');
      r = out.record!;
      intervals.push(r.intervalMs);
    }
    const f = REVISIT_DEFAULTS.unchangedFactor;
    expect(intervals).toEqual([DAY * f, DAY * f * f, DAY * f ** 3, 4 * DAY, 4 * DAY, 4 * DAY]);
    expect(r.version).toBe(1);
    expect(r.changedAt).toBe(0);
    expect(r.fetchedAt).toBe(6 * DAY);
  });

  it('a changed page found after a long unchanged stretch comes back sooner at once', () => {
    const p = new RevisitPolicy({ intervalMs: DAY });
    const r = { ...p.observe(undefined, URL_A, ok(SHA1, 0)).record!, intervalMs: 4 * DAY };
    expect(p.observe(r, URL_A, ok(SHA2, DAY)).record!.intervalMs).toBe(2 * DAY);
  });

  it('a failed fetch keeps the version and validators, due one interval later', () => {
    const p = new RevisitPolicy({ intervalMs: DAY });
    const r = p.observe(undefined, URL_A, ok(SHA1, 0, { etag: '"v1"' })).record!;
    for (const status of [404, 500, 0]) {
      const out = p.observe(r, URL_A, { status, etag: null, lastModified: null, sha256: null, at: 2 * DAY });
      expect(out.outcome).toBe('failed');
      expect(out.record).toEqual({ ...r, dueAt: 3 * DAY });
    }
    expect(p.observe(undefined, URL_A, notModified(0))).toEqual({ record: undefined, outcome: 'failed' });
  });

  it('a page without a revisit interval is never due, except as a hub', () => {
    const p = new RevisitPolicy({ intervalMs: null });
    const r = p.observe(undefined, URL_A, ok(SHA1, 0)).record!;
    expect(r.dueAt).toBe(Number.POSITIVE_INFINITY);
    expect(p.isDue(r, 100 * DAY)).toBe(false);
    expect(p.isDue(r, 1, true)).toBe(true);
  });

  it('hubs (seeds, feeds, sitemaps, index pages) are due every round', () => {
    const p = new RevisitPolicy({ intervalMs: DAY });
    const r = p.observe(undefined, URL_A, ok(SHA1, 0)).record!;
    expect(p.isDue(r, 1, true)).toBe(true);
    expect(p.isDue(r, 1, false)).toBe(false);
  });
});

describe('RevisitPolicy: conditional requests', () => {
  const p = new RevisitPolicy({ intervalMs: DAY });
  /** A fetch a month after LM. */
  const T = Date.parse('2024-06-01T00:00:00Z');

  it('prefers the ETag (If-None-Match alone); a page without one is asked If-Modified-Since', () => {
    const r = p.observe(undefined, URL_A, ok(SHA1, T, { etag: 'W/"abc"', lastModified: LM })).record!;
    expect(p.conditionalHeaders(r, T)).toEqual({ 'if-none-match': 'W/"abc"' });
    const onlyDate = p.observe(undefined, URL_A, ok(SHA1, T, { lastModified: LM })).record!;
    expect(p.conditionalHeaders(onlyDate, T)).toEqual({ 'if-modified-since': LM });
  });

  it('sends nothing for an unknown page, a page with no validators, or with no stored version', () => {
    expect(p.conditionalHeaders(undefined)).toEqual({});
    expect(p.conditionalHeaders(p.observe(undefined, URL_A, ok(SHA1, T)).record)).toEqual({});
    const unstored: PageRecord = {
      ...p.observe(undefined, URL_A, ok(SHA1, T, { etag: '"e"' })).record!,
      sha256: null,
    };
    expect(p.conditionalHeaders(unstored)).toEqual({});
  });

  it('does not send back a Last-Modified that is not a date', () => {
    const r = p.observe(undefined, URL_A, ok(SHA1, T, { lastModified: 'yesterday-ish' })).record!;
    expect(r.lastModified).toBeNull();
    expect(p.conditionalHeaders(r, T)).toEqual({});
  });

  it('never sends back a Last-Modified later than the response Date or than now (RFC 9110 §8.8.2.1)', () => {
    const future = 'Thu, 01 Jan 2099 00:00:00 GMT';
    const dated = p.observe(undefined, URL_A, ok(SHA1, T, { lastModified: future, date: LM })).record!;
    // kept as the server's claim (its dates are compared with it), marked, never sent
    expect(dated).toMatchObject({ lastModified: future, lastModifiedImplausible: true });
    expect(p.conditionalHeaders(dated, T)).toEqual({});
    // later than the response's own Date, though not than our clock
    const afterDate = ok(SHA1, T, { lastModified: 'Wed, 01 May 2024 10:00:01 GMT', date: LM });
    expect(p.conditionalHeaders(p.observe(undefined, URL_A, afterDate).record, T)).toEqual({});
    // no Date header: checked against the fetch time alone (a minute of skew allowed)
    expect(
      p.conditionalHeaders(p.observe(undefined, URL_A, ok(SHA1, T, { lastModified: future })).record, T),
    ).toEqual({});
    const soon = new Date(T + 30_000).toUTCString();
    expect(
      p.conditionalHeaders(p.observe(undefined, URL_A, ok(SHA1, T, { lastModified: soon })).record, T),
    ).toEqual({
      'if-modified-since': soon,
    });
    const fine = p.observe(undefined, URL_A, ok(SHA1, T, { lastModified: LM, date: LM })).record!;
    expect(fine.lastModifiedImplausible).toBeUndefined();
    expect(p.conditionalHeaders(fine, T)).toEqual({ 'if-modified-since': LM });
    // a plausible one from a 304 clears the mark; the mark survives the state line
    const again = p.observe(dated, URL_A, notModified(T + DAY, { lastModified: LM, date: LM })).record!;
    expect(again.lastModifiedImplausible).toBeUndefined();
    expect(decodeRecord(encodeRecord(dated))).toEqual(dated);
    expect(
      decodeRecord(
        encodeRecord(dated).replace('"lastModifiedImplausible":true', '"lastModifiedImplausible":1'),
      ),
    ).toBeNull();
    // a record of an older log, never marked, is checked again when sent
    const old: PageRecord = { ...fine, lastModified: future };
    expect(p.conditionalHeaders(old, T)).toEqual({});
  });

  it('takes new validators from a 304, and drops stale ones on a change', () => {
    const r = p.observe(undefined, URL_A, ok(SHA1, T, { etag: '"v1"', lastModified: LM })).record!;
    expect(p.observe(r, URL_A, notModified(T + DAY, { etag: '"v1b"' })).record!.etag).toBe('"v1b"');
    expect(p.observe(r, URL_A, notModified(T + DAY)).record!.etag).toBe('"v1"');
    const changed = p.observe(r, URL_A, ok(SHA2, T + DAY)).record!;
    expect(changed.etag).toBeNull();
    expect(changed.lastModified).toBeNull();
  });
});

describe('record lines', () => {
  it('round-trip, infinity included', () => {
    const p = new RevisitPolicy({ intervalMs: null });
    const r = p.observe(undefined, URL_A, ok(SHA1, 5, { etag: '"x"' })).record!;
    expect(decodeRecord(encodeRecord(r))).toEqual(r);
    const q = new RevisitPolicy({ intervalMs: DAY }).observe(undefined, URL_A, ok(SHA1, 5)).record!;
    expect(decodeRecord(encodeRecord(q))).toEqual(q);
  });

  it('refuse torn or damaged lines', () => {
    const good = JSON.parse(
      encodeRecord(new RevisitPolicy({ intervalMs: DAY }).observe(undefined, URL_A, ok(SHA1, 5)).record!),
    );
    expect(decodeRecord(JSON.stringify(good).slice(0, 30))).toBeNull();
    for (const [k, v] of [
      ['url', 3],
      ['sha256', 'xyz'],
      ['version', 0],
      ['version', 1.5],
      ['fetchedAt', -1],
      ['intervalMs', 'x'],
      ['dueAt', 'soon'],
      ['etag', 7],
    ] as const) {
      expect(decodeRecord(JSON.stringify({ ...good, [k]: v }))).toBeNull();
    }
    expect(decodeRecord('null')).toBeNull();
  });
});
