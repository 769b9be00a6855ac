/**
 * Declarative refresh (`<meta http-equiv="refresh" content="0; URL=/next.html">` and the
 * `Refresh` response header), parsed by the HTML Standard's "shared declarative refresh steps"
 * (§7.4.x of the living standard, the steps `<meta http-equiv=refresh>` and the `Refresh` header
 * both run).
 */

/**
 * Longest delay, in seconds, for which a declarative refresh counts as a redirect of the page; a
 * longer one (a page that reloads or moves on after a while: a slideshow, a "you will be taken to
 * ..." notice) leaves the page as it is, and its URL is only a link. 30 s is longer than any
 * redirect page waits and shorter than auto-advancing pages.
 */
export const REFRESH_REDIRECT_MAX_DELAY_S = 30;

/** A parsed declarative refresh. */
export interface Refresh {
  /** Seconds to wait (digits only; fractions are ignored, as the standard says). */
  delaySeconds: number;
  /** The URL as written (to resolve against the document), or null: the document refreshes itself. */
  url: string | null;
}

function isAsciiWhitespace(c: number): boolean {
  return c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d || c === 0x20;
}

/**
 * Parse a refresh value by the shared declarative refresh steps (steps 2–11, without resolving
 * the URL): optional whitespace, a delay of ASCII digits (or `.`-led), any further digits and
 * dots ignored; then `;` or `,` and whitespace; then the URL, after an optional `URL =` (any
 * case, whitespace around `=`) and an optional quote (`'` or `"`, the URL ending at its match).
 *
 * @param input the `content` attribute or `Refresh` header value.
 * @returns null when the standard says to return without refreshing (no digits and no `.`, or a
 *   character other than `;`, `,` or whitespace after the delay).
 */
export function parseRefresh(input: string): Refresh | null {
  const n = input.length;
  let pos = 0;
  while (pos < n && isAsciiWhitespace(input.charCodeAt(pos))) pos++;
  const digitsStart = pos;
  while (pos < n && input.charCodeAt(pos) >= 0x30 && input.charCodeAt(pos) <= 0x39) pos++;
  let delaySeconds = 0;
  if (pos === digitsStart) {
    if (input.charCodeAt(pos) !== 0x2e /* . */) return null;
  } else {
    delaySeconds = Number(input.slice(digitsStart, pos));
  }
  while (pos < n) {
    const c = input.charCodeAt(pos);
    if ((c < 0x30 || c > 0x39) && c !== 0x2e) break;
    pos++;
  }
  if (pos < n) {
    const c = input.charCodeAt(pos);
    if (c !== 0x3b && c !== 0x2c && !isAsciiWhitespace(c)) return null;
    while (pos < n && isAsciiWhitespace(input.charCodeAt(pos))) pos++;
    const d = input.charCodeAt(pos);
    if (d === 0x3b || d === 0x2c) pos++;
    while (pos < n && isAsciiWhitespace(input.charCodeAt(pos))) pos++;
  }
  if (pos >= n) return { delaySeconds, url: null };
  let urlString = input.slice(pos);
  // "URL =" is optional; when its letters do not follow through, the remainder is the URL
  // (steps 11.3–11.6 jump to "parse" with urlString unchanged).
  const lower = (i: number) => input.charCodeAt(i) | 0x20;
  let skipQuotes = true;
  if (lower(pos) === 0x75 /* u */) {
    pos++;
    skipQuotes = false;
    if (lower(pos) === 0x72 /* r */) {
      pos++;
      if (lower(pos) === 0x6c /* l */) {
        pos++;
        while (pos < n && isAsciiWhitespace(input.charCodeAt(pos))) pos++;
        if (input.charCodeAt(pos) === 0x3d /* = */) {
          pos++;
          while (pos < n && isAsciiWhitespace(input.charCodeAt(pos))) pos++;
          skipQuotes = true;
        }
      }
    }
  }
  if (skipQuotes) {
    const q = input.charCodeAt(pos);
    let quote = '';
    if (q === 0x27 || q === 0x22) {
      quote = input[pos];
      pos++;
    }
    urlString = input.slice(pos);
    if (quote !== '') {
      const end = urlString.indexOf(quote);
      if (end !== -1) urlString = urlString.slice(0, end);
    }
  }
  return { delaySeconds, url: urlString };
}
