/**
 * What the crawl engine asks of a content index (content dedup): which item line first stored a
 * body with a given SHA-256, so an identical body is pointed to (`data.duplicateOf`) rather than
 * stored again. {@link ContentIndex} is the embedded implementation (one per worker, beside its
 * items file); a shared (Redis) index implements the same.
 */

/** A 64-bit content key: the first 8 bytes of a SHA-256 digest as two big-endian uint32 halves. */
export interface ContentKey {
  /** Digest bytes 0–3, as an unsigned 32-bit integer. */
  hi: number;
  /** Digest bytes 4–7, as an unsigned 32-bit integer. */
  lo: number;
}

/**
 * What {@link ContentDedup.find} knows about the original of a body.
 * - `url`: known in memory (claimed by a page still being written, or a recent line).
 * - `ordinal`: only the items-file line of the original is known; get its URL with
 *   {@link ContentDedup.resolveUrl}.
 */
export type ContentMatch = { url: string; ordinal?: undefined } | { url?: undefined; ordinal: number };

/** Where the index reads back the item lines it points to. */
export interface ContentIndexFiles {
  /** This worker's items file (`<out>/items/<worker-id>.jsonl`). */
  itemsPath: string;
  /** Make every item line reported so far reach the items file (the journal's flush). */
  flush: () => Promise<void>;
}

/** A content index, as the engine uses it (see {@link ContentIndex} for the contract of each call). */
export interface ContentDedup {
  /** Record the next line of the items file, in order. @returns its 0-based line number. */
  appendLine(bytes: number, url?: string): number;
  /** The original of a body: its URL when known in memory, else its line; null when new. */
  find(key: ContentKey): ContentMatch | null;
  /** Claim a new body for `url` before its item line is written. @returns false when known. */
  claim(key: ContentKey, url: string): boolean;
  /** The claimed body's item line is `ordinal`. */
  commit(key: ContentKey, ordinal: number): void;
  /** Forget a claim whose body could not be stored (a later copy is stored as the original). */
  release(key: ContentKey): void;
  /** Add a body stored by line `ordinal` (rebuilding on resume). @returns false when known. */
  add(key: ContentKey, ordinal: number): boolean;
  /** The `url` of line `ordinal` (read back when not in memory). Never rejects; null if unknown. */
  resolveUrl(ordinal: number, sha256?: string): Promise<string | null>;
}
