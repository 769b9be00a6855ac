/**
 * Revisit policy: when a known page is due to be fetched again, with which validators
 * (`If-None-Match`, `If-Modified-Since`, RFC 9110 §13.1), and how its interval adapts — sooner
 * for pages that change, later for pages that do not, within `[revisit/4, revisit×4]`. Pure: the
 * caller keeps one {@link PageRecord} per URL (see {@link encodeRecord} for its state line) and
 * passes the clock in.
 *
 * Versions (how the engine is to use this with the file sink, issue 11 §5 and issue 18 §1): a
 * fetch whose body differs from the record's `sha256` is a new version (`version` + 1); its item
 * says `data.version` and `data.round`; a 304 or an identical body writes an item with
 * `data.unchanged: true` and stores nothing. With versions on, the sink stores each version under
 * an immutable, content-named file that the item's `file` names, and keeps the current version at
 * the page's own path (see `sinks/file-sink.ts`), so an item's `file` always holds exactly the
 * bytes of its `sha256`.
 */

/** Defaults of the adaptive interval (factors of the configured `revisit` interval). */
export const REVISIT_DEFAULTS = {
  /** Shortest interval, as a fraction of the configured one (issue 11: revisit/4). */
  minFactor: 0.25,
  /** Longest interval, as a multiple of the configured one (issue 11: revisit×4). */
  maxFactor: 4,
  /** A changed page's interval is multiplied by this (halved: it changes, look sooner). */
  changedFactor: 0.5,
  /** An unchanged page's interval is multiplied by this (it grows more slowly than it shrinks). */
  unchangedFactor: 1.5,
} as const;

/** One URL-pattern rule: pages whose URL matches `pattern` are revisited every `intervalMs`. */
export interface RevisitRule {
  /** Tested against the whole canonical URL. */
  pattern: RegExp;
  /** Base interval, ms (> 0). */
  intervalMs: number;
}

/** Options of a {@link RevisitPolicy}. */
export interface RevisitOptions {
  /** Base interval for pages no rule matches, ms; null = such pages are not revisited. */
  intervalMs: number | null;
  /** Per-pattern intervals; the first matching rule wins over `intervalMs`. */
  rules?: readonly RevisitRule[];
}

/** What is known of a page between rounds: one record per URL. */
export interface PageRecord {
  /** Canonical URL. */
  url: string;
  /** `ETag` of the stored version (as received, weak `W/` prefix kept), or null. */
  etag: string | null;
  /** `Last-Modified` of the stored version (the HTTP-date as received), or null. */
  lastModified: string | null;
  /**
   * `true`: that `Last-Modified` is implausible (later than its response's `Date`, or than our
   * clock + {@link CLOCK_SKEW_MS}: RFC 9110 §8.8.2.1): never sent back as `If-Modified-Since`, only
   * compared with the same server's dates. Absent otherwise.
   */
  lastModifiedImplausible?: true;
  /** Hex SHA-256 of the current version's body, or null if none was stored. */
  sha256: string | null;
  /** Number of the current version: 1 for the first body seen, + 1 per change. */
  version: number;
  /** Last successful fetch (2xx or 304), epoch ms. */
  fetchedAt: number;
  /** When the current version was first seen, epoch ms. */
  changedAt: number;
  /** The adapted interval, ms. */
  intervalMs: number;
  /** When the page is next due, epoch ms. */
  dueAt: number;
}

/** What one fetch of a page returned, as the policy needs it. */
export interface FetchObservation {
  /** Final HTTP status (after redirects). */
  status: number;
  /** `ETag` response header, or null. */
  etag: string | null;
  /** `Last-Modified` response header, or null. */
  lastModified: string | null;
  /**
   * `Date` response header, or null/absent: a `Last-Modified` later than it is implausible
   * (RFC 9110 §8.8.2.1) and not kept.
   */
  date?: string | null;
  /** Hex SHA-256 of the body (2xx), else null. */
  sha256: string | null;
  /** When the response arrived, epoch ms. */
  at: number;
}

/**
 * The outcome of a fetch: `new` (first body), `changed` (a new version), `unchanged` (same body
 * or 304 Not Modified), `failed` (anything else: the record's validators and version stay).
 */
export type RevisitOutcome = 'new' | 'changed' | 'unchanged' | 'failed';

/** Applies the configured revisit intervals and adapts them per page. */
export class RevisitPolicy {
  private readonly intervalMs: number | null;
  private readonly rules: readonly RevisitRule[];

