/**
 * URL canonicalization: turns an href found in a page (or a seed) into the one string form
 * that the seen-set, scope rules and ownership hashing all key on, or rejects it.
 */

/** Char codes used by the scanners below (avoid regexes on the hot path). */
const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const PERCENT = 0x25;
const HASH = 0x23;
const QUESTION = 0x3f;
const AT = 0x40;

/** Uppercase hex digits, indexed by nibble value. */
const HEX_UPPER = '0123456789ABCDEF';

/**
 * Nibble value of each ASCII code (-1 for non-hex), so percent-escape checks are one array read.
 */
const HEX_VALUE: Int8Array = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < 10; i++) table[0x30 + i] = i;
  for (let i = 0; i < 6; i++) {
    table[0x41 + i] = 10 + i;
    table[0x61 + i] = 10 + i;
  }
  return table;
})();

/** RFC 3986 §2.3 unreserved characters (ALPHA DIGIT - . _ ~): escapes of these are decoded. */
const UNRESERVED: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (let c = 0x41; c <= 0x5a; c++) table[c] = 1;
  for (let c = 0x61; c <= 0x7a; c++) table[c] = 1;
  for (let c = 0x30; c <= 0x39; c++) table[c] = 1;
  for (const ch of '-._~') table[ch.charCodeAt(0)] = 1;
  return table;
})();

/** Characters allowed after the first letter of a URL scheme (RFC 3986 §3.1: ALPHA DIGIT + - .). */
function isSchemeChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2b ||
    c === 0x2d ||
    c === 0x2e
  );
}

/**
 * Result of the cheap pre-scan of an href's scheme, which lets us skip the parser entirely for
 * `mailto:`, `javascript:`, `data:` ... and skip re-parsing the base for absolute http(s) URLs.
 */
type SchemeKind = 0 | 1 | 2;
/** No scheme found (relative reference), or the scan was inconclusive (e.g. a tab in it). */
const SCHEME_UNKNOWN = 0;
/** `http:`/`https:` followed by two slashes: absolute, the base is irrelevant. */
const SCHEME_ABSOLUTE_HTTP = 1;
/** A scheme other than http/https: never crawled. */
const SCHEME_OTHER = 2;

/** Classifies `href` by its scheme, if it has one, without allocating. */
function scanScheme(href: string): SchemeKind {
  const len = href.length;
  let i = 0;
  // The URL parser strips leading C0 controls and spaces; so do we (covers HTML's ASCII whitespace).
  while (i < len && href.charCodeAt(i) <= 0x20) i++;
  const start = i;
  const first = href.charCodeAt(i) | 0x20;
  if (first < 0x61 || first > 0x7a) return SCHEME_UNKNOWN;
  i++;
  while (i < len && isSchemeChar(href.charCodeAt(i))) i++;
  if (i >= len || href.charCodeAt(i) !== COLON) return SCHEME_UNKNOWN;
  const schemeLen = i - start;
  if (schemeLen !== 4 && schemeLen !== 5) return SCHEME_OTHER;
  // Case-insensitive compare against "http"/"https" without allocating a lowercase copy.
  if (
    (href.charCodeAt(start) | 0x20) !== 0x68 ||
    (href.charCodeAt(start + 1) | 0x20) !== 0x74 ||
    (href.charCodeAt(start + 2) | 0x20) !== 0x74 ||
    (href.charCodeAt(start + 3) | 0x20) !== 0x70 ||
    (schemeLen === 5 && (href.charCodeAt(start + 4) | 0x20) !== 0x73)
  ) {
    return SCHEME_OTHER;
  }
  // "http:foo" and "http:/foo" are relative to an http base (WHATWG special-scheme rules), so only
  // "http://" (or backslashes, which special schemes treat as slashes) is base-independent.
  const a = href.charCodeAt(i + 1);
  const b = href.charCodeAt(i + 2);
  if ((a === SLASH || a === BACKSLASH) && (b === SLASH || b === BACKSLASH)) return SCHEME_ABSOLUTE_HTTP;
  return SCHEME_UNKNOWN;
}

/**
 * Uppercases the hex digits of every percent-escape and decodes escapes of unreserved characters
 * (RFC 3986 §6.2.2.1–2). Returns the input unchanged (same string) when nothing needs doing.
 * Escapes that are not `%` + two hex digits are left alone.
 */
