/**
 * A budget of distinct URLs per URL *shape* (host and path/query with every run of digits
 * generalised: `/cal/2024/05/` and `/cal/1999/12/` are one shape), the calendar-trap defence:
 * an optional cap per shape, and a date-like shape frozen at what it has when the crawler sees its
 * pages are near-duplicates of one another (engine feedback), so a chain of empty months ends early
 * while an archive of distinct pages is never cut by it.
 */
import { HashSet32 } from './hash-set32.js';

/**
 * Default cap of distinct URLs per shape: 0, unlimited. Sites of numbered pages (`/p/123`,
 * `/t/456789`, pagination) have one shape for millions of real pages, so a cap is opt-in; the
 * calendar defence is the near-duplicate freeze of date-like shapes ({@link calendarShape}).
 */
export const SHAPE_DEFAULTS = { maxShapeVariants: 0 } as const;

/**
 * Most shapes tracked at once; beyond it the oldest are forgotten (their counts restart), which
 * bounds memory to a few MB for any crawl.
 */
const SHAPE_TRACKED_LIMIT = 65_536;

/** 32-bit FNV-1a of a string. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The shape of a canonical URL: its host kept as is, its path and query with each run of ASCII
 * digits replaced by `#` (`http://h/cal/2024/05/?d=1` → `http://h/cal/#/#/?d=#`), or null when
 * the path and query hold no digit (such URLs are never budgeted as a shape).
 */
export function urlShape(url: string): string | null {
  const sep = url.indexOf('//');
  const path = url.indexOf('/', sep === -1 ? 0 : sep + 2);
  if (path === -1) return null;
  let out = '';
  let copied = path;
  let digits = false;
  for (let i = path; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c < 0x30 || c > 0x39) continue;
    digits = true;
    out += `${url.slice(copied, i)}#`;
    while (i + 1 < url.length && url.charCodeAt(i + 1) >= 0x30 && url.charCodeAt(i + 1) <= 0x39) i++;
    copied = i + 1;
  }
  return digits ? url.slice(0, path) + out + url.slice(copied) : null;
}

/**
 * A year (1600–2999) then a separator and a month (1–12): `/2024/05/`, `2024-5`, `1999_12`.
 * Tested on the path and query only.
 */
const YEAR_MONTH = /(?:^|[^0-9])(?:1[6-9]|2[0-9])[0-9]{2}[-/_.](?:0?[1-9]|1[0-2])(?:[^0-9]|$)/;

/** A query parameter named for a date with a number in its value: `?month=5`, `&date=20240501`. */
const DATE_PARAM = /[?&;](?:year|month|date|day|week|cal(?:endar)?)[^=&]*=[^&]*[0-9]/i;

/**
 * The shape of a date-like URL (a calendar's: a year and month in the path or query, or a
 * date-named query parameter with a number), else null. Only such shapes are watched for
 * near-duplicate pages: numbered pages that are not dates (`/p/123`, `?page=4`) keep their own
 * limits (`--max-query-variants`), and templated sites of numbered pages are never cut by
 * their likeness.
 */
export function calendarShape(url: string): string | null {
  const shape = urlShape(url);
  if (shape === null) return null;
  const sep = url.indexOf('//');
  const path = url.slice(url.indexOf('/', sep === -1 ? 0 : sep + 2));
  return YEAR_MONTH.test(path) || DATE_PARAM.test(path) ? shape : null;
}

/** Per shape: its URLs (one hash, or a set) and whether it is frozen. */
interface ShapeEntry {
  urls: number | HashSet32;
  frozen: boolean;
}

/** Counts distinct URLs per shape against a cap; frozen shapes admit only the URLs they have. */
export class ShapeBudget {
  private readonly shapes = new Map<number, ShapeEntry>();

  /** @param maxPerShape distinct URLs admitted per shape; 0 = unlimited (freezing still works). */
  constructor(private readonly maxPerShape: number = SHAPE_DEFAULTS.maxShapeVariants) {}

  /**
   * Count `url` toward its shape. @returns false when its shape is full or frozen and `url` is
   * not already one of its URLs (a trap link); true otherwise, also for shapeless URLs.
   */
  admit(url: string): boolean {
    const shape = urlShape(url);
    if (shape === null) return true;
    const key = fnv1a(shape);
    const h = fnv1a(url) || 1;
    const entry = this.shapes.get(key);
    if (entry === undefined) {
      if (this.shapes.size >= SHAPE_TRACKED_LIMIT)
        this.shapes.delete(this.shapes.keys().next().value as number);
      this.shapes.set(key, { urls: h, frozen: false });
      return true;
    }
    const size = typeof entry.urls === 'number' ? 1 : entry.urls.size;
    const has = typeof entry.urls === 'number' ? entry.urls === h : entry.urls.has(h);
    if (has) return true;
    if (entry.frozen || (this.maxPerShape > 0 && size >= this.maxPerShape)) return false;
    if (typeof entry.urls === 'number') {
      const set = new HashSet32();
      set.add(entry.urls);
      entry.urls = set;
    }
    entry.urls.add(h);
    return true;
  }

  /**
   * Freeze the shape of `url`: from now on it admits only the URLs it already counted.
   * @returns true when the shape was not frozen before (and `url` has a shape).
   */
  freeze(url: string): boolean {
    const shape = urlShape(url);
    if (shape === null) return false;
    const key = fnv1a(shape);
    const entry = this.shapes.get(key);
    if (entry === undefined) {
      this.shapes.set(key, { urls: fnv1a(url) || 1, frozen: true });
      return true;
    }
    if (entry.frozen) return false;
    entry.frozen = true;
    return true;
  }
}
