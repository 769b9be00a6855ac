/**
 * The CPU-heavy part of handling one response, written once and run either in a page thread
 * ({@link ThreadedPageProcessor}) or inline: Content-Encoding removal, the body's SHA-256 and the
 * source's extraction (charset decoding, HTML tokenizing, link resolution). The crawler's thread
 * keeps the network, the frontier, the seen-set and content dedup.
 */
import { createHash } from 'node:crypto';
import { DecodeError, decodeContent, TooLargeError } from '../http/decompress.js';
import type { Page, Source, SourceResult } from '../sources/source.js';

/** One response to work on. `body` is as received (still Content-Encoded). */
export interface PageJob {
  /** Chosen by the caller; names the body kept for a later store or drop. */
  id: number;
  url: string;
  finalUrl: string;
  status: number;
  contentType: string | null;
  /** Content-Encoding header value, or null. */
  contentEncoding: string | null;
  headers: Page['headers'];
  depth: number;
  /** Largest decoded size accepted, bytes. */
  maxBytes: number;
  /** Hand the decoded body to the source (2xx responses); otherwise only decode and hash. */
  extract: boolean;
  body: Uint8Array;
}

/** What came of a {@link PageJob}. The decoded body stays with the processor until store/drop. */
export interface WorkedPage {
  id: number;
  /** Decoded size, bytes. */
  bytes: number;
  /** SHA-256 of the decoded body, hex. */
  sha256: string;
  /** Set when Content-Encoding was unknown/nested, or claimed but absent (raw bytes kept). */
  flag?: 'unknown-encoding' | 'not-encoded';
  /** Decompression failed: past `maxBytes`, or a corrupt stream. No body is kept. */
  error?: { kind: 'too-large' | 'decode'; message: string };
  /** The source's result, when asked for and the body was decoded. */
  result?: SourceResult;
  /** The source threw: its message. */
  sourceError?: string;
}

/**
 * Decode, hash and (when `job.extract`, and the encoding was understood) run `source.handle`.
 * Never throws: failures are in the returned `worked`.
 * @returns `worked`, and the decoded body (null after a decompression error).
 */
export function workPage(job: PageJob, source: Source): { worked: WorkedPage; body: Buffer | null } {
  const raw = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  let body: Buffer;
  let flag: WorkedPage['flag'];
  try {
    const d = decodeContent(raw, job.contentEncoding, job.maxBytes, job.contentType);
    body = d.body;
    flag = d.flag;
  } catch (e) {
    const kind = e instanceof TooLargeError ? 'too-large' : 'decode';
    const message = e instanceof TooLargeError || e instanceof DecodeError ? e.message : String(e);
    return { worked: { id: job.id, bytes: 0, sha256: '', error: { kind, message } }, body: null };
  }
  const worked: WorkedPage = {
    id: job.id,
    bytes: body.length,
    sha256: createHash('sha256').update(body).digest('hex'),
  };
  if (flag) worked.flag = flag;
  if (job.extract && flag !== 'unknown-encoding') {
    try {
      worked.result = source.handle({
        url: job.url,
        finalUrl: job.finalUrl,
        status: job.status,
        contentType: job.contentType,
        headers: job.headers,
        body,
        depth: job.depth,
      });
    } catch (e) {
      worked.sourceError = (e as Error).message;
    }
  }
  return { worked, body };
}
