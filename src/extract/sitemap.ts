/**
 * Streaming reader of sitemaps (https://www.sitemaps.org/protocol.html) from their bytes: gzip
 * recognised by its magic bytes and inflated as a stream, charset decoded, the protocol's limits
 * enforced, so a 50 MB file never sits in memory. Parsing itself is `sitemap-parser.ts`.
 */
import { TextDecoder } from 'node:util';
import { createGunzip } from 'node:zlib';
import { sniffEncoding } from '../http/charset.js';
import { SITEMAP_LIMITS, type SitemapEntry, type SitemapKind, SitemapParser } from './sitemap-parser.js';

export { SITEMAP_LIMITS, type SitemapEntry, type SitemapKind, SitemapParser } from './sitemap-parser.js';

/** Why reading stopped before the end of the file. */
export type SitemapStop = 'max-urls' | 'max-bytes' | 'token-too-long' | 'corrupt-gzip';

/** What {@link readSitemap} read from one file. */
export interface SitemapResult {
  kind: SitemapKind;
  /** Local name of the root element (`urlset`, `sitemapindex`, `html`, `rss`...), null for text. */
  root: string | null;
  /** Page entries (`<url>` or text lines), in file order; empty when `onEntry` was given. */
  urls: SitemapEntry[];
  /** Child sitemaps of an index, in file order; empty when `onEntry` was given. */
  sitemaps: SitemapEntry[];
  /** Entries read (both kinds), also when streamed to `onEntry`. */
  count: number;
  /** Whether the body was gzip (recognised by its magic bytes, whatever its labels said). */
  gzip: boolean;
  /** Uncompressed bytes read. */
  bytes: number;
  /** Set when reading stopped early; entries before that point are kept. */
  stopped: SitemapStop | null;
  /** Entries skipped because their `<loc>` was missing, too long or not an http(s) URL. */
  skipped: number;
  /** One-line, human-readable notes (limits reached, skipped entries, not a sitemap). */
  warnings: string[];
  /**
   * Most input characters the parser held between two chunks (its unfinished token and the chunk
   * it began in; see {@link SitemapParser.bufferedChars}): the reader's memory high-water mark.
   */
  maxBufferedChars: number;
}

/** Options of {@link readSitemap} and {@link SitemapParser}. */
export interface SitemapOptions {
  /** The sitemap's own URL (after redirects): base for relative `<loc>`s and named in warnings. */
  url: string;
  /** Content-Type header, if any: only its `charset` is used (the bytes decide gzip and text). */
  contentType?: string | null;
  /** Entries read at most (default {@link SITEMAP_LIMITS}.maxUrls). */
  maxUrls?: number;
  /** Uncompressed bytes read at most (default {@link SITEMAP_LIMITS}.maxBytes). */
  maxBytes?: number;
  /**
   * Receives each entry as it is read (`isIndex`: a child sitemap). When given, entries are not
   * collected in the result, so memory stays bounded by one chunk whatever the file's size.
   */
  onEntry?: (entry: SitemapEntry, isIndex: boolean) => void;
}

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

/** Whether bytes start with gzip's magic number (RFC 1952 §2.3.1), the only reliable signal. */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === GZIP_MAGIC_0 && head[1] === GZIP_MAGIC_1;
}

/** Chunks from a stream, an array of buffers, or one buffer. */
export type ByteChunks = AsyncIterable<Uint8Array> | Iterable<Uint8Array> | Uint8Array;

/** Yields the chunks as Buffers, skipping empty ones (a lone buffer is one chunk, not its bytes). */
async function* asBuffers(chunks: ByteChunks): AsyncGenerator<Buffer> {
  const source = chunks instanceof Uint8Array ? [chunks] : chunks;
  for await (const c of source as AsyncIterable<Uint8Array>) {
    if (c.length > 0) yield Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength);
  }
}

/**
 * Reads one sitemap from its body bytes (after any Content-Encoding was removed), chunk by chunk.
 *
 * gzip is recognised by its magic bytes and inflated as a stream, whether the server labelled it
 * `application/gzip`, `application/x-gzip`, with `Content-Encoding: gzip` (already removed by the
 * fetcher, or sent on top of a `.gz` file), or not at all. Text is decoded as UTF-8 unless a BOM,
 * the Content-Type charset or the XML declaration says otherwise (`sniffEncoding`).
 *
 * Limits (protocol): past `maxUrls` entries or `maxBytes` uncompressed bytes reading stops with
 * `stopped` set and a warning; the entries before are kept. A corrupt or truncated gzip stream
 * stops with `corrupt-gzip`. Never rejects for bad content; rejects only if `chunks` itself does.
 *
 * @param chunks the body: a Buffer in an array, a Readable, any (async) iterable of bytes.
 */
