/**
 * One HTTP hop with undici: a keep-alive Agent per worker (its own session), a whole-request
 * time limit, a body-size limit enforced while reading and again after decompression, and
 * typed errors. Redirects are not followed here: the caller checks each hop (scope, robots,
 * seen-set) and calls again.
 */
import { Agent, type Dispatcher, EnvHttpProxyAgent, ProxyAgent, request } from 'undici';
import { DecodeError, decodeContent, TooLargeError } from './decompress.js';
import { classifyError, FetchError } from './fetch-error.js';

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
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    connect: { timeout: opts.timeoutMs },
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

/** Fetches single hops over one keep-alive session. */
export class Fetcher {
  private readonly dispatcher: Dispatcher;
  private readonly headers: Record<string, string>;
  private readonly inFlight = new Set<AbortController>();

  constructor(private readonly opts: FetcherOptions) {
    this.dispatcher = makeDispatcher(opts);
    this.headers = {
      'user-agent': opts.userAgent,
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      'accept-encoding': 'gzip, deflate, br',
    };
  }

  /**
   * GET `url` once.
   * @param signal tells whether an abort came from a stop (see {@link abortAll}); the whole-request
   *   timeout is added here.
   * @param decode remove the Content-Encoding here (default); false returns the body as received
   *   (`encoded: true`) for a page thread to decode with {@link decodeContent} under the same limit.
   * @throws FetchError kind timeout | too-large | network | decode, carrying the URL.
   */
  async fetchHop(url: string, signal?: AbortSignal, decode = true): Promise<HopResponse> {
    const ac = new AbortController();
    if (signal?.aborted) ac.abort();
    const timer = setTimeout(() => ac.abort(), this.opts.timeoutMs);
    // One stop listener for all requests (see closeAll), not one per request.
    this.inFlight.add(ac);
    const maxBytes = this.opts.maxBytes;
    try {
      const res = await request(url, {
        method: 'GET',
        headers: this.headers,
        dispatcher: this.dispatcher,
        signal: ac.signal,
      });
      const headers = res.headers as HopResponse['headers'];
      const contentType = header(headers, 'content-type');
      const contentEncoding = header(headers, 'content-encoding');
      const location = res.statusCode >= 300 && res.statusCode < 400 ? header(headers, 'location') : null;
      if (location !== null) {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
        return {
          url,
          status: res.statusCode,
          headers,
          contentType,
          location,
          body: Buffer.alloc(0),
          contentEncoding,
        };
      }
      const declared = Number(header(headers, 'content-length') ?? -1);
      if (declared > maxBytes) {
        res.body.destroy();
        throw new FetchError(
          'too-large',
          url,
          `Content-Length ${declared} exceeds ${maxBytes} bytes`,
          res.statusCode,
        );
      }
      const chunks: Buffer[] = [];
      let size = 0;
      // 'data' events rather than `for await`: the async iterator costs a promise per chunk.
      await new Promise<void>((resolve, reject) => {
        const body = res.body;
        body.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            body.destroy();
            reject(new FetchError('too-large', url, `body exceeds ${maxBytes} bytes`, res.statusCode));
            return;
          }
          chunks.push(chunk);
        });
        body.once('end', resolve);
        body.once('error', reject);
        body.once('close', () => {
          if (!body.readableEnded)
            reject(
              Object.assign(new Error('connection closed before the body ended'), { code: 'UND_ERR_SOCKET' }),
            );
        });
      });
      const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      if (!decode) {
        return {
          url,
          status: res.statusCode,
          headers,
          contentType,
          location: null,
          body: raw,
          contentEncoding,
          encoded: true,
        };
      }
      let decoded: ReturnType<typeof decodeContent>;
      try {
        decoded = decodeContent(raw, contentEncoding, maxBytes);
      } catch (e) {
        if (e instanceof TooLargeError) throw new FetchError('too-large', url, e.message, res.statusCode);
        if (e instanceof DecodeError) throw new FetchError('decode', url, e.message, res.statusCode);
        throw e;
      }
      return {
        url,
        status: res.statusCode,
        headers,
        contentType,
        location: null,
        body: decoded.body,
        contentEncoding,
        encodingFlag: decoded.flag,
      };
    } catch (e) {
      if (e instanceof FetchError) throw e;
      const kind = classifyError(e, ac.signal.aborted);
      const why = ac.signal.aborted
        ? signal?.aborted
          ? 'aborted at stop'
          : `no complete response within ${this.opts.timeoutMs} ms`
        : ((e as Error).message ?? String(e));
      throw new FetchError(kind, url, why);
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(ac);
    }
  }

  /** Abort every request in flight (their fetchHop rejects with kind `timeout`, "aborted at stop"). */
  abortAll(): void {
    for (const ac of this.inFlight) ac.abort();
  }

  /** Close the session's connections. */
  async close(): Promise<void> {
    await this.dispatcher.close().catch(() => {});
  }
}
