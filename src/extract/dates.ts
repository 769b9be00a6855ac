/**
 * Lenient parsing of the dates that sitemaps, feeds and article pages state (`<lastmod>`,
 * `<pubDate>`, `<updated>`, `article:published_time`, JSON-LD `datePublished`, `<time datetime>`)
 * into epoch milliseconds, accepting the odd forms real sites publish.
 */

/**
 * W3C Datetime (https://www.w3.org/TR/NOTE-datetime, the form the sitemap protocol and Atom
 * require) and its common deviations: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, then optionally a `T` or a
 * space, `hh:mm[:ss[.fraction]]`, and a zone `Z`, `±hh:mm`, `±hhmm` or `±hh` (or none).
 */
const W3C_DATETIME =
  /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/i;

/** Latest year accepted; dates past it are typos (`20233-01-01`) or placeholders. */
const MAX_YEAR = 9999;

/** Earliest year accepted (the web's first pages); earlier ones are placeholders (`0000-00-00`). */
const MIN_YEAR = 1990;

/**
 * The instant a date string names, in ms since the epoch, or null when it cannot be read.
 *
 * Accepted: W3C Datetime with or without a zone (no zone means UTC, as Google reads sitemaps; a
 * date alone is midnight UTC), a space instead of `T`, `+hhmm` zones, fractions of seconds;
 * RFC 822/1123 dates as RSS uses them (`Tue, 10 Jun 2003 04:00:00 GMT`, `+0200`, `EST`, two-digit
 * years, no weekday; no zone means UTC); a Unix time in seconds (10 digits). Years outside
 * 1990–9999 and impossible calendar dates (`2024-02-30`) are refused. Never throws.
 *
 * @param text the date as written, surrounding whitespace ignored.
 * @returns epoch ms, or null.
 */
export function parseDate(text: string | null | undefined): number | null {
  if (typeof text !== 'string') return null;
  const s = text.trim();
  if (s === '') return null;
  const w3c = W3C_DATETIME.exec(s);
  if (w3c !== null) return fromW3c(w3c);
  if (/^\d{10}$/.test(s)) return inRange(Number(s) * 1000);
  return fromRfc822(s);
}

/** {@link parseDate} as an ISO 8601 string in UTC (`2024-05-01T10:00:00.000Z`), or null. */
export function parseDateIso(text: string | null | undefined): string | null {
  const ms = parseDate(text);
  return ms === null ? null : new Date(ms).toISOString();
}

function fromW3c(m: RegExpExecArray): number | null {
  const year = Number(m[1]);
  const month = m[2] === undefined ? 1 : Number(m[2]);
  const day = m[3] === undefined ? 1 : Number(m[3]);
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const ms = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 24 || minute > 59 || second > 60) return null;
  const utc = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59), ms);
  // Date.UTC rolls 2024-02-30 over into March: refuse it instead.
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return null;
  return inRange(utc - zoneOffsetMs(m[8]));
}

/** Offset east of UTC in ms for `Z`, `+hh:mm`, `+hhmm`, `+hh`; 0 when absent. */
function zoneOffsetMs(zone: string | undefined): number {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  return sign * (hours * 60 + minutes) * 60_000;
}

/** RFC 822 zone names V8's parser reads, plus the military `Z`. */
const HAS_ZONE = /(?:\b(?:GMT|UTC?|[ECMP][SD]T|Z)\b|[+-]\d{4}\b)\s*$/i;

/**
 * RFC 822 as RSS feeds write it, through V8's date parser, which reads that form (and without a
 * weekday, with two-digit years), but takes a date without zone as local time: one is added.
 */
function fromRfc822(s: string): number | null {
  // V8 reads "Tue, 10 Jun 2003" but not a trailing comment like "(PST)"; drop it.
  const cleaned = s.replace(/\s*\([^)]*\)\s*$/, '');
  if (!/[A-Za-z]{3}/.test(cleaned) || !/\d/.test(cleaned)) return null;
  const withZone = HAS_ZONE.test(cleaned) ? cleaned : `${cleaned} GMT`;
  const ms = Date.parse(withZone);
  return Number.isNaN(ms) ? null : inRange(ms);
}

function inRange(ms: number): number | null {
  if (!Number.isFinite(ms)) return null;
  const year = new Date(ms).getUTCFullYear();
  return year >= MIN_YEAR && year <= MAX_YEAR ? ms : null;
}
