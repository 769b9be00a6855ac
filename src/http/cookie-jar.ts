/**
 * The HTTP session's cookies: one RFC 6265 cookie jar per worker (tough-cookie), filled from
 * `Set-Cookie` and read for each request's `Cookie` header. Cookie values are secrets of the
 * session: they stay in this module (memory only) and are never written to items, logs or state.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { CookieJar as CookieJarType } from 'tough-cookie';

// tough-cookie (and the public-suffix list it loads) is loaded with the first Set-Cookie, not at
// start: a worker that never meets a cookie does not pay ~15 ms of start-up for it.
type ToughCookie = typeof import('tough-cookie');
let tough: ToughCookie | null = null;
function loadTough(): ToughCookie {
  tough ??= createRequire(import.meta.url)('tough-cookie') as ToughCookie;
  return tough;
}

/**
 * Most cookies a jar holds (RFC 6265 §6.1: at least 3000 in all). Past it the jar starts empty
 * again: a site minting a new cookie per page cannot grow a worker's memory without bound.
 */
export const COOKIE_JAR_MAX = 3000;

/** Cookies stored between two counts of the jar's size. */
const COUNT_EVERY = 256;

/** One cookie of the session, as {@link CookieSession.cookiesFor} gives it. */
export interface SessionCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  secure: boolean;
  httpOnly: boolean;
  /** Epoch seconds; absent for a session cookie. */
  expires?: number;
}

/** A per-worker cookie jar (see the module comment). Not shared between processes. */
export class CookieSession {
  private jar: CookieJarType | null = null;
  private storedSinceCount = 0;

  /**
   * The `Cookie` header to send with a request for `url` (RFC 6265 §5.4: domain, path, secure
   * and expiry rules), or null when there is none.
   */
  headerFor(url: string): string | null {
    if (this.jar === null) return null;
    try {
      const s = this.jar.getCookieStringSync(url);
      return s === '' ? null : s;
    } catch {
      return null;
    }
  }

  /**
   * Store the `Set-Cookie` header(s) of a response to `url`. Cookies the RFC rejects (a public
   * suffix or foreign domain, a malformed line) are ignored.
   * @param setCookie the header as undici gives it (one string or one per line), or undefined.
   */
  receive(url: string, setCookie: string | string[] | undefined): void {
    if (setCookie === undefined) return;
    const lines = Array.isArray(setCookie) ? setCookie : [setCookie];
    if (lines.length === 0) return;
    this.jar ??= new (loadTough().CookieJar)();
    for (const line of lines) {
      try {
        this.jar.setCookieSync(line, url, { ignoreError: true });
      } catch {
        // a cookie tough-cookie cannot even parse: ignored like a rejected one
      }
    }
    this.storedSinceCount += lines.length;
    if (this.storedSinceCount >= COUNT_EVERY) this.bound();
  }

  /**
   * The cookies a request for `url` would carry, as a browser is given them (headless Chromium
   * of `--render`, which sends them to the page's host itself): name, value, domain, path, flags,
   * expiry in epoch seconds (absent: a session cookie). Empty when there are none.
   */
  cookiesFor(url: string): SessionCookie[] {
    if (this.jar === null) return [];
    try {
      return this.jar.getCookiesSync(url).map((c) => {
        const out: SessionCookie = {
          name: c.key,
          value: c.value,
          domain: c.domain ?? new URL(url).hostname,
          path: c.path ?? '/',
          secure: c.secure,
          httpOnly: c.httpOnly,
        };
        if (c.expires instanceof Date) out.expires = Math.floor(c.expires.getTime() / 1000);
        return out;
      });
    } catch {
      return [];
    }
  }

  /**
   * A short digest of what would be sent to `url` (`''` when nothing): lets a caller tell
   * whether the session changed between two hops without ever seeing the cookies.
   */
  stateFor(url: string): string {
    const h = this.headerFor(url);
    return h === null ? '' : createHash('sha256').update(h).digest('base64url').slice(0, 16);
  }

  /** Cookies held (tests, and the memory bound). */
  get size(): number {
    return this.jar === null ? 0 : (this.jar.serializeSync()?.cookies.length ?? 0);
  }

  /** Past {@link COOKIE_JAR_MAX} cookies the jar starts empty (see there). */
  private bound(): void {
    this.storedSinceCount = 0;
    if (this.size > COOKIE_JAR_MAX) this.jar = null;
  }
}
