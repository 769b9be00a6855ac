/**
 * Free tries for URLs whose page (or body) went with a dead page thread: the failure was ours,
 * not the server's, so the URL is fetched again without using up `--retries`; but at most
 * {@link LOST_FREE_TRIES} times, so a thread that dies at every start cannot loop the crawl forever.
 */

/** Free tries of a URL whose page went with a dead page thread; past this, tries count. */
export const LOST_FREE_TRIES = 3;

/** Free tries used, per URL, until its item is written. */
export class LostPageRetries {
  private readonly used = new Map<string, number>();

  /** Whether `url` gets a free try now (one more is used). */
  take(url: string): boolean {
    const n = (this.used.get(url) ?? 0) + 1;
    this.used.set(url, n);
    return n <= LOST_FREE_TRIES;
  }

  /** The item of `url` is written. */
  forget(url: string): void {
    this.used.delete(url);
  }
}
