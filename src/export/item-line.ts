/**
 * One line of an items file read back for export: parsed, and checked to be an item (an object
 * with a `url` and a valid `fetchedAt`) — what the order and the newest-version choice need. A
 * line that is not one is damaged: the reader skips it with a warning, never stops on it.
 * {@link scanItemLine} reads only what the first pass of an export needs, without parsing the
 * whole line.
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

/** What the first pass of an export needs of a line (see {@link scanItemLine}). */
export interface ScannedLine {
  url: string;
  /** `fetchedAt` in ms since the epoch. */
  at: number;
  /** `data.unchanged` is true: a fetch that found the page as it was (no body of its own). */
  unchanged: boolean;
}

const URL_START = '{"url":"';
const FETCHED_AT = '"fetchedAt":"';
const UNCHANGED = '"unchanged":true';

/**
 * The url, fetch time and `unchanged` mark of an item line, read without parsing it whole when it
 * is as the collector writes it (`JSON.stringify` of an Item: `url` first, `fetchedAt` the first
 * key of that name, a URL without escapes); any other line is parsed (a third of the cost).
 * Outside a string a quote is never escaped, so the keys are found where JSON has them.
 * @returns the fields, or why the line is not an item (as {@link parseItemLine} says it). A line
 *   that starts and ends like an item but is damaged in between may pass here; the second pass
 *   parses every line and skips it then.
 */
export function scanItemLine(line: string): ScannedLine | string {
  if (line.startsWith(URL_START) && line.endsWith('}')) {
    const end = line.indexOf('"', URL_START.length);
    const f = line.indexOf(FETCHED_AT, end);
    if (end > URL_START.length && f > 0 && line.lastIndexOf('\\', end) < URL_START.length) {
      const fEnd = line.indexOf('"', f + FETCHED_AT.length);
      const at = Date.parse(line.slice(f + FETCHED_AT.length, fEnd));
      if (Number.isFinite(at)) {
        const url = line.slice(URL_START.length, end);
        // Rare: parsed, so that only the item's own data.unchanged counts.
        if (!line.includes(UNCHANGED)) return { url, at, unchanged: false };
      }
    }
  }
  const parsed = parseItemLine(line);
  if (typeof parsed === 'string') return parsed;
  return { url: parsed.item.url, at: parsed.at, unchanged: isUnchanged(parsed.item) };
}

/** Whether an item is marked `data.unchanged`. */
export function isUnchanged(item: Item): boolean {
  const data: unknown = item.data;
  return typeof data === 'object' && data !== null && (data as Record<string, unknown>).unchanged === true;
}
