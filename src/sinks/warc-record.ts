/**
 * WARC 1.1 records (ISO 28500:2017) as bytes: each record is its own gzip member, so a file of
 * them can be split at any record and read from any record's offset. Digests are SHA-1 in base32
 * (`sha1:…`, the form WARC tools write and compare); the block digest covers the whole block, the
 * payload digest the HTTP body as transferred. Also the CDXJ line of a record (the index replay
 * tools read), with its SURT key made as webrecorder's warcio makes it.
 */
import { createHash, randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import type { Exchange } from '../http/exchange.js';

/** The WARC version line every record starts with. */
export const WARC_VERSION = 'WARC/1.1';

/** `WARC-Profile` of a revisit whose server answered 304 Not Modified (WARC 1.1 §6.7.2). */
export const PROFILE_NOT_MODIFIED = 'http://netpreserve.org/warc/1.1/revisit/server-not-modified';

/** `WARC-Profile` of a revisit whose payload is identical to an earlier record's (§6.7.2). */
export const PROFILE_IDENTICAL = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';

/**
 * gzip level of each record: zlib's default, the usual trade-off of WARC writers. Compression
 * runs on the crawler's thread when an item is written; level 6 costs about 0.5 ms per 50 KB of
 * HTML on the machines this runs on.
 */
export const WARC_GZIP_LEVEL = 6;

/** A new `WARC-Record-ID`: `<urn:uuid:…>`. */
export function recordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/** WARC-Date form: ISO 8601 UTC with milliseconds (WARC 1.1 allows fractions of a second). */
export function warcDate(ms: number): string {
  return new Date(ms).toISOString();
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 (no padding is needed for the 20 bytes of SHA-1). */
function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** `sha1:<base32>` of the given parts, in order. */
export function sha1Digest(...parts: Buffer[]): string {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return `sha1:${base32(h.digest())}`;
}

/** One record's named fields (in order) and its block. */
export interface RecordParts {
  /** `[name, value]` header fields after the version line, without Content-Length (added). */
  fields: Array<[string, string]>;
  /** The block, in pieces (concatenated in order). */
  block: Buffer[];
}

const CRLF = Buffer.from('\r\n');
const END = Buffer.from('\r\n\r\n');

/** A record as one gzip member: version line, fields, Content-Length, CRLF, block, CRLF CRLF. */
export function gzipRecord(r: RecordParts): Buffer {
  let length = 0;
  for (const b of r.block) length += b.length;
  let head = `${WARC_VERSION}\r\n`;
  for (const [k, v] of r.fields) head += `${k}: ${v}\r\n`;
  head += `Content-Length: ${length}\r\n`;
  return zlib.gzipSync(Buffer.concat([Buffer.from(head, 'utf8'), CRLF, ...r.block, END]), {
    level: WARC_GZIP_LEVEL,
  });
}

/**
 * The response head as received: status line, then the fields in their order and case, with
 * `Transfer-Encoding` renamed `X-Crawler-Transfer-Encoding` (the block holds the body without its
 * chunked framing, as Common Crawl's WARCs do), then the blank line.
 */
export function responseHead(ex: Exchange): Buffer {
  let head = `HTTP/1.1 ${ex.status}${ex.statusText === '' ? '' : ` ${ex.statusText}`}\r\n`;
  for (const [k, v] of ex.headers) {
    const name = k.toLowerCase() === 'transfer-encoding' ? `X-Crawler-${k}` : k;
    head += `${name}: ${v}\r\n`;
  }
  return Buffer.from(`${head}\r\n`, 'latin1');
}

/**
 * The request head as sent, without header fields named in `hidden` (lowercase; the source's
 * `authorize()` credentials, which are never written anywhere).
 */
export function requestHead(ex: Exchange, hidden: ReadonlySet<string>): Buffer {
  let head = ex.requestHead;
  if (hidden.size > 0) {
    head = head
      .split('\r\n')
      .filter((line, i) => i === 0 || !hidden.has(line.slice(0, line.indexOf(':')).trim().toLowerCase()))
      .join('\r\n');
  }
  return Buffer.from(`${head.endsWith('\r\n') ? head : `${head}\r\n`}\r\n`, 'latin1');
}

/** The first value of header `name` (case-insensitive) among an exchange's fields, or null. */
export function exchangeHeader(ex: Exchange, name: string): string | null {
  for (const [k, v] of ex.headers) if (k.toLowerCase() === name) return v;
  return null;
}

/**
 * SURT form of a URL for a CDXJ key, as warcio (webrecorder) makes it: lowercased, a leading
 * `www.`/`wwwN.` dropped, host labels reversed and joined by commas, `)`, the path, and the query
 * arguments sorted: `http://www.Example.com/a?b=1&a=2` → `com,example)/a?a=2&b=1`.
 */
export function surt(url: string): string {
  if (!/^https?:/.test(url)) return url;
  try {
    const u = new URL(url.replace(/^(https?:\/\/)www\d*\./, '$1').toLowerCase());
    let key = u.hostname.split('.').reverse().join(',');
    if (u.port) key += `:${u.port}`;
    key += `)${u.pathname}`;
    if (u.search) key += `?${u.search.slice(1).split('&').sort().join('&')}`;
    return key;
  } catch {
    return url;
  }
}

/** What a CDXJ line says of one response or revisit record. */
export interface CdxEntry {
  url: string;
  /** WARC-Date of the record. */
  date: string;
  /** Media type without parameters (`warc/revisit` for a revisit); null when none. */
  mime: string | null;
  status: number;
  /** Payload digest without its `sha1:` prefix; null when none. */
  digest: string | null;
  /** Record's place in its WARC file, bytes (the gzip member). */
  offset: number;
  length: number;
  /** The WARC file's name (no directory: the index sits beside it). */
  filename: string;
}

/**
 * One CDXJ line (without newline): `<surt> <14-digit timestamp> {json}`, the fields warcio's
 * indexer writes (`url`, `mime`, `status`, `digest`, `length`, `offset`, `filename`; numbers as
 * strings), so pywb and wabac.js read it.
 */
export function cdxjLine(e: CdxEntry): string {
  const timestamp = e.date.replace(/[-:T]/g, '').slice(0, 14);
  const json: Record<string, string> = { url: e.url };
  if (e.mime !== null) json.mime = e.mime;
  json.status = String(e.status);
  if (e.digest !== null) json.digest = e.digest;
  json.length = String(e.length);
  json.offset = String(e.offset);
  json.filename = e.filename;
  return `${surt(e.url)} ${timestamp} ${JSON.stringify(json)}`;
}