  /** @throws RangeError when an interval is not a positive finite number. */
  constructor(opts: RevisitOptions) {
    for (const ms of [opts.intervalMs, ...(opts.rules ?? []).map((r) => r.intervalMs)]) {
      if (ms !== null && !(Number.isFinite(ms) && ms > 0)) {
        throw new RangeError(`revisit: an interval must be a positive number of ms, got ${ms}`);
      }
    }
    this.intervalMs = opts.intervalMs;
    this.rules = opts.rules ?? [];
  }

  /** The configured (base) interval for a URL in ms, or null when it is not revisited. */
  baseIntervalFor(url: string): number | null {
    for (const rule of this.rules) if (rule.pattern.test(url)) return rule.intervalMs;
    return this.intervalMs;
  }

  /**
   * Whether a known page is due at `now`. Hubs (seeds, feeds, sitemaps, index pages: the pages
   * through which new pages are found) are due every round, whatever their record says.
   */
  isDue(record: PageRecord, now: number, hub = false): boolean {
    if (hub) return true;
    if (this.baseIntervalFor(record.url) === null) return false;
    return now >= record.dueAt;
  }

  /**
   * The conditional headers for a request of a known page, only when a version is held (a 304
   * means "use what you have"; with nothing stored it would lose the page): `If-None-Match` with
   * its ETag when it has one — the ETag is preferred, and `If-Modified-Since` is then not sent,
   * so a server that compares dates naively cannot answer "not modified" by a date (RFC 9110
   * §13.1.3 has a server ignore it anyway) — else `If-Modified-Since` with its Last-Modified,
   * when that is plausible: not later than `now` (+ {@link CLOCK_SKEW_MS}, RFC 9110 §8.8.2.1; one kept from a response is
   * already checked against that response's `Date`). With neither, nothing: the page is fetched
   * whole and its body hash compared.
   * @param now epoch ms.
   * @returns lowercase header names → values; empty for an unknown page.
   */
  conditionalHeaders(record: PageRecord | undefined, now = Date.now()): Record<string, string> {
    if (record === undefined || record.sha256 === null) return {};
    if (record.etag !== null) return { 'if-none-match': record.etag };
    const lm = record.lastModified;
    if (lm === null || record.lastModifiedImplausible === true || !isPlausible(lm, null, now)) return {};
    return { 'if-modified-since': lm };
  }

  /**
   * The record after a fetch, and what the fetch was.
   *
   * - 2xx, no record: `new`, version 1, interval = base.
   * - 2xx, body hash differs: `changed`, version + 1, interval × {@link REVISIT_DEFAULTS}.changedFactor.
   * - 2xx with the same hash, or 304: `unchanged`, interval × unchangedFactor; a 304's validators
   *   replace the stored ones when it sends new ones (RFC 9110 §15.4.5).
   * - anything else (4xx, 5xx, network: status 0): `failed`; the record is kept (or none made)
   *   and due again one interval later — retrying sooner is the retry policy's job.
   * Intervals stay within [base × minFactor, base × maxFactor]; a URL without a base interval
   * keeps `intervalMs` at 0 and `dueAt` at infinity (never due, except as a hub).
   */
  observe(
    record: PageRecord | undefined,
    url: string,
    obs: FetchObservation,
  ): {
    record: PageRecord | undefined;
    outcome: RevisitOutcome;
  } {
    const base = this.baseIntervalFor(url);
    const ok = obs.status >= 200 && obs.status < 300;
    if (!ok && obs.status !== 304) {
      if (record === undefined) return { record: undefined, outcome: 'failed' };
      return { record: { ...record, dueAt: due(obs.at, record.intervalMs) }, outcome: 'failed' };
    }
    if (record === undefined) {
      if (obs.status === 304) return { record: undefined, outcome: 'failed' }; // nothing to be "not modified" from
      const intervalMs = base ?? 0;
      const fresh: PageRecord = {
        url,
        etag: obs.etag,
        lastModified: validDate(obs.lastModified),
        sha256: obs.sha256,
        version: 1,
        fetchedAt: obs.at,
        changedAt: obs.at,
        intervalMs,
        dueAt: due(obs.at, intervalMs),
      };
      return { record: withPlausibility(fresh, obs), outcome: 'new' };
    }
    const changed = obs.status !== 304 && obs.sha256 !== record.sha256;
    const intervalMs = adapt(record.intervalMs, base, changed);
    const lastModified = validDate(obs.lastModified);
    let next: PageRecord = {
      ...record,
      etag: obs.etag ?? (changed ? null : record.etag),
      fetchedAt: obs.at,
      intervalMs,
      dueAt: due(obs.at, intervalMs),
    };
    if (lastModified !== null) next = withPlausibility({ ...next, lastModified }, obs);
    else if (changed) {
      next.lastModified = null;
      delete next.lastModifiedImplausible;
    }
    if (changed) {
      next.sha256 = obs.sha256;
      next.version = record.version + 1;
      next.changedAt = obs.at;
    }
    return { record: next, outcome: changed ? 'changed' : 'unchanged' };
  }
}

