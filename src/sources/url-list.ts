/**
 * The `urls` source's input: a list of URLs from a file (one a line, `#` comments) or inline,
 * checked line by line, each URL once, and split across the worker type's processes by index
 * (`list[i::N]`, as static seed lists are).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../config/usage-error.js';
import { canonicalize } from '../url/canonicalize.js';

/** Where a list came from, for error messages. */
export interface UrlListOrigin {
  /** File path as the user wrote it, or a label such as `urls` for an inline list. */
  name: string;
  /** Whether `name` is a file (errors then say `file:line`) or an inline list (`name[index]`). */
  isFile: boolean;
}

/** Longest line accepted, in characters; longer is a mistake (a binary file, a pasted blob). */
export const URL_LIST_MAX_LINE_CHARS = 8192;

/**
 * Parses the text of a URL list: one URL per line; blank lines and lines starting with `#` (after
 * leading whitespace) are skipped, as is a `#` comment after whitespace at the end of a line; a BOM,
 * CRLF line ends and surrounding whitespace are tolerated. Each URL is canonicalized (`url/`); a
 * URL listed twice (in any spelling with the same canonical form) is kept once, at its first place.
 *
 * @param text the list's contents.
 * @param origin where it came from, named in errors.
 * @returns canonical absolute http(s) URLs, in order, each once.
 * @throws UsageError naming the file and line (`list.txt:12: "htp:/x" is not an absolute http(s)
 *   URL ...`) for the first line that is not an absolute http(s) URL.
 */
export function parseUrlList(text: string, origin: UrlListOrigin): string[] {
  const lines = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split('\n');
  const urls: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const line = raw.trim().replace(/\s+#.*$/, '');
    if (line === '' || line.startsWith('#')) continue;
    const where = origin.isFile ? `${origin.name}:${i + 1}` : origin.name;
    if (line.length > URL_LIST_MAX_LINE_CHARS) {
      throw new UsageError(
        `${where}: line longer than ${URL_LIST_MAX_LINE_CHARS} characters; is this a list of URLs?`,
      );
    }
    urls.push(...checked(line, where, seen));
  }
  return urls;
}

/**
 * The URLs of an inline list (a config's `urls: [...]` or the command line's URLs), checked and
 * deduplicated as {@link parseUrlList} does.
 * @param name the key named in errors, e.g. `workers[1].urls`; entries are named `name[index]`.
 * @throws UsageError for the first entry that is not an absolute http(s) URL.
 */
export function inlineUrlList(list: readonly string[], name: string): string[] {
  const urls: string[] = [];
  const seen = new Set<string>();
  list.forEach((entry, i) => {
    urls.push(...checked(entry.trim(), `${name}[${i}]`, seen));
  });
  return urls;
}

/** `[url]` when `line` is a new absolute http(s) URL, `[]` when already seen. */
function checked(line: string, where: string, seen: Set<string>): string[] {
  const url = /^https?:\/\//i.test(line) ? canonicalize(line) : null;
  if (url === null) {
    throw new UsageError(
      `${where}: ${JSON.stringify(line.slice(0, 200))} is not an absolute http(s) URL; write one URL per line (e.g. https://example.org/page) or comment the line out with #`,
    );
  }
  if (seen.has(url)) return [];
  seen.add(url);
  return [url];
}

/**
 * Reads and parses a URL list file (UTF-8).
 * @param file path as the user wrote it (relative paths are resolved against `baseDir`).
 * @param baseDir directory relative paths start from (the config file's, or the current one).
 * @throws UsageError when the file cannot be read (naming it and the reason) or a line is bad.
 */
export function readUrlList(file: string, baseDir: string = process.cwd()): string[] {
  let text: string;
  const full = path.resolve(baseDir, file);
  try {
    text = readFileSync(full, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message;
    throw new UsageError(`urls: cannot read ${file}: ${why}; give a text file with one URL per line`);
  }
  return parseUrlList(text, { name: file, isFile: true });
}

/**
 * This process's share of a list: entries `index, index + count, index + 2·count…` (Python's
 * `list[index::count]`), so N processes together take every entry exactly once.
 * @throws RangeError unless `count` ≥ 1 and 0 ≤ `index` < `count` (integers).
 */
export function shareOf<T>(list: readonly T[], index: number, count: number): T[] {
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count) {
    throw new RangeError(`shareOf: need integers 0 <= index < count, got index ${index}, count ${count}`);
  }
  const out: T[] = [];
  for (let i = index; i < list.length; i += count) out.push(list[i]);
  return out;
}
