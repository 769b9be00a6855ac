/**
 * Canonical-link merging (RFC 6596 `<link rel="canonical">`, issue 27 §4): one article reached
 * under several URLs (`/story?from=home`, `/story?from=menu`) is collected once. A page fetched
 * (2xx) whose stated canonical URL (`data.canonical`, read by `extract/page-metadata.ts`) is
 * another URL of the same site claims it, unless it was collected already: the canonical is then
 * seen (a later link to it is not fetched), and another page stating the same canonical — or the
 * canonical URL itself, fetched later — is not collected again: its item says `data.duplicateOf`
 * the page collected for it, and its body is not stored. A page that is its own canonical claims
 * nothing: it is known as collected by what the worker knows of the pages it fetched (continuous
 * collection: `revisits.ts`, which also keeps each claim across restarts).
 */

/** Who collected each canonical URL, for one worker. */
export class Canonicals {
  /** Canonical URL → the URL of the page collected for it (only where the two differ). */
  private readonly claims = new Map<string, string>();

  /**
   * @param normalize the crawl's form of a URL (canonicalized, session ids and tracking
   *   parameters removed), or null when it is not an http(s) URL.
   * @param collected whether a URL was fetched and stored before (continuous collection), or
   *   absent (one-shot crawls: only the claims are known).
   */
  constructor(
    private readonly normalize: (url: string) => string | null,
    private readonly collected?: (url: string) => boolean,
  ) {}

  /**
   * Page `url` was fetched (a 2xx) and states `stated` as its canonical URL (anything else: none).
   * @returns `canonical`: the stated canonical's normal form when it is another URL of the same
   *   site (the caller marks it seen), else null; `collectedAs`: the page already collected for
   *   it — or for `url` itself, when another page claimed `url` — when that is not `url` (then
   *   `url` is not collected again), else null (a canonical not collected yet is now claimed).
   */
  claim(url: string, stated: unknown): { canonical: string | null; collectedAs: string | null } {
    const normal = typeof stated === 'string' ? this.normalize(stated) : null;
    const canonical = normal !== null && normal !== url && sameSite(normal, url) ? normal : null;
    if (canonical === null) {
      const first = this.claims.get(url);
      return { canonical: null, collectedAs: first !== undefined && first !== url ? first : null };
    }
    const first =
      this.claims.get(canonical) ?? (this.collected?.(canonical) === true ? canonical : undefined);
    if (first === undefined) {
      this.claims.set(canonical, url);
      return { canonical, collectedAs: null };
    }
    return { canonical, collectedAs: first === url ? null : first };
  }

  /** A claim read back from the state: page `url` stated `stated` (first claims win). */
  restore(url: string, stated: string): void {
    const normal = this.normalize(stated);
    if (normal !== null && normal !== url && sameSite(normal, url) && !this.claims.has(normal)) {
      this.claims.set(normal, url);
    }
  }
}

/** Same site: the same host name, a leading `www.`, the scheme and the port aside. */
function sameSite(a: string, b: string): boolean {
  try {
    const host = (u: string) => new URL(u).hostname.replace(/^www\./, '');
    return host(a) === host(b);
  } catch {
    return false;
  }
}
