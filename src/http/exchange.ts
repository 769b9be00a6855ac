/**
 * One HTTP exchange as it went over the wire, kept for a WARC writer (`--warc`): the request head
 * as sent, the response's status line and header fields as received (names in their case and
 * order), and the body as transferred (Content-Encoding still applied, Transfer-Encoding removed).
 * The request head and the server's address come from undici's `undici:client:sendHeaders`
 * diagnostics channel, which is subscribed to only while some fetcher records: without `--warc`
 * undici publishes nothing and no fetch pays for this.
 */
import diagnostics from 'node:diagnostics_channel';

/** One fetch, as transferred. */
export interface Exchange {
  /** The URL requested (the hop's URL). */
  url: string;
  /** When the request was started, epoch ms (the WARC-Date of its records). */
  startedAt: number;
  /**
   * The request head as sent: request line and header lines, each ending in CRLF, without the
   * blank line that ends the head. Rebuilt from the headers given to undici when the channel did
   * not see it (the obs-fold fallback, which uses Node's own client).
   */
  requestHead: string;
  /** The server's IP address; null when unknown (through a proxy, or not seen). */
  ip: string | null;
  /** HTTP status code. */
  status: number;
  /** Reason phrase as received (may be empty). */
  statusText: string;
  /** Response header fields as received: `[name, value]` pairs, bytes read as latin1. */
  headers: Array<[string, string]>;
  /** The body as transferred: Content-Encoding kept, chunked framing removed. */
  body: Buffer;
  /** The body was cut short (a redirect's body past the drain limit): WARC-Truncated. */
  truncated?: boolean;
}

/** A request waiting for its head: the path and origin it was dispatched with. */
interface AwaitedHead {
  origin: string;
  path: string;
  got(head: string, ip: string | null): void;
}

/**
 * The request whose handler's `onRequestStart` ran last. undici calls it synchronously just
 * before it writes that request's head (client-h1 `writeH1`), so the next `sendHeaders` message
 * is that request's; the origin and path are checked all the same.
 */
let awaited: AwaitedHead | null = null;
let subscribers = 0;

interface SendHeadersMessage {
  request: { origin?: unknown; path?: unknown };
  headers: string;
  socket: { remoteAddress?: string };
}

function onSendHeaders(message: unknown): void {
  const a = awaited;
  if (a === null) return;
  awaited = null;
  const m = message as SendHeadersMessage;
  if (String(m.request.origin) !== a.origin || m.request.path !== a.path) return;
  a.got(m.headers, m.socket.remoteAddress ?? null);
}

/** Start listening for request heads (one listener per process, counted). */
export function watchRequestHeads(): void {
  if (subscribers++ === 0) diagnostics.subscribe('undici:client:sendHeaders', onSendHeaders);
}

/** Stop listening (when the last recording fetcher closes). */
export function unwatchRequestHeads(): void {
  if (subscribers > 0 && --subscribers === 0) {
    diagnostics.unsubscribe('undici:client:sendHeaders', onSendHeaders);
    awaited = null;
  }
}

/**
 * The request about to be written is this one: its head and the server's address go to `got`.
 * Called from the handler's `onRequestStart`.
 */
export function awaitRequestHead(
  origin: string,
  path: string,
  got: (head: string, ip: string | null) => void,
): void {
  awaited = { origin, path, got };
}

/**
 * A request head rebuilt from what was given to the client, as undici writes it (request line,
 * `host`, `connection`, then the headers): used when the head itself was not seen.
 */
export function rebuiltRequestHead(url: string, headers: Record<string, string>): string {
  const u = new URL(url);
  let head = `GET ${u.pathname}${u.search} HTTP/1.1\r\nhost: ${u.host}\r\nconnection: keep-alive\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  return head;
}

/** undici's raw header list (`[name, value, name, value...]` as Buffers) as pairs, latin1. */
export function headerPairs(raw: ReadonlyArray<Buffer | string> | null | undefined): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (!raw) return pairs;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    pairs.push([raw[i].toString('latin1'), raw[i + 1].toString('latin1')]);
  }
  return pairs;
}

/** Parsed headers (lowercase names, arrays for repeated fields) as pairs: the fallback's. */
export function pairsOfHeaders(h: Record<string, string | string[] | undefined>): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) pairs.push([k, one]);
  }
  return pairs;
}