/** The next interval: shrunk on change, grown otherwise, kept within the base's bounds. */
function adapt(current: number, base: number | null, changed: boolean): number {
  if (base === null) return 0;
  const from = current > 0 ? current : base;
  const next = from * (changed ? REVISIT_DEFAULTS.changedFactor : REVISIT_DEFAULTS.unchangedFactor);
  return Math.min(base * REVISIT_DEFAULTS.maxFactor, Math.max(base * REVISIT_DEFAULTS.minFactor, next));
}

function due(at: number, intervalMs: number): number {
  return intervalMs > 0 ? at + intervalMs : Number.POSITIVE_INFINITY;
}

/**
 * How far a `Last-Modified` may be ahead of our clock and still be kept, ms: the server's clock
 * and ours differ by a little (its `Date`, when sent, is checked exactly: both are its clock).
 */
export const CLOCK_SKEW_MS = 60_000;

/** A Last-Modified value that parses as a date (RFC 9110 §8.8.2), trimmed; else null. */
function validDate(value: string | null): string | null {
  if (value === null) return null;
  const v = value.trim();
  return v !== '' && !Number.isNaN(Date.parse(v)) ? v : null;
}

/**
 * Whether a (valid) Last-Modified is plausible (RFC 9110 §8.8.2.1): not later than the response's
 * own `Date` (when that parses) nor than `now` (epoch ms) + {@link CLOCK_SKEW_MS}. A server whose
 * clock or files say "modified in the future" would otherwise be asked "modified since <the
 * future>?" and, comparing naively, answer 304 for ever.
 */
export function isPlausible(lastModified: string, date: string | null, now: number): boolean {
  const at = Date.parse(lastModified);
  if (at > now + CLOCK_SKEW_MS) return false;
  const sent = date === null ? Number.NaN : Date.parse(date);
  return Number.isNaN(sent) || at <= sent;
}

/** `record` with its `lastModifiedImplausible` flag set from the response `obs`. */
function withPlausibility(record: PageRecord, obs: FetchObservation): PageRecord {
  const { lastModifiedImplausible: _, ...rest } = record;
  const lm = rest.lastModified;
  return lm !== null && !isPlausible(lm, obs.date ?? null, obs.at)
    ? { ...rest, lastModifiedImplausible: true }
    : rest;
}

// ---------------------------------------------------------------------------------------------
// State lines

/**
 * One state line for a record (JSON, no newline). `dueAt` of infinity is written as null.
 * An append-only file of these lines, replayed with {@link decodeRecord} keeping the last valid
 * line per URL, is the policy's crash-safe state.
 */
export function encodeRecord(r: PageRecord): string {
  return JSON.stringify({ ...r, dueAt: Number.isFinite(r.dueAt) ? r.dueAt : null });
}

/**
 * Reads one state line back, validating every field; a torn or damaged line gives null (the
 * caller skips it and counts it), never a half-valid record.
 */
export function decodeRecord(line: string): PageRecord | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (v === null || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const str = (x: unknown) => typeof x === 'string';
  const strOrNull = (x: unknown) => x === null || typeof x === 'string';
  const num = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x >= 0;
  if (!str(o.url) || !strOrNull(o.etag) || !strOrNull(o.lastModified) || !strOrNull(o.sha256)) return null;
  if (o.sha256 !== null && !/^[0-9a-f]{64}$/.test(o.sha256 as string)) return null;
  if (!Number.isInteger(o.version) || (o.version as number) < 1) return null;
  if (!num(o.fetchedAt) || !num(o.changedAt) || !num(o.intervalMs)) return null;
  if (o.dueAt !== null && !num(o.dueAt)) return null;
  if (o.lastModifiedImplausible !== undefined && o.lastModifiedImplausible !== true) return null;
  const record: PageRecord = {
    url: o.url as string,
    etag: o.etag as string | null,
    lastModified: o.lastModified as string | null,
    sha256: o.sha256 as string | null,
    version: o.version as number,
    fetchedAt: o.fetchedAt as number,
    changedAt: o.changedAt as number,
    intervalMs: o.intervalMs as number,
    dueAt: o.dueAt === null ? Number.POSITIVE_INFINITY : (o.dueAt as number),
  };
  if (o.lastModifiedImplausible === true) record.lastModifiedImplausible = true;
  return record;
}
