/**
 * Maps a canonical http(s) URL to a safe relative POSIX path `<host>/<path...>` under
 * `<out>/files/`, so stored bodies can never escape that directory and distinct URLs
 * (query variants included) do not collide.
 */
import { createHash } from 'node:crypto';

/**
 * Name of the per-host directory that holds bodies whose natural path clashes with an
 * existing file or directory (`files/<host>/_conflicts/<hash>`). A URL whose first path
 * segment is literally `_conflicts` is escaped (`%5Fconflicts`) so it cannot reach it.
 */
export const CONFLICTS_DIR = '_conflicts';

/**
 * Name of the per-host directory that holds the immutable version files of pages stored with
 * versions on (`files/<host>/_versions/<url hash>/<body hash>`, see {@link versionPathFor}). A URL
 * whose first path segment is literally `_versions` is escaped (`%5Fversions`) so it cannot reach it.
 */
export const VERSIONS_DIR = '_versions';

/** Hex digits of a hash used in a name: 64 bits, unique enough per host and per URL. */
const HASH_NAME_HEX = 16;

/** File name used for directory-like URLs (path ending in `/`), as wget does. */
export const INDEX_FILE = 'index.html';

/**
 * Longest file or directory name produced, in UTF-8 bytes. Below NAME_MAX (255) with
 * room for the sink's `.part-<random>` temp suffix.
 */
export const MAX_SEGMENT_BYTES = 200;

/**
 * Longest relative path produced, in UTF-8 bytes. Under the 4000-byte contract with
 * headroom for `<out>/files/` and the temp suffix inside PATH_MAX (4096).
 */
export const MAX_RELATIVE_PATH_BYTES = 3800;

/** Longest query kept readable in the `@q=` suffix, in bytes; longer ones are hashed. */
const MAX_QUERY_BYTES = 64;
/** Characters of a long segment kept before its `~<hash>` (also capped in bytes below). */
const LONG_SEGMENT_KEEP_CHARS = 60;
const LONG_SEGMENT_KEEP_BYTES = 120;

/** Segments that need no work at all: the common case, checked first for speed. */
const PLAIN_SEGMENT = /^[A-Za-z0-9._~!$&'()+,;=-]+$/;
/** Queries kept readable: URL-safe characters only, never `/`, `\` or `?`. */
const PLAIN_QUERY = /^[A-Za-z0-9._~!$&'()*+,;=:@%-]+$/;
/**
 * Characters percent-encoded after decoding: separators, `%` (keeps the mapping
 * reversible), controls, and invisible format/line-separator characters (bidi overrides,
 * zero-width) that make names spoofable.
 */
const MUST_ESCAPE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}/\\%]/u;

