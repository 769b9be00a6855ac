/**
 * The typed fetch failure: every failed attempt is a FetchError with a `kind` (DESIGN §4) and the
 * URL, so the item line can say what went wrong without string matching.
 */

/** Failure kinds written to an item's `error.kind`. */
export type FetchErrorKind =
  | 'timeout'
  | 'too-large'
  | 'redirect-loop'
  | 'robots-disallowed'
  | 'http-status'
  | 'network'
  | 'dns'
  | 'decode'
  | 'out-of-scope'
  /**
   * A source read a non-2xx answer it asked for and says what was asked for does not exist (a
   * repository without a README): final, not retried.
   */
  | 'not-found'
  /** The source failed on the page (its `handle` threw or returned something wrong), or its `authorize`. */
  | 'source'
  /** A block or challenge page (CAPTCHA, bot interstitial, login wall) came instead of the page: `http/block-page.ts`. */
  | 'blocked';

/**
 * A failed fetch of `url`. `status` is set when a response arrived, `contentType` when its
 * headers said one (a body over the size limit still has the type the server sent).
 */
export class FetchError extends Error {
  constructor(
    readonly kind: FetchErrorKind,
    readonly url: string,
    message: string,
    readonly status: number | null = null,
    readonly contentType: string | null = null,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

/** Failures where the host gave no answer at all: worth a retry, and a warning while it lasts. */
export const NO_ANSWER_KINDS: ReadonlySet<FetchErrorKind> = new Set(['network', 'dns', 'timeout']);

/** getaddrinfo's codes for a name that did not resolve (Node's dns.lookup, c-ares). */
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);

/** What the system error codes of a failed connection mean, in words. */
const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  ETIMEDOUT: 'connect timed out',
  ENOTFOUND: 'name not resolved',
  EAI_NONAME: 'name not resolved',
  EAI_NODATA: 'name has no address',
  EAI_AGAIN: 'name lookup failed for now',
  EAI_FAIL: 'name lookup failed',
};

/**
 * An item's error message for an error thrown by undici: the cause in words, then the error's
 * own message (`connection refused (connect ECONNREFUSED 127.0.0.1:9)`), or the message alone;
 * always one line. An OpenSSL error, whose message is OpenSSL's error queue line (hex, source file
 * and a newline), is told by its reason and code: `TLS failed: wrong version number
 * (ERR_SSL_WRONG_VERSION_NUMBER)` — what an https:// URL to a plain-HTTP port gives.
 */
export function describeError(err: unknown): string {
  const e = err as { message?: string; code?: string; reason?: unknown };
  const code = e?.code ?? '';
  if (code.startsWith('ERR_SSL_') && typeof e.reason === 'string') return `TLS failed: ${e.reason} (${code})`;
  const message = (e?.message ?? String(err)).trim().replace(/\s*\n\s*/g, ' ');
  const cause = CAUSES[code];
  return cause === undefined ? message : `${cause} (${message})`;
}

/** The cause part of an item's error message: `connection refused` of `connection refused (...)`. */
export function shortCause(message: string): string {
  const i = message.indexOf(' (');
  return i > 0 ? message.slice(0, i) : message;
}

/** Map an error thrown by undici or zlib to a kind. */
export function classifyError(err: unknown, aborted: boolean): FetchErrorKind {
  if (aborted) return 'timeout';
  const code = (err as { code?: string })?.code ?? '';
  const name = (err as { name?: string })?.name ?? '';
  if (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'ETIMEDOUT' ||
    name === 'TimeoutError'
  ) {
    return 'timeout';
  }
  if (code.startsWith('Z_') || code === 'ERR_BUFFER_TOO_LARGE') return 'decode';
  if (DNS_CODES.has(code)) return 'dns';
  // undici's maxHeaderSize: the response is refused for its size, like a body over --max-bytes.
  if (code === 'UND_ERR_HEADERS_OVERFLOW') return 'too-large';
  return 'network';
}
