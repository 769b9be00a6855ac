/**
 * A source's requests as the engine takes them: the URL canonicalized (relative ones resolved
 * against the page), the metadata checked and kept only when there is some, so a plain link stays
 * a string all the way through the frontier. Bad metadata is a source bug, reported with the field
 * that is wrong; credentials in `headers` are refused, since requests are written to state.
 */

import { parseDate } from '../extract/dates.js';
import type { RequestMeta } from '../frontier/request-meta.js';
import { canonicalize } from '../url/canonicalize.js';
import type { Request } from './source.js';

/** Bounds on what a request may carry (it is written to the state files and sent between processes). */
export const REQUEST_LIMITS = {
  /** Characters of a label. */
  labelChars: 200,
  /** Headers per request. */
  headers: 32,
  /** Characters of one header value. */
  headerValueChars: 8192,
  /** Bytes of userData as JSON. */
  userDataBytes: 64 * 1024,
  /** Largest |priority|. */
  priority: 1_000_000,
} as const;

/**
 * Header names refused in a request: they carry credentials, and requests are stored. A source
 * sends them with `authorize()`, applied at send time.
 */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
]);

/**
 * Headers the engine sets itself; a request may not change them (`host` and the framing headers
 * would break the exchange, `accept-encoding` the body decoding).
 */
const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'accept-encoding',
]);

/** An RFC 9110 token (a header name). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value: no control characters but tab. */
const FIELD_VALUE = /^[^\x00-\x08\x0a-\x1f\x7f]*$/;

/** A request with metadata, as it travels between threads and processes. */
export interface RequestWithMeta {
  url: string;
  meta: RequestMeta;
}

/** A normalized request: a canonical URL, or a canonical URL with its metadata. */
export type EngineRequest = string | RequestWithMeta;

/** A request the source got wrong: the message names the field (`follow[2].label: ...`). */
export class RequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RequestError';
  }
}

/** The URL of a normalized request. */
export function urlOf(r: EngineRequest): string {
  return typeof r === 'string' ? r : r.url;
}

/** The metadata of a normalized request, or undefined. */
export function metaOf(r: EngineRequest): RequestMeta | undefined {
  return typeof r === 'string' ? undefined : r.meta;
}

/**
 * Normalize one request.
 * @param base URL relative requests resolve against (the page's final URL); none for seeds.
 * @param at how to name it in messages, e.g. `follow[3]`.
 * @returns the normalized request, or null when its URL is not http(s) (skipped, like a
 *   `mailto:` link).
 * @throws RequestError when the request is not a string or object, or a field is wrong.
 */
export function normalizeRequest(r: Request, base: string | undefined, at: string): EngineRequest | null {
  if (typeof r === 'string') return canonicalize(r, base);
  if (r === null || typeof r !== 'object') {
    throw new RequestError(`${at}: expected a URL string or { url, ... }, got ${describe(r)}`);
  }
  if (typeof r.url !== 'string')
    throw new RequestError(`${at}.url: expected a string, got ${describe(r.url)}`);
  const url = canonicalize(r.url, base);
  if (url === null) return null;
  const meta: RequestMeta = {};
  let any = false;
  for (const key of Object.keys(r)) {
    const v = (r as unknown as Record<string, unknown>)[key];
    if (v === undefined || key === 'url') continue;
    switch (key) {
      case 'label':
        if (typeof v !== 'string' || v.length > REQUEST_LIMITS.labelChars) {
          throw new RequestError(
            `${at}.label: expected a string of at most ${REQUEST_LIMITS.labelChars} characters`,
          );
        }
        meta.label = v;
        break;
      case 'headers':
        meta.headers = checkHeaders(v, `${at}.headers`);
        if (Object.keys(meta.headers).length === 0) {
          delete meta.headers;
          continue;
        }
        break;
      case 'priority':
        if (!Number.isInteger(v) || Math.abs(v as number) > REQUEST_LIMITS.priority) {
          throw new RequestError(`${at}.priority: expected an integer within ±${REQUEST_LIMITS.priority}`);
        }
        if (v === 0) continue;
        meta.priority = v as number;
        break;
      case 'userData':
        // As it will be after a resume: what JSON keeps of it (a Date becomes its string).
        meta.userData = jsonCopy(v, `${at}.userData`);
        break;
      case 'store':
      case 'robots':
        if (typeof v !== 'boolean') throw new RequestError(`${at}.${key}: expected true or false`);
        if (v) continue;
        meta[key] = false;
        break;
      case 'everyRound':
        if (typeof v !== 'boolean') throw new RequestError(`${at}.everyRound: expected true or false`);
        if (!v) continue;
        meta.everyRound = true;
        break;
      case 'scope':
        if (typeof v !== 'boolean') throw new RequestError(`${at}.scope: expected true or false`);
        if (v) continue;
        meta.scope = false;
        break;
      case 'lastmod': {
        const ms = lastmodOf(v);
        if (ms === undefined) {
          throw new RequestError(`${at}.lastmod: expected epoch milliseconds, a Date or a date string`);
        }
        if (ms === null) continue;
        meta.lastmod = ms;
        break;
      }
      default:
        throw new RequestError(
          `${at}: unknown key "${key}" (expected url, label, headers, priority, userData, store, robots, everyRound, scope, lastmod)`,
        );
    }
    any = true;
  }
  return any ? { url, meta } : url;
}