const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** First 16 hex digits (64 bits) of the SHA-1 of `text`. */
function hash16(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, HASH_NAME_HEX);
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function escapeByte(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

/** Percent-encodes every UTF-8 byte of `char` (used for `/`, `\`, `%`, controls). */
function escapeChar(char: string): string {
  let out = '';
  for (const byte of Buffer.from(char, 'utf8')) out += escapeByte(byte);
  return out;
}

/** Decodes `%XX` escapes to raw bytes; a `%` not followed by two hex digits stays literal. */
function percentDecodeBytes(segment: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < segment.length; i++) {
    const code = segment.charCodeAt(i);
    if (code === 0x25 && HEX_PAIR.test(segment.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(segment.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (code < 0x80) {
      bytes.push(code);
    } else {
      // Non-ASCII in a serialized URL path should not happen; encode it faithfully anyway.
      const cp = segment.codePointAt(i)!;
      const char = String.fromCodePoint(cp);
      for (const byte of Buffer.from(char, 'utf8')) bytes.push(byte);
      i += char.length - 1;
    }
  }
  return Buffer.from(bytes);
}

/**
 * Decodes one path segment and re-encodes only what is unsafe in a file name. The result
 * percent-decodes back to the segment's bytes, so distinct segments stay distinct.
 */
function sanitizeSegment(segment: string): string {
  let name: string;
  if (PLAIN_SEGMENT.test(segment)) {
    name = segment;
  } else {
    const bytes = percentDecodeBytes(segment);
    let text: string | undefined;
    try {
      text = utf8.decode(bytes);
    } catch {
      text = undefined;
    }
    name = '';
    if (text !== undefined) {
      for (const char of text) name += MUST_ESCAPE.test(char) ? escapeChar(char) : char;
    } else {
      // Not UTF-8: keep printable ASCII, escape every other byte.
      for (const byte of bytes) {
        const char = String.fromCharCode(byte);
        name += byte >= 0x80 || MUST_ESCAPE.test(char) ? escapeByte(byte) : char;
      }
    }
    // `@q` starts the query suffix; escape it so a path can never imitate a query.
    name = name.replaceAll('@q', '%40q');
  }
  if (name === '') return '_';
  if (name === '_') return '%5F';
  if (name === '.') return '%2E';
  if (name === '..') return '%2E%2E';
  return name;
}

/** Truncates `name` to its first characters (never splitting a `%XX` escape) + `~<hash>`. */
function shortenName(name: string): string {
  let kept = '';
  let chars = 0;
  let bytes = 0;
  for (let i = 0; i < name.length && chars < LONG_SEGMENT_KEEP_CHARS; ) {
    const cp = name.codePointAt(i)!;
    const token = cp === 0x25 ? name.slice(i, i + 3) : String.fromCodePoint(cp);
    const size = byteLength(token);
    if (bytes + size > LONG_SEGMENT_KEEP_BYTES) break;
    kept += token;
    bytes += size;
    chars++;
    i += token.length;
  }
  return `${kept}~${hash16(name)}`;
}

function boundName(name: string): string {
  return byteLength(name) > MAX_SEGMENT_BYTES ? shortenName(name) : name;
}

/** `name.<extension>`, unless `name` already ends so (case-insensitive). */
function withExtension(name: string, extension: string): string {
  const dot = `.${extension}`;
  return name.toLowerCase().endsWith(dot.toLowerCase()) ? name : `${name}${dot}`;
}

/** `@q=<query>` when the query is short and plain, else `@q~<16 hex of its SHA-1>`. */
function querySuffix(query: string): string {
  if (query.length <= MAX_QUERY_BYTES && PLAIN_QUERY.test(query)) return `@q=${query}`;
  return `@q~${hash16(query)}`;
}

/** Host directory: hostname, plus `_PORT` for a non-default port; scheme is ignored. */
function hostDir(url: URL): string {
  const port = url.port === '' ? '' : `_${url.port}`;
  return boundName(sanitizeSegment(url.hostname) + port);
}

/**
 * Maps a canonical http(s) URL to the relative POSIX path (`<host>/<seg>/.../<name>`) where
 * its body is stored under `<out>/files/`.
 *
 * - Host dir is the hostname, with `_PORT` appended when a port is present
 *   (`127.0.0.1:8081` → `127.0.0.1_8081`); `http` and `https` share it.
 * - Segments are percent-decoded; `/`, `\`, `%`, NUL, control and invisible format
 *   characters (and non-ASCII bytes of non-UTF-8 segments) are re-encoded as `%XX`, so
 *   the name percent-decodes back to the segment's bytes. Empty, `.`, `..` and `_`
 *   segments become `_`, `%2E`, `%2E%2E`, `%5F`; a literal `@q` becomes `%40q`; a first
 *   segment `_conflicts` becomes `%5Fconflicts`. The host goes through the same rules.
 * - A path ending in `/` is stored as `.../index.html` (so `/a/` and `/a/index.html`
 *   share a file, as in wget).
 * - A query appends `@q=<query>` to the last name, or `@q~<16 hex>` when it is longer
 *   than 64 bytes or has unusual characters. The fragment is ignored.
 * - Names over 200 bytes become their first 60 characters + `~` + 16 hex of SHA-1; a path
 *   over 3800 bytes keeps its leading segments and hashes the rest into `_tail~<16 hex>`.
 *
 * - With `extension` (chosen by a source, e.g. `md`), the last name ends in `.<extension>`:
 *   added unless it is there already (`/readme` → `readme.md`, `/` → `index.md`).
 *
 * The result is never absolute, never has an empty, `.` or `..` segment, and is at most
 * 3800 UTF-8 bytes. Pure and synchronous.
 *
 * @param url absolute http: or https: URL (ideally canonicalized by `url/`).
 * @param extension letters and digits, without the dot.
 * @returns relative POSIX path, e.g. `example.org/docs/index.html`.
 * @throws TypeError when `url` does not parse; Error when its scheme is not http(s).
 */
export function filePathFor(url: string, extension?: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`filePathFor: not an http(s) URL: ${url}`);
  }
  // An http(s) pathname always starts with '/', so `raw` has at least one element.
  const raw = parsed.pathname.split('/').slice(1);
  if (raw[raw.length - 1] === '') raw[raw.length - 1] = extension === undefined ? INDEX_FILE : 'index';

  const names = raw.map(sanitizeSegment);
  if (names[0] === CONFLICTS_DIR || names[0] === VERSIONS_DIR) names[0] = `%5F${names[0].slice(1)}`;
  const query = parsed.search.slice(1);
  if (query !== '') names[names.length - 1] += querySuffix(query);
  if (extension !== undefined) names[names.length - 1] = withExtension(names[names.length - 1], extension);

  const host = hostDir(parsed);
  const bounded = names.map(boundName);
  let total = byteLength(host);
  for (const name of bounded) total += 1 + byteLength(name);
  if (total <= MAX_RELATIVE_PATH_BYTES) return `${host}/${bounded.join('/')}`;

  // Too deep: keep leading segments while they fit, hash the whole tail into one name.
  const tailName = `_tail~${'0'.repeat(16)}`;
  const budget = MAX_RELATIVE_PATH_BYTES - byteLength(host) - 1 - byteLength(tailName);
  const head: string[] = [];
  let used = 0;
  for (const name of bounded) {
    const size = byteLength(name) + 1;
    if (used + size > budget) break;
    head.push(name);
    used += size;
  }
  const tail = bounded.slice(head.length).join('/');
  return [host, ...head, `_tail~${hash16(tail)}`].join('/');
}

/**
 * Where one version of a page is stored with versions on: `<host>/_versions/<16 hex of SHA-1(url)>/
 * <16 hex of the body's SHA-256>`. The name is a function of the URL and the bytes, so a file there
 * never changes (the same bytes give the same name; other bytes another), and the flat, fixed-length
 * names never clash with each other or with the pages' own paths.
 *
 * @param url absolute http(s) URL.
 * @param sha256 hex SHA-256 of the body (64 digits).
 * @throws TypeError when `url` does not parse; Error when its scheme is not http(s) or `sha256` is
 *   not 64 hex digits.
 */
export function versionPathFor(url: string, sha256: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`versionPathFor: not an http(s) URL: ${url}`);
  }
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`versionPathFor: not a hex SHA-256: ${sha256}`);
  return `${hostDir(parsed)}/${VERSIONS_DIR}/${hash16(url)}/${sha256.slice(0, HASH_NAME_HEX)}`;
}

/**
 * The extension of a page's versions (`.md`, `.html`, or none): the source's chosen `extension`
 * when it gave one, else the one its own path has (`/docs/` → `index.html` → `.html`), when that
 * is 1–10 letters or digits — so that a version opens with the right program, as the page does.
 * @param url absolute http(s) URL.
 * @param extension letters and digits, without the dot (see {@link filePathFor}).
 * @returns `''` or a dot and the extension.
 * @throws as {@link filePathFor}.
 */
export function versionExtension(url: string, extension?: string): string {
  if (extension !== undefined) return `.${extension}`;
  const own = filePathFor(url);
  const ext = /\.[A-Za-z0-9]{1,10}$/.exec(own);
  // a dot right after the slash is a hidden name (`.htaccess`), not an extension
  return ext === null || ext.index <= own.lastIndexOf('/') + 1 ? '' : ext[0];
}
