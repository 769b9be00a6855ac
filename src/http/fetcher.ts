/**
 * One HTTP hop with undici: a keep-alive Agent per worker (its own session, with its own cookie
 * jar), a whole-request time limit, a header-size limit, a body-size limit enforced while reading
 * and again after decompression, and typed errors. Redirects are not followed here: the caller
 * checks each hop (scope, robots, seen-set) and calls again.
 */
import type { Dispatcher } from 'undici';
import { CRAWL_DEFAULTS } from '../config/crawl-defaults.js';
import { CookieSession, type SessionCookie } from './cookie-jar.js';
import { DecodeError, decodeContent, TooLargeError } from './decompress.js';
import { Agent, EnvHttpProxyAgent, ProxyAgent } from './dispatchers.js';
import {
  awaitRequestHead,
  type Exchange,
  headerPairs,
  pairsOfHeaders,
  rebuiltRequestHead,
  unwatchRequestHeads,
  watchRequestHeads,
} from './exchange.js';
import { classifyError, describeError, FetchError } from './fetch-error.js';
import { fetchLenient, isObsFoldError } from './lenient-fetch.js';
import { headerUrl } from './location.js';
import { lookup } from './lookup.js';

/**
 * Defaults of {@link FetcherOptions}: `maxHeaderBytes` 256 KiB, the crawl option's default (why:
 * see `config/crawl-defaults.ts`).
 */
export const FETCH_DEFAULTS = { maxHeaderBytes: CRAWL_DEFAULTS.maxHeaderBytes } as const;

/** Fetcher settings. */
export interface FetcherOptions {
  /** User-Agent header. */
  userAgent: string;
  /** Whole-request limit (connect, headers and body), ms. */
  timeoutMs: number;
  /** Largest body, bytes, checked on the wire and after decompression. */
  maxBytes: number;
  /** Keep-alive connections per origin. Default 16. */
  connections?: number;
  /** Proxy URL for every request; else HTTP_PROXY/HTTPS_PROXY/NO_PROXY are honoured. */
  proxy?: string;
  /** Largest response header section, bytes; past it the hop fails `too-large`. Default 256 KiB. */
  maxHeaderBytes?: number;
  /** Keep a cookie jar for the session (RFC 6265). Default true. */
  cookies?: boolean;
  /**
   * Keep each hop's exchange as transferred ({@link HopResponse.exchange}) for a WARC writer:
   * request head, response head and the body before Content-Encoding removal. Default false.
   */
  record?: boolean;
}

/** One response, body decoded from its Content-Encoding. */
export interface HopResponse {
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string | null;
  /** Location header of a 3xx, raw. */
  location: string | null;
  /** Body bytes after Content-Encoding removal, or as received when asked (empty for redirects). */
  body: Buffer;
  /** Content-Encoding header value, or null. */
  contentEncoding: string | null;
  /** Whether `body` is still as received (fetchHop with `decode` false). */
  encoded?: boolean;
  /** Set when Content-Encoding was unknown, or claimed but absent; the raw bytes were kept. */
  encodingFlag?: 'unknown-encoding' | 'not-encoded';
  /** The exchange as transferred, with the fetcher's `record` option (a redirect's body too). */
  exchange?: Exchange;
}