export async function readSitemap(chunks: ByteChunks, opts: SitemapOptions): Promise<SitemapResult> {
  const maxUrls = opts.maxUrls ?? SITEMAP_LIMITS.maxUrls;
  const maxBytes = opts.maxBytes ?? SITEMAP_LIMITS.maxBytes;
  const result: SitemapResult = {
    kind: 'unknown',
    root: null,
    urls: [],
    sitemaps: [],
    count: 0,
    gzip: false,
    bytes: 0,
    stopped: null,
    skipped: 0,
    warnings: [],
    maxBufferedChars: 0,
  };
  const parser = new SitemapParser(opts.url, (entry, isIndex) => {
    if (result.count >= maxUrls) {
      result.stopped = 'max-urls';
      return false;
    }
    result.count++;
    if (opts.onEntry) opts.onEntry(entry, isIndex);
    else (isIndex ? result.sitemaps : result.urls).push(entry);
    return true;
  });

  let decoder: TextDecoder | null = null;
  const feed = (bytes: Buffer): boolean => {
    if (decoder === null) decoder = textDecoderFor(bytes, opts.contentType ?? null);
    let part = bytes;
    if (result.bytes + part.length > maxBytes) {
      part = part.subarray(0, maxBytes - result.bytes);
      result.stopped = 'max-bytes';
    }
    result.bytes += part.length;
    parser.write(decoder.decode(part, { stream: true }));
    const held = parser.bufferedChars();
    if (held > result.maxBufferedChars || held < 0) result.maxBufferedChars = held < 0 ? -1 : held;
    return result.stopped === null && !parser.stopped;
  };

  const source = asBuffers(chunks);
  const first = await source.next();
  if (!first.done) {
    let head = first.value;
    // a gzip check needs two bytes; a first chunk of one byte is rare but possible
    while (head.length < 2) {
      const more = await source.next();
      if (more.done) break;
      head = Buffer.concat([head, more.value]);
    }
    result.gzip = isGzip(head);
    if (result.gzip) {
      await inflateInto(head, source, feed, result);
    } else if (feed(head)) {
      for await (const chunk of source) if (!feed(chunk)) break;
    }
  }
  if (result.stopped === null && !parser.stopped && decoder !== null) {
    parser.write((decoder as TextDecoder).decode());
    parser.end();
  }
  if (parser.tokenTooLong) result.stopped = 'token-too-long';
  await source.return(undefined);

  result.kind = parser.kind;
  result.root = parser.root;
  result.skipped = parser.skipped;
  describe(result, opts.url, maxUrls, maxBytes);
  return result;
}

/** Inflates `head` + the rest of `source` as one gzip stream into `feed`, chunk by chunk. */
async function inflateInto(
  head: Buffer,
  source: AsyncGenerator<Buffer>,
  feed: (bytes: Buffer) => boolean,
  result: SitemapResult,
): Promise<void> {
  const gunzip = createGunzip();
  // Input is written as output is consumed (backpressure through the async iterator below).
  const pump = (async () => {
    const write = (b: Buffer) =>
      new Promise<void>((resolve) => {
        if (gunzip.write(b)) return resolve();
        // 'close' too: the reader may stop (a limit) and destroy the stream while we wait
        const go = () => {
          gunzip.off('drain', go);
          gunzip.off('close', go);
          resolve();
        };
        gunzip.on('drain', go);
        gunzip.on('close', go);
      });
    try {
      await write(head);
      for await (const chunk of source) {
        if (gunzip.destroyed) return;
        await write(chunk);
      }
      gunzip.end();
    } catch {
      gunzip.destroy();
    }
  })();
  try {
    for await (const out of gunzip) {
      if (!feed(out as Buffer)) break;
    }
  } catch {
    result.stopped = 'corrupt-gzip';
  } finally {
    gunzip.destroy();
    await pump;
  }
}

/** A streaming decoder for the sniffed encoding (UTF-8 when unknown to this Node's ICU). */
function textDecoderFor(head: Buffer, contentType: string | null): TextDecoder {
  const { encoding } = sniffEncoding(head, contentType, false);
  try {
    return new TextDecoder(encoding);
  } catch {
    return new TextDecoder('utf-8');
  }
}

/** Adds the warnings a user should see for this file. */
function describe(r: SitemapResult, url: string, maxUrls: number, maxBytes: number): void {
  if (r.stopped === 'max-urls') {
    r.warnings.push(
      `sitemap ${url} lists more than ${maxUrls} entries (protocol limit); the rest is ignored`,
    );
  } else if (r.stopped === 'max-bytes') {
    r.warnings.push(
      `sitemap ${url} is larger than ${maxBytes} bytes uncompressed (protocol limit); the rest is ignored`,
    );
  } else if (r.stopped === 'corrupt-gzip') {
    r.warnings.push(`sitemap ${url}: corrupt or truncated gzip data; entries after it are lost`);
  } else if (r.stopped === 'token-too-long') {
    r.warnings.push(
      `sitemap ${url}: a tag or comment longer than ${SITEMAP_LIMITS.maxTokenChars} characters; reading stopped`,
    );
  }
  if (r.kind === 'unknown' && r.count === 0) {
    r.warnings.push(`${url} is not a sitemap (root element ${r.root === null ? 'none' : `<${r.root}>`})`);
  }
  if (r.skipped > 0) {
    r.warnings.push(`sitemap ${url}: ${r.skipped} entries without a usable http(s) location were skipped`);
  }
}
