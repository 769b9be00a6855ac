/**
 * One line of an items file read back for export: parsed, and checked to be an item (an object
 * with a `url` and a valid `fetchedAt`) — what the order and the newest-version choice need. A
 * line that is not one is damaged: the reader skips it with a warning, never stops on it.
 */
import type { Item } from '../engine/item.js';

/** An item line read back, with its fetch time. */
export interface ItemLine {
  /** The item as written (other fields are not checked: readers of it check each field's type). */
  item: Item;
  /** `fetchedAt` in ms since the epoch. */
  at: number;
}

/**
 * Parse one line of an items file.
 * @returns the item and its fetch time, or why the line is not an item (a few words for a
 *   warning: `not JSON`, `no url`, `no valid fetchedAt`).
 */
export function parseItemLine(line: string): ItemLine | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return line.trim() === '' ? 'an empty line' : 'not JSON';
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  const o = v as Record<string, unknown>;
  if (typeof o.url !== 'string' || o.url === '') return 'no url';
  const at = typeof o.fetchedAt === 'string' ? Date.parse(o.fetchedAt) : Number.NaN;
  if (!Number.isFinite(at)) return 'no valid fetchedAt';
  return { item: o as unknown as Item, at };
}
