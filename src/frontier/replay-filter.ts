/**
 * Checks each line read back from a state log (the frontier log, handoff logs) before its URL
 * re-enters a frontier: `depth<TAB>url`, or `depth<TAB>url<TAB>metadata` for a request with
 * metadata (JSON, checked field by field: `request-meta.ts`), with a depth that is a non-negative
 * integer, a canonical http(s) URL, in scope, and owned by the worker it is for. A log is trusted no further than
 * that: a damaged or hand-edited line is counted by reason and skipped — never fetched, never a
 * crash or a hang — and reported once per file.
 */
import { canonicalize } from '../url/canonicalize.js';
import { parseRequestMeta, type RequestMeta } from './request-meta.js';

/** Why a line was skipped: a malformed line, or the rule it breaks (scope verdicts as named there). */
export type LineReject = 'malformed' | 'bad depth' | 'bad metadata' | 'not a URL' | 'not owned' | string;

/** Largest depth accepted from a log (a larger number is damage, not a crawl). */
export const MAX_REPLAY_DEPTH = 1_000_000;

/** A parsed log line. */
export interface LogEntry {
  url: string;
  depth: number;
  /** The request's metadata, when the line has some. */
  meta?: RequestMeta;
}

/** The rules a URL read back must pass, beyond being a canonical http(s) URL. */
export interface ReplayRules {
  /** The scope verdict of the URL (`'ok'` or the reason it is not followed). */
  scope?: (url: string) => string;
  /** The worker number owning a URL (compared with the worker number the log is for). */
  owner?: (url: string) => number;
  /** This worker's number: whom its frontier log is for. Default 0. */
  self?: number;
}

/** Parses and checks log lines; counts the rejected ones by reason. */
export class ReplayFilter {
  /** Rejected lines by reason. */
  readonly rejected = new Map<LineReject, number>();

  constructor(private readonly rules: ReplayRules = {}) {}

  /** Lines rejected so far. */
  get total(): number {
    let n = 0;
    for (const v of this.rejected.values()) n += v;
    return n;
  }

  /**
   * Split `depth<TAB>url[<TAB>metadata]` (structure and metadata only: no URL or rule check).
   * @returns the entry, or null (counted) when the line is malformed, the depth is not a number or
   *   the metadata is not valid.
   */
  parse(line: string): LogEntry | null {
    const tab = line.indexOf('\t');
    if (tab < 0) return this.reject('malformed');
    const d = line.slice(0, tab);
    const depth = /^\d{1,7}$/.test(d) ? Number(d) : -1;
    if (depth < 0 || depth > MAX_REPLAY_DEPTH) return this.reject('bad depth');
    const second = line.indexOf('\t', tab + 1);
    if (second < 0) return { url: line.slice(tab + 1), depth };
    const meta = parseRequestMeta(line.slice(second + 1));
    if (meta === null) return this.reject('bad metadata');
    return { url: line.slice(tab + 1, second), depth, meta };
  }

  /**
   * Whether a parsed entry may re-enter the frontier of worker `forOwner` (default: this
   * worker), counted when not. Costs a canonicalization: call it for URLs not already known.
   */
  accept(entry: LogEntry, forOwner = this.rules.self ?? 0): boolean {
    const url = entry.url;
    let reason: LineReject | null = null;
    if (!/^https?:\/\//.test(url) || canonicalize(url) !== url) reason = 'not a URL';
    else {
      const verdict = this.rules.scope?.(url) ?? 'ok';
      if (verdict !== 'ok') reason = verdict;
      else if (this.rules.owner && this.rules.owner(url) !== forOwner) reason = 'not owned';
    }
    if (reason === null) return true;
    this.reject(reason);
    return false;
  }

  /** `parse` then `accept`. */
  entry(line: string, forOwner = this.rules.self ?? 0): LogEntry | null {
    const e = this.parse(line);
    return e !== null && this.accept(e, forOwner) ? e : null;
  }

  /**
   * One line for the user, or null when nothing was rejected:
   * `<file>: 3 invalid lines skipped (bad depth 1, not a URL 1, out-of-scope 1)`.
   */
  describe(file: string): string | null {
    const n = this.total;
    if (n === 0) return null;
    const reasons = [...this.rejected].map(([k, v]) => `${k} ${v}`).join(', ');
    return `${file}: ${n} invalid line${n === 1 ? '' : 's'} skipped (${reasons})`;
  }

  private reject(reason: LineReject): null {
    this.rejected.set(reason, (this.rejected.get(reason) ?? 0) + 1);
    return null;
  }
}