/**
 * A request's `lastmod` as epoch ms: a number, a Date or a date string (`parseDate`'s forms);
 * null for null or an unreadable date string (no claim), undefined for any other type.
 */
function lastmodOf(v: unknown): number | null | undefined {
  if (v === null) return null;
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? Math.floor(v) : undefined;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.getTime();
  if (typeof v === 'string') return parseDate(v);
  return undefined;
}

/**
 * Normalize a list of requests (a `follow` or a `seeds()` result).
 * @param name how to name the list in messages, e.g. `follow`.
 * @throws RequestError when it is not an array or an entry is wrong.
 */
export function normalizeRequests(list: unknown, base: string | undefined, name: string): EngineRequest[] {
  if (!Array.isArray(list)) throw new RequestError(`${name}: expected an array, got ${describe(list)}`);
  const out: EngineRequest[] = [];
  for (let i = 0; i < list.length; i++) {
    const r = normalizeRequest(list[i] as Request, base, `${name}[${i}]`);
    if (r !== null) out.push(r);
  }
  return out;
}

function checkHeaders(v: unknown, at: string): Record<string, string> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new RequestError(`${at}: expected an object of header names to strings`);
  }
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > REQUEST_LIMITS.headers) {
    throw new RequestError(`${at}: more than ${REQUEST_LIMITS.headers} headers`);
  }
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) throw new RequestError(`${at}: "${name}" is not a header name`);
    if (CREDENTIAL_HEADERS.has(lower)) {
      throw new RequestError(
        `${at}.${name}: credentials are not stored with requests; add them in the source's authorize()`,
      );
    }
    if (RESERVED_HEADERS.has(lower)) throw new RequestError(`${at}.${name}: set by the collector itself`);
    if (
      typeof value !== 'string' ||
      value.length > REQUEST_LIMITS.headerValueChars ||
      !FIELD_VALUE.test(value)
    ) {
      throw new RequestError(
        `${at}.${name}: expected a string without control characters, at most ${REQUEST_LIMITS.headerValueChars} characters`,
      );
    }
    out[lower] = value;
  }
  return out;
}

function jsonCopy(v: unknown, at: string): unknown {
  let json: string | undefined;
  try {
    json = JSON.stringify(v);
  } catch (e) {
    throw new RequestError(`${at}: not JSON (${(e as Error).message})`);
  }
  if (json === undefined) throw new RequestError(`${at}: not JSON (${typeof v})`);
  if (Buffer.byteLength(json) > REQUEST_LIMITS.userDataBytes) {
    throw new RequestError(`${at}: more than ${REQUEST_LIMITS.userDataBytes} bytes as JSON`);
  }
  return JSON.parse(json);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : typeof v;
}
