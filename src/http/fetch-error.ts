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
  | 'decode'
  | 'out-of-scope'
  /**
   * A source read a non-2xx answer it asked for and says what was asked for does not exist (a
   * repository without a README): final, not retried.
   */
  | 'not-found'
  /** The source failed on the page (its `handle` threw or returned something wrong), or its `authorize`. */
  | 'source';

/** A failed fetch of `url`. `status` is set when a response arrived. */
export class FetchError extends Error {
  constructor(
    readonly kind: FetchErrorKind,
    readonly url: string,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'FetchError';
  }
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
  // undici's maxHeaderSize: the response is refused for its size, like a body over --max-bytes.
  if (code === 'UND_ERR_HEADERS_OVERFLOW') return 'too-large';
  return 'network';
}