function normalizePercentEscapes(s: string, from: number): string {
  let out = '';
  let copied = 0; // s[copied..i) is pending, not yet appended to out
  const len = s.length;
  for (let i = from; i < len - 2; i++) {
    if (s.charCodeAt(i) !== PERCENT) continue;
    const h1 = s.charCodeAt(i + 1);
    const h2 = s.charCodeAt(i + 2);
    const v1 = h1 < 128 ? HEX_VALUE[h1] : -1;
    const v2 = h2 < 128 ? HEX_VALUE[h2] : -1;
    if (v1 < 0 || v2 < 0) continue;
    const byte = (v1 << 4) | v2;
    if (byte < 128 && UNRESERVED[byte] === 1) {
      out += s.slice(copied, i) + String.fromCharCode(byte);
    } else if ((h1 >= 0x61 && h1 <= 0x66) || (h2 >= 0x61 && h2 <= 0x66)) {
      out += `${s.slice(copied, i)}%${HEX_UPPER[v1]}${HEX_UPPER[v2]}`;
    } else {
      i += 2;
      continue;
    }
    i += 2;
    copied = i + 1;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/**
 * Resolves `href` against `base` and returns its canonical absolute form, or `null` when the
 * result is not a valid http/https URL.
 *
 * Follows the WHATWG URL Standard for parsing (leading/trailing C0 controls and spaces trimmed,
 * tabs and newlines inside removed, scheme and host lowercased, IDN hosts converted to punycode,
 * default port dropped, dot segments resolved, an empty path becoming `/`, non-ASCII
 * percent-encoded as UTF-8), then applies RFC 3986 §6.2.2 normalization: percent-escapes
 * uppercased (`%2f` → `%2F`) and escapes of unreserved characters decoded (`%7E` → `~`).
 * The fragment is dropped, and so is an empty query (`?` alone); a non-empty query is kept
 * byte for byte, parameters in their original order.
 *
 * `mailto:`, `javascript:`, `data:`, `file:`, `ftp:` and every other non-http(s) scheme yield
 * `null` without being parsed. A relative `href` with no (or an invalid) `base` yields `null`.
 * Never throws. The result is a fixed point: `canonicalize(canonicalize(x)) === canonicalize(x)`.
 *
 * @param href an absolute or relative URL reference, e.g. an `href` attribute value as written.
 * @param base the URL to resolve against (page URL or `<base href>`); a string is re-parsed on
 *   every call, so pass absolute hrefs without it when you can — absolute `http(s)://` hrefs
 *   ignore it anyway.
 * @returns the canonical URL string, e.g. `http://xn--bcher-kva.example/%C3%BC?b=1&a=2`.
 */
export function canonicalize(href: string, base?: string | URL): string | null {
  const kind = scanScheme(href);
  if (kind === SCHEME_OTHER) return null;
  const url =
    kind === SCHEME_ABSOLUTE_HTTP || base === undefined
      ? URL.parse(href)
      : URL.parse(href, typeof base === 'string' ? base : base.href);
  if (url === null) return null;
  let out = url.href;
  // Protocol check on the serialization: "http:" or "https:" (already lowercased by the parser).
  if (out.charCodeAt(4) === COLON) {
    if (!out.startsWith('http')) return null;
  } else if (!out.startsWith('https:')) {
    return null;
  }
  // The first '#' in a serialized URL always starts the fragment (it is escaped everywhere else).
  const hash = out.indexOf('#');
  if (hash !== -1) out = out.slice(0, hash);
  if (out.charCodeAt(out.length - 1) === QUESTION && url.search === '') out = out.slice(0, -1);
  const pct = out.indexOf('%');
  return pct === -1 ? out : normalizePercentEscapes(out, pct);
}

/**
 * The `host` of a canonical URL: lowercase hostname plus `:port` when the port is not the
 * scheme's default, without userinfo — e.g. `example.com`, `example.com:8080`, `[::1]:8080`.
 * Plain string slicing (no URL parse), since it runs for every URL (ownership, politeness slots).
 *
 * @param url a canonical URL as returned by {@link canonicalize}; other input gives an
 *   unspecified (but non-throwing) result.
 */
export function hostKey(url: string): string {
  const sep = url.indexOf('//');
  let start = sep === -1 ? 0 : sep + 2;
  const len = url.length;
  let end = start;
  for (; end < len; end++) {
    const c = url.charCodeAt(end);
    if (c === SLASH || c === QUESTION || c === HASH) break;
    if (c === AT) start = end + 1; // userinfo ends at the last '@' of the authority
  }
  return url.slice(start, end);
}