function header(h: HopResponse['headers'], name: string): string | null {
  const v = h[name];
  if (v === undefined) return null;
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Read a header from a hop's headers (case-insensitive names are already lowercased by undici). */
export { header as responseHeader };

/** undici ProxyAgent option (not in EnvHttpProxyAgent's typings, passed through to its ProxyAgents). */
const NO_HTTP_TUNNEL = { proxyTunnel: false };

function makeDispatcher(opts: FetcherOptions): Dispatcher {
  const common = {
    connections: opts.connections ?? 16,
    maxHeaderSize: opts.maxHeaderBytes ?? FETCH_DEFAULTS.maxHeaderBytes,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    connect: { timeout: opts.timeoutMs, lookup },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  };
  // Plain-http targets go to an http proxy in absolute-URI form (`GET http://host/path`), which
  // every forward proxy accepts; CONNECT tunnels (undici's default) are often refused for port 80.
  // https targets are tunnelled whatever this says.
  const proxied = { ...common, ...NO_HTTP_TUNNEL };
  if (opts.proxy) return new ProxyAgent({ uri: opts.proxy, ...proxied });
  const env = process.env;
  if (env.HTTP_PROXY || env.http_proxy || env.HTTPS_PROXY || env.https_proxy) {
    // NO_PROXY / no_proxy are honoured by EnvHttpProxyAgent
    return new EnvHttpProxyAgent(proxied);
  }
  return new Agent(common);
}

/** Largest redirect body read before the connection is given up rather than drained, bytes. */
const REDIRECT_BODY_LIMIT = 64 * 1024;

/** Why a request was aborted by us (carried to onResponseError). */
class AbortReason extends Error {
  constructor(
    readonly why: 'timeout' | 'stop' | 'too-large' | 'redirect-drained',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Fetches single hops over one keep-alive session.
 *
 * Requests go through undici's `Dispatcher.dispatch` with a handler that collects the body
 * chunks directly: no Readable stream, AbortController or promise per chunk for each request
 * (those cost about a tenth of the crawler thread's CPU with `request()`).
 */
export class Fetcher {
  private readonly dispatcher: Dispatcher;
  private readonly headers: Record<string, string>;
  /** Abort functions of the requests in flight (see abortAll). */
  private readonly inFlight = new Set<(reason: AbortReason) => void>();
  /** The session's cookies; null with `cookies: false`. */
  private readonly cookies: CookieSession | null;
  /** Whether requests may go through a proxy (then the obs-fold fallback is not used). */
  private readonly proxied: boolean;
  /** Whether exchanges are kept (`record`). */
  private readonly record: boolean;

  constructor(private readonly opts: FetcherOptions) {
    this.dispatcher = makeDispatcher(opts);
    this.cookies = opts.cookies === false ? null : new CookieSession();
    const env = process.env;
    this.proxied = Boolean(
      opts.proxy || env.HTTP_PROXY || env.http_proxy || env.HTTPS_PROXY || env.https_proxy,
    );
    this.record = opts.record === true;
    if (this.record) watchRequestHeads();
    this.headers = {
      'user-agent': opts.userAgent,
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      'accept-encoding': 'gzip, deflate, br',
    };
  }

  /**
   * A digest of the cookies a request for `url` would carry (`''` without cookies): two hops to
   * the same URL with the same digest send the same request. Never the cookies themselves.
   */
  sessionState(url: string): string {
    return this.cookies?.stateFor(url) ?? '';
  }

  /** The session's cookies for `url`, for a browser loading it (`CookieSession.cookiesFor`). */
  cookiesFor(url: string): SessionCookie[] {
    return this.cookies?.cookiesFor(url) ?? [];
  }

  /** The request headers for `url`: the session's, then the request's own `extra`, plus its cookies. */
  private headersFor(url: string, extra?: Record<string, string>): Record<string, string> {
    const cookie = this.cookies?.headerFor(url) ?? null;
    const base = extra === undefined ? this.headers : { ...this.headers, ...extra };
    return cookie === null ? base : { ...base, cookie };
  }

  /**
   * GET `url` once.
   * @param signal a stop signal: when it aborts, the request is abandoned (see also
   *   {@link abortAll}); the whole-request timeout (`timeoutMs`) is applied here.
   * @param decode remove the Content-Encoding here (default); false returns the body as received
   *   (`encoded: true`) for a page thread to decode with {@link decodeContent} under the same limit.
   * @param maxBytes body limit for this request, bytes (default: the fetcher's `maxBytes`).
   * @param headers extra request headers (lowercase names), replacing the defaults of the same
   *   name (`accept`, `user-agent`); none by default. The session's cookies are added.
   * A response whose only fault is a folded header line (obs-fold) is fetched once more through
   * {@link fetchLenient} (not through a proxy), as RFC 9112 §5.2 lets a user agent accept it.
   * @throws FetchError kind timeout | too-large | network | decode, carrying the URL;
   *   `too-large` also for headers over `maxHeaderBytes`.
   */
  fetchHop(
    url: string,
    signal?: AbortSignal,
    decode = true,
    maxBytes = this.opts.maxBytes,
    headers?: Record<string, string>,
  ): Promise<HopResponse> {
    const sent = this.headersFor(url, headers);
    const timeoutMs = this.opts.timeoutMs;
    return new Promise<HopResponse>((resolve, reject) => {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        reject(new FetchError('network', url, `invalid URL: ${url}`));
        return;
      }
      let controller: Dispatcher.DispatchController | null = null;
      let pending: AbortReason | null = null;
      let done = false;
      let status = 0;
      let headers: HopResponse['headers'] = {};
      let location: string | null = null;
      const chunks: Buffer[] = [];
      let size = 0;
      const path = target.pathname + target.search;
      // With `record`: what the exchange needs besides the body (see exchange.ts).
      const record = this.record;
      const startedAt = record ? Date.now() : 0;
      let requestHead: string | null = null;
      let ip: string | null = null;
      let rawHeaders: Array<[string, string]> = [];
      let statusText = '';
      let kept = 0;
      const exchangeOf = (body: Buffer, truncated: boolean): Exchange => ({
        url,
        startedAt,
        requestHead: requestHead ?? rebuiltRequestHead(url, sent),
        ip: this.proxied ? null : ip,
        status,
        statusText,
        headers: rawHeaders,
        body,
        ...(truncated ? { truncated } : {}),
      });

      const abort = (reason: AbortReason): void => {
        if (done) return;
        if (controller === null) pending = reason;
        else controller.abort(reason);
      };
      const finish = (): void => {
        done = true;
        clearTimeout(timer);
        this.inFlight.delete(abort);
      };
      const response = (body: Buffer, extra?: Partial<HopResponse>): HopResponse => ({
        url,
        status,
        headers,
        contentType: header(headers, 'content-type'),
        location,
        body,
        contentEncoding: header(headers, 'content-encoding'),
        ...extra,
      });
      const fail = (e: unknown): void => {
        if (done) return;
        finish();
        if (isObsFoldError(e) && !this.proxied && !signal?.aborted) {
          this.fetchFolded(url, signal, decode, maxBytes, sent).then(resolve, reject);
          return;
        }
        if (location !== null && !(e instanceof AbortReason && e.why === 'stop')) {
          // A redirect whose body was cut off, slow or over REDIRECT_BODY_LIMIT (drained): the
          // Location is what counts.
          const extra = record ? { exchange: exchangeOf(Buffer.concat(chunks, kept), true) } : undefined;
          resolve(response(Buffer.alloc(0), extra));
          return;
        }
        if (e instanceof AbortReason) {
          if (e.why === 'too-large') {
            reject(new FetchError('too-large', url, e.message, status, header(headers, 'content-type')));
            return;
          }
          reject(new FetchError('timeout', url, e.message));
          return;
        }
        const kind = classifyError(e, false);
        const message =
          kind === 'too-large'
            ? `response headers larger than ${this.maxHeaderBytes} bytes`
            : describeError(e);
        reject(new FetchError(kind, url, message));
      };
      const timer = setTimeout(
        () => abort(new AbortReason('timeout', `no complete response within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.inFlight.add(abort);
      if (signal?.aborted) abort(new AbortReason('stop', 'aborted at stop'));

      const handler: Dispatcher.DispatchHandler = {
        onRequestStart: (c) => {
          controller = c;
          if (pending !== null) c.abort(pending);
          else if (record) {
            awaitRequestHead(target.origin, path, (head, addr) => {
              requestHead = head;
              ip = addr;
            });
          }
        },
        onResponseStart: (c, statusCode, h, message) => {
          if (statusCode < 200) return; // 1xx: the real response follows
          status = statusCode;
          headers = h as HopResponse['headers'];
          if (record) {
            rawHeaders = headerPairs((c as { rawHeaders?: Buffer[] }).rawHeaders);
            if (rawHeaders.length === 0) rawHeaders = pairsOfHeaders(headers);
            statusText = message ?? '';
          }
          this.cookies?.receive(url, headers['set-cookie']);
          if (statusCode >= 300 && statusCode < 400) {
            const raw = header(headers, 'location');
            location = raw === null ? null : headerUrl(raw);
          }
          if (location !== null) return;
          const declared = Number(header(headers, 'content-length') ?? -1);
          if (declared > maxBytes) {
            c.abort(new AbortReason('too-large', `Content-Length ${declared} exceeds ${maxBytes} bytes`));
          }
        },
        onResponseData: (c, chunk) => {
          size += chunk.length;
          if (location !== null) {
            // A redirect's body is drained (keeping the connection) up to a limit, never kept.
            if (size > REDIRECT_BODY_LIMIT) c.abort(new AbortReason('redirect-drained', 'redirect body'));
            else if (record) {
              chunks.push(chunk);
              kept = size;
            }
            return;
          }
          if (size > maxBytes) {
            c.abort(new AbortReason('too-large', `body exceeds ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        },
        onResponseEnd: () => {
          if (done) return;
          finish();
          if (location !== null) {
            const extra = record ? { exchange: exchangeOf(Buffer.concat(chunks, kept), false) } : undefined;
            resolve(response(Buffer.alloc(0), extra));
            return;
          }
          const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
          const exchange = record ? exchangeOf(raw, false) : undefined;
          if (!decode) {
            resolve(response(raw, exchange === undefined ? { encoded: true } : { encoded: true, exchange }));
            return;
          }
          try {
            const decoded = decodeContent(
              raw,
              header(headers, 'content-encoding'),
              maxBytes,
              header(headers, 'content-type'),
            );
            resolve(response(decoded.body, { encodingFlag: decoded.flag, exchange }));
          } catch (e) {
            const type = header(headers, 'content-type');
            if (e instanceof TooLargeError) reject(new FetchError('too-large', url, e.message, status, type));
            else if (e instanceof DecodeError) reject(new FetchError('decode', url, e.message, status, type));
            else reject(new FetchError('decode', url, (e as Error).message, status, type));
          }
        },
        onResponseError: (_c, e) => fail(e),
      };
      try {
        this.dispatcher.dispatch(
          {
            origin: target.origin,
            path,
            method: 'GET',
            headers: sent,
          },
          handler,
        );
      } catch (e) {
        fail(e);
      }
    });
  }

  private get maxHeaderBytes(): number {
    return this.opts.maxHeaderBytes ?? FETCH_DEFAULTS.maxHeaderBytes;
  }

  /** {@link fetchHop} again through the lenient parser, after an obs-fold was refused. */
  private async fetchFolded(
    url: string,
    signal: AbortSignal | undefined,
    decode: boolean,
    maxBytes: number,
    sent: Record<string, string>,
  ): Promise<HopResponse> {
    const startedAt = Date.now();
    const r = await fetchLenient(url, {
      headers: sent,
      timeoutMs: this.opts.timeoutMs,
      maxBytes,
      maxHeaderBytes: this.maxHeaderBytes,
      signal,
    });
    this.cookies?.receive(url, r.headers['set-cookie']);
    const raw = r.status >= 300 && r.status < 400 ? header(r.headers, 'location') : null;
    const res: HopResponse = {
      url,
      status: r.status,
      headers: r.headers,
      contentType: header(r.headers, 'content-type'),
      location: raw === null ? null : headerUrl(raw),
      body: r.body,
      contentEncoding: header(r.headers, 'content-encoding'),
    };
    if (this.record) {
      res.exchange = {
        url,
        startedAt,
        requestHead: rebuiltRequestHead(url, { ...sent, connection: 'close' }),
        ip: null,
        status: r.status,
        statusText: '',
        headers: pairsOfHeaders(r.headers),
        body: r.body,
      };
    }
    if (res.location !== null) return res;
    if (!decode) return { ...res, encoded: true };
    try {
      const d = decodeContent(r.body, res.contentEncoding, maxBytes, res.contentType);
      return { ...res, body: d.body, encodingFlag: d.flag };
    } catch (e) {
      const kind = e instanceof TooLargeError ? 'too-large' : 'decode';
      throw new FetchError(kind, url, (e as Error).message, r.status);
    }
  }

  /** Abort every request in flight (their fetchHop rejects with kind `timeout`, "aborted at stop"). */
  abortAll(): void {
    for (const abort of this.inFlight) abort(new AbortReason('stop', 'aborted at stop'));
  }

  /** Close the session's connections. */
  async close(): Promise<void> {
    if (this.record) unwatchRequestHeads();
    await this.dispatcher.close().catch(() => {});
  }
}
