/**
 * The hops of one try of one URL (3xx redirects and refresh redirects) and the redirect-loop
 * rule: a loop is only a loop when nothing changed between hops. Coming back to a URL with the
 * same session state (the same cookies for it) repeats a request already made; coming back with
 * new cookies is the cookie wall's "302 to itself with Set-Cookie", which must be followed.
 */

/** One URL's chain of hops, first URL included. */
export class HopTrail {
  private readonly visited = new Set<string>();
  private readonly chain: string[] = [];

  /**
   * @param first the URL tried first (the frontier entry's URL).
   * @param state a digest of the session state its request carries (`Fetcher.sessionState`).
   */
  constructor(first: string, state: string) {
    this.add(first, state);
  }

  /** Record a hop to `url` made with session state `state`. */
  add(url: string, state: string): void {
    this.visited.add(`${state} ${url}`);
    this.chain.push(url);
  }

  /** Whether a hop to `url` with `state` would repeat an earlier request exactly (a loop). */
  repeats(url: string, state: string): boolean {
    return this.visited.has(`${state} ${url}`);
  }

  /** Whether `url` was requested in this trail (with any session state). */
  has(url: string): boolean {
    return this.chain.includes(url);
  }

  /** URLs in the order they were requested (for messages: `a -> b -> a`). */
  get urls(): readonly string[] {
    return this.chain;
  }

  /** The URL of the last hop. */
  get last(): string {
    return this.chain[this.chain.length - 1];
  }

  /** Redirects taken so far (hops after the first request). */
  get redirects(): number {
    return this.chain.length - 1;
  }
}
