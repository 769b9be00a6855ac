/**
 * Removal of Content-Encoding (gzip, deflate in zlib or raw form, br) with an output limit, so a
 * decompression bomb stops at `maxBytes`. A body labelled gzip that is not gzip is used as is, and
 * so is one under an unknown label whose bytes plainly are the declared Content-Type.
 */
import zlib from 'node:zlib';
import { plainlyOfType } from './mime-sniff.js';

/** Outcome of {@link decodeContent}. */
export interface DecodedContent {
  /** The body after decoding (or the raw bytes when `flag` says so). */
  body: Buffer;
  /** Set when the encoding was unknown/nested and the raw bytes were kept. */
  flag?: 'unknown-encoding' | 'not-encoded';
}

/** Thrown when the decoded body passes the limit. */
export class TooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body larger than ${limit} bytes after decompression`);
  }
}

/** Thrown when the compressed stream is corrupt or truncated. */
export class DecodeError extends Error {}

function inflateLimited(
  fn: (b: Buffer, o: zlib.ZlibOptions) => Buffer,
  raw: Buffer,
  maxBytes: number,
): Buffer {
  try {
    return fn(raw, { maxOutputLength: maxBytes + 1 });
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) throw new TooLargeError(maxBytes);
    throw new DecodeError(`corrupt compressed body: ${(e as Error).message}`);
  }
}

/**
 * The size a gzip body declares for its content: the ISIZE field ending its last member (RFC
 * 1952 §2.3.1, the uncompressed size modulo 2^32, little-endian), read without inflating; null
 * when `raw` does not start as gzip (magic bytes 1f 8b) or is shorter than a member's header and
 * trailer (18 bytes), or when the size is more than deflate can make of `raw` (1,032 bytes per
 * byte: the last bytes of a cut stream are no trailer). Only a lower bound on a multi-member
 * body's size, and only as true as the trailer: inflating checks it.
 */
export function gzipDeclaredSize(raw: Buffer): number | null {
  if (raw.length < 18 || raw[0] !== 0x1f || raw[1] !== 0x8b) return null;
  const size = raw.readUInt32LE(raw.length - 4);
  return size <= raw.length * DEFLATE_MAX_RATIO ? size : null;
}

/** Most bytes deflate makes of one byte (a run of one byte value: 258 bytes per 2 bits). */
const DEFLATE_MAX_RATIO = 1032;

/**
 * Content-Encoding tokens that mean "no coding": RFC 9110 §8.4.1's `identity` and the `none`
 * that some servers send (Apache's and IIS's misconfigurations); both are dropped from the list.
 */
const NO_CODING = new Set(['', 'identity', 'none']);

/**
 * The codings of a Content-Encoding value, lowercase, in the order applied, without the
 * "no coding" spellings: `Identity` → `[]`, `gzip, identity` → `['gzip']`.
 */
export function contentCodings(encoding: string | null): string[] {
  if (encoding === null) return [];
  return encoding
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => !NO_CODING.has(t));
}

/**
 * Decode `raw` according to the Content-Encoding header value.
 * @param encoding header value or null (e.g. `gzip`, `br`, `deflate`, `identity`, `none`,
 *   `gzip, br`); `identity` and `none` tokens mean no coding.
 * @param maxBytes largest decoded size accepted, bytes.
 * @param contentType the Content-Type header, or null: under an unknown or nested coding, bytes
 *   that plainly are this type ({@link plainlyOfType}) are used as is with flag `not-encoded`;
 *   otherwise they are kept raw with flag `unknown-encoding`.
 * @throws TooLargeError past `maxBytes`; DecodeError for a corrupt or truncated stream.
 */
export function decodeContent(
  raw: Buffer,
  encoding: string | null,
  maxBytes: number,
  contentType: string | null = null,
): DecodedContent {
  if (encoding === null) return { body: raw };
  const codings = contentCodings(encoding);
  if (codings.length === 0) return { body: raw };
  if (raw.length === 0) return { body: raw };
  const enc = codings.length === 1 ? codings[0] : 'nested';
  let body: Buffer;
  switch (enc) {
    case 'gzip':
    case 'x-gzip':
      if (raw[0] !== 0x1f || raw[1] !== 0x8b) return { body: raw, flag: 'not-encoded' };
      body = inflateLimited(zlib.gunzipSync, raw, maxBytes);
      break;
    case 'deflate':
      // RFC 9110 says zlib-wrapped; many servers send raw deflate. A zlib header has
      // CMF=0x?8 and (CMF*256+FLG) % 31 == 0.
      if ((raw[0] & 0x0f) === 8 && raw.length > 1 && ((raw[0] << 8) | raw[1]) % 31 === 0) {
        body = inflateLimited(zlib.inflateSync, raw, maxBytes);
      } else {
        body = inflateLimited(zlib.inflateRawSync, raw, maxBytes);
      }
      break;
    case 'br':
      body = inflateLimited(
        (b, o) => zlib.brotliDecompressSync(b, { maxOutputLength: o.maxOutputLength }),
        raw,
        maxBytes,
      );
      break;
    default:
      // A label we cannot undo: the bytes may still be the content itself (`Content-Encoding:
      // utf-8`, `text`, `binary`...).
      return { body: raw, flag: plainlyOfType(contentType, raw) ? 'not-encoded' : 'unknown-encoding' };
  }
  if (body.length > maxBytes) throw new TooLargeError(maxBytes);
  return { body };
}
