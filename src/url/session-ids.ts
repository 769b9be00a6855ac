/**
 * Session-id removal, a canonicalization rule in the manner of Heritrix's `StripSessionIDs` and
 * `StripSessionCFIDs`: sites that keep sessions in URLs mint a new id on every page, which makes
 * one page a new URL each time and a finite site an endless crawl. Removing them leaves one URL
 * per page (the cookie jar keeps the session instead). Tracking parameters (`utm_*`, `fbclid`...:
 * `tracking-params.ts`) are removed by the same pass, for the same reason.
 *
 * It is applied where a URL enters the crawl (seeds, links, redirect targets), after
 * `canonicalize`, never to URLs read back from the state: a URL journaled by an earlier version
 * with a tracking parameter is fetched as journaled, not lost, and its done line still matches.
 */
import { TrackingParams } from './tracking-params.js';

/**
 * Parameter names taken as session ids, lowercase, in the query (`?PHPSESSID=…&`) and as path
 * parameters (`/page;jsessionid=…`): Java servlets' `jsessionid`, PHP's `phpsessid`, the generic
 * `sessionid` and `session_id`, ColdFusion's `cfid` / `cftoken`, and classic ASP's
 * `aspsessionid` + 8 letters (by prefix). `sid` is one only with a token of 16 or more letters
 * and digits (Heritrix asks for 32; shorter `sid` values are too often ids of other things).
 */
export const SESSION_ID_PARAMS = [
  'jsessionid',
  'phpsessid',
  'sessionid',
  'session_id',
  'cfid',
  'cftoken',
  'sid',
  'aspsessionid*',
] as const;

const EXACT = new Set(['jsessionid', 'phpsessid', 'sessionid', 'session_id', 'cfid', 'cftoken']);

/** A `sid` value that looks like a session token. */
const SID_VALUE = /^[0-9A-Za-z]{16,}$/;

/**
 * ASP.NET cookieless session path segment: `(S(lit3py55t21z5v55vlm25s55))`, `(X(1)S(…))`;
 * removed too unless `aspnet` is kept.
 */
const ASPNET_SEGMENT = /^\((?:[A-Z]\([0-9A-Za-z_-]*\))+\)$/;

/**
 * Removes session-id parameters (see {@link SESSION_ID_PARAMS}) and tracking parameters (see
 * `TRACKING_PARAMS`) from canonical URLs, except the names the user keeps.
 */
export class SessionIdStripper {
  private readonly keep: Set<string>;
  private readonly tracking: TrackingParams;

  /**
   * @param keep parameter names to leave in URLs (case-insensitive), e.g. `['sid']` for a site
   *   whose `sid` is a section id; `aspsessionid` keeps the whole ASP family, `utm_*` every `utm_`.
   * @param tracking more tracking parameter names to remove (config `trackingParams`).
   */
  constructor(keep: readonly string[] = [], tracking: readonly string[] = []) {
    this.keep = new Set(keep.map((k) => k.toLowerCase()));
    this.tracking = new TrackingParams(tracking, keep);
  }

  /** Whether a parameter (`name`, `value` as written) is a session id to remove. */
  private isSessionId(name: string, value: string): boolean {
    const n = name.toLowerCase();
    if (this.keep.has(n)) return false;
    if (EXACT.has(n)) return true;
    if (n === 'sid') return SID_VALUE.test(value);
    return n.startsWith('aspsessionid') && n.length === 20 && !this.keep.has('aspsessionid');
  }

  /**
   * `url` without its tracking and session-id parameters: session-id path parameters
   * `;name=value` (to the next `;`, `/` or the query), ASP.NET `(S(…))` path segments, and
   * tracking and session-id query parameters (order of the others kept; a query left empty is
   * dropped with its `?`). Returns the same string when nothing is removed; a URL without a query
   * costs three `indexOf`s.
   * @param url a canonical URL (no fragment).
   */
  strip(url: string): string {
    const semi = url.indexOf(';');
    const paren = url.indexOf('(');
    const q = url.indexOf('?');
    let path = q === -1 ? url : url.slice(0, q);
    let query = q === -1 ? null : url.slice(q + 1);
    let changed = false;
    if ((semi !== -1 && (q === -1 || semi < q)) || (paren !== -1 && (q === -1 || paren < q))) {
      const p = this.stripPath(path);
      if (p !== path) {
        path = p;
        changed = true;
      }
    }
    if (query !== null) {
      const s = this.stripQuery(query);
      if (s !== query) {
        query = s;
        changed = true;
      }
    }
    if (!changed) return url;
    return query === null || query === '' ? path : `${path}?${query}`;
  }

  private stripPath(path: string): string {
    const start = path.indexOf('/', path.indexOf('//') + 2);
    if (start === -1) return path;
    const segments = path.slice(start).split('/');
    const kept: string[] = [];
    for (const seg of segments) {
      if (ASPNET_SEGMENT.test(seg) && !this.keep.has('aspnet')) continue;
      if (seg.indexOf(';') === -1) {
        kept.push(seg);
        continue;
      }
      const [head, ...params] = seg.split(';');
      const rest = params.filter((p) => {
        const eq = p.indexOf('=');
        return !this.isSessionId(eq === -1 ? p : p.slice(0, eq), eq === -1 ? '' : p.slice(eq + 1));
      });
      kept.push([head, ...rest].join(';'));
    }
    const out = path.slice(0, start) + kept.join('/');
    return out === path.slice(0, start) ? `${out}/` : out;
  }

  private stripQuery(query: string): string {
    const pairs = query.split('&');
    const kept = pairs.filter((p) => {
      const eq = p.indexOf('=');
      const name = eq === -1 ? p : p.slice(0, eq);
      return !this.tracking.has(name) && !this.isSessionId(name, eq === -1 ? '' : p.slice(eq + 1));
    });
    return kept.length === pairs.length ? query : kept.join('&');
  }
}
