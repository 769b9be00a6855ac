/**
 * The fallback for one kind of malformed response: a header value continued on an indented next
 * line (obs-fold). undici's parser (llhttp, strict) refuses it and offers no per-response
 * leniency: its WebAssembly instance is private and its lenient flags are never set. RFC 9112 §5.2
 * tells a user agent to accept such a response and replace each obs-fold with SP. So that one
 * request, and only after that error, is sent again through Node's own HTTP parser in lenient mode
 * (`insecureHTTPParser`) on a connection of its own that is closed afterwards: the leniency cannot
 * desynchronise a kept-alive connection or reach any other response.
 */
import http from 'node:http';
import { FetchError } from './fetch-error.js';

/** A response read by {@link fetchLenient}. */
export interface LenientResponse {
  status: number;
  /** Lowercase names; `set-cookie` is an array; folds replaced by spaces. */
  headers: Record<string, string | string[] | undefined>;
  /** Body as received (still Content-Encoded); empty for a redirect. */
  body: Buffer;
}

/** Settings of {@link fetchLenient}. */
export interface LenientOptions {
  /** Request headers (User-Agent, Accept, Cookie...). */
  headers: Record<string, string>;
  /** Whole-request limit, ms. */
  timeoutMs: number;
  /** Largest body, bytes (as received). */
  maxBytes: number;
  /** Largest header section, bytes. */
  maxHeaderBytes: number;
  /** Abandons the request when aborted. */
  signal?: AbortSignal;
}

/** The message of undici's parser error for an obs-fold (llhttp `header_value_lws`). */
const OBS_FOLD_MESSAGE = 'Unexpected whitespace after header value';

/** Whether `e` is undici's refusal of a folded header line, the one error this module answers. */
export function isObsFoldError(e: unknown): boolean {
  const err = e as { name?: string; message?: string } | null;
  return err?.name === 'HTTPParserError' && (err.message ?? '').includes(OBS_FOLD_MESSAGE);
}

/**
 * RFC 9112 §5.2: each obs-fold becomes SP. Node's lenient parser drops the CRLF and keeps the
 * fold's leading whitespace, so a tab from a fold is turned into a space here (a field value
 * that had a tab of its own means the same with a space in every header the crawler reads).
 */
function unfold(v: string): string {
  return v.indexOf('\t') === -1 ? v : v.replace(/\t/g, ' ');
}

/**
 * GET `url` once through Node's HTTP parser in lenient mode, on a fresh connection.
 * @throws FetchError kind timeout | too-large | network, carrying the URL.
 */
export async function fetchLenient(url: string, opts: LenientOptions): Promise<LenientResponse> {
  const target = new URL(url);
  // node:https, and node:tls with it, is loaded by the first fallback to an https URL, not by
  // every process start (~4 ms of it; undici loads node:tls only for its first https connection).
  const mod = target.protocol === 'https:' ? (await import('node:https')).default : http;
  return new Promise<LenientResponse>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const req = mod.request(target, {
      method: 'GET',
      headers: { ...opts.headers, connection: 'close' },
      agent: false,
      insecureHTTPParser: true,
      maxHeaderSize: opts.maxHeaderBytes,
    });
    const fail = (e: FetchError): void => {
      settle(() => reject(e));
      req.destroy();
    };
    const timer = setTimeout(
      () => fail(new FetchError('timeout', url, `no complete response within ${opts.timeoutMs} ms`)),
      opts.timeoutMs,
    );
    const onAbort = (): void => fail(new FetchError('timeout', url, 'aborted at stop'));
    if (opts.signal?.aborted) {
      onAbort();
      return;
    }
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (e: NodeJS.ErrnoException) => {
      const kind = e.code === 'HPE_HEADER_OVERFLOW' ? 'too-large' : 'network';
      const message =
        kind === 'too-large' ? `response headers larger than ${opts.maxHeaderBytes} bytes` : e.message;
      fail(new FetchError(kind, url, message));
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const headers: LenientResponse['headers'] = {};
      for (const [k, v] of Object.entries(res.headers)) {
        headers[k] = Array.isArray(v) ? v.map(unfold) : v === undefined ? undefined : unfold(v);
      }
      if (status >= 300 && status < 400 && headers.location !== undefined) {
        settle(() => resolve({ status, headers, body: Buffer.alloc(0) }));
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > opts.maxBytes) {
          fail(new FetchError('too-large', url, `body exceeds ${opts.maxBytes} bytes`, status));
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => settle(() => resolve({ status, headers, body: Buffer.concat(chunks, size) })));
      res.on('error', (e) => fail(new FetchError('network', url, e.message)));
      res.on('aborted', () => fail(new FetchError('network', url, 'response aborted')));
    });
    req.end();
  });
}
