/**
 * Which items an export takes: from some sources only (`--source`), fetched since a time or a
 * round (`--since`), successful ones only (`--ok-only`). The newest version of a page is chosen
 * among the items that pass (so `--ok-only` gives each page's newest successful fetch).
 */
import { UsageError } from '../config/usage-error.js';
import type { ItemLine } from './item-line.js';

/** Where an export starts: a time (ms since the epoch), or a round of continuous collection. */
export type Since = { time: number } | { round: number };

/** What passes. Every condition given must hold; none given takes every item. */
export interface ItemFilterOptions {
  /** Items whose `source` is one of these. */
  sources?: readonly string[];
  since?: Since;
  /**
   * Only successful fetches: no `error`, no `data.storeError`, and a 2xx status (a 304 or a
   * recorded redirect is not one: the page's content is in an earlier item).
   */
  okOnly?: boolean;
}

/**
 * `--since` as the user gives it: an ISO 8601 date or date-time (`2026-12-01`,
 * `2026-12-01T08:00:00Z`; a date-time without a zone is UTC), or `round:N` (items of round N and
 * later; an item without a round is round 0).
 * @param flag the option as named in the error (`--since`, or the library's `since`).
 * @throws UsageError for anything else.
 */
export function parseSince(value: string | Date, flag = '--since'): Since {
  if (value instanceof Date) {
    if (Number.isFinite(value.getTime())) return { time: value.getTime() };
    throw new UsageError(`${flag}: an invalid Date`);
  }
  const round = /^round:(\d{1,9})$/.exec(value.trim());
  if (round) return { round: Number(round[1]) };
  const iso =
    /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/.exec(
      value.trim(),
    );
  const time = iso
    ? Date.parse(iso[2] === undefined ? `${iso[1]}T00:00:00Z` : `${iso[1]}T${iso[2]}${iso[3] ?? 'Z'}`)
    : Number.NaN;
  if (!Number.isFinite(time)) {
    throw new UsageError(
      `${flag} ${JSON.stringify(value)}: expected an ISO 8601 date or date-time (2026-12-01, 2026-12-01T08:00:00Z) or round:N`,
    );
  }
  return { time };
}

/** The test of {@link ItemFilterOptions}, or null when it takes every item. */
export function itemFilter(options: ItemFilterOptions): ((line: ItemLine) => boolean) | null {
  const { sources, since, okOnly = false } = options;
  const sourceSet = sources && sources.length > 0 ? new Set(sources) : null;
  if (sourceSet === null && since === undefined && !okOnly) return null;
  return ({ item, at }) => {
    if (sourceSet !== null && !sourceSet.has(item.source)) return false;
    if (since !== undefined) {
      if ('time' in since) {
        if (at < since.time) return false;
      } else if (roundOf(item) < since.round) return false;
    }
    return !okOnly || isOk(item);
  };
}

/** The round of continuous collection an item belongs to: `data.round`, or 0. */
function roundOf(item: ItemLine['item']): number {
  const r = item.data?.round;
  return typeof r === 'number' ? r : 0;
}

function isOk(item: ItemLine['item']): boolean {
  const status = item.status;
  return (
    !item.error &&
    item.data?.storeError === undefined &&
    typeof status === 'number' &&
    status >= 200 &&
    status < 300
  );
}
