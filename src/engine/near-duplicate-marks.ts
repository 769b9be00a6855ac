/**
 * Near-duplicate marking: a page whose main text is nearly that of a page written before it by
 * this worker — a mirror, a print version, the same post under two URLs — gets
 * `data.nearDuplicateOf: <that page's url>`. The text is known by the SimHash its source put in
 * `data.simhash` (16 hex digits, `extract/simhash.ts`: the built-in sources give it for each HTML
 * page they make Markdown of); "nearly" is within 3 bits (`dedup/near-duplicate-index.ts`).
 *
 * Decided when the item line is written (the acknowledgement), in the order of the items file,
 * so that replaying the file at resume ({@link NearDuplicateMarks.replay}) rebuilds exactly the
 * index the worker had: no state file of its own. Only originals — pages not marked — are added:
 * a `nearDuplicateOf` always names the URL of an item that is not itself marked (dropping every
 * marked item keeps one page of each group), and a chain of small edits cannot drift away from
 * its first page.
 * Per worker process, like content dedup: two copies fetched by different processes are not
 * compared.
 */
import { NearDuplicateIndex } from '../dedup/near-duplicate-index.js';
import { simhashParts } from '../extract/simhash.js';
import type { Item } from './item.js';

/** The fields of an item line the marking reads (an {@link Item}, or a line read back at resume). */
export interface ItemFields {
  url?: unknown;
  error?: unknown;
  data?: unknown;
}

/** Marks near-duplicate pages of one worker, and keeps its index of originals. */
export class NearDuplicateMarks {
  /** @param index the index of originals (a new one with its defaults when omitted). */
  constructor(private readonly index: NearDuplicateIndex = new NearDuplicateIndex()) {}

  /** Originals in the index. */
  get size(): number {
    return this.index.size;
  }

  /**
   * An item is about to be written: when it is a near-duplicate of an original of another URL, set
   * `data.nearDuplicateOf` to the nearest one's `url` (the first written, of equally near ones);
   * otherwise it is an original, added to the index — unless an earlier version of the same URL
   * (a page fetched again by rounds) is near, or the index is full. Items that take no part: a
   * failure (`error`), a body not stored (`data.storeError`), no valid `data.simhash` (16 lowercase
   * hex digits), which includes every exact duplicate (`duplicateOf`, `unchanged`: no source data).
   * @returns the original's URL when the item was marked, else null.
   */
  mark(item: Item): string | null {
    const original = this.judge(item);
    if (original !== null) item.data = { ...item.data, nearDuplicateOf: original };
    return original;
  }

  /**
   * An item line read back at resume, in the order of the items file: judged as {@link mark} did
   * when it was written (re-deciding, not trusting its `nearDuplicateOf`), so the index comes back
   * as it was — or, for lines written with the marking off, as it would have been.
   */
  replay(line: ItemFields): void {
    this.judge(line);
  }

  private judge(item: ItemFields): string | null {
    const url = item.url;
    if (typeof url !== 'string') return null;
    if (item.error !== undefined && item.error !== null) return null;
    const data = item.data;
    if (typeof data !== 'object' || data === null) return null;
    const fields = data as Record<string, unknown>;
    if (fields.storeError !== undefined) return null;
    const key = simhashParts(fields.simhash);
    if (key === null) return null;
    const { match, self } = this.index.lookup(key, url);
    if (match !== null) return match.url;
    if (!self) this.index.add(key, url);
    return null;
  }
}
