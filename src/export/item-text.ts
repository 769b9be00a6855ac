/**
 * The content of an item as text, for exports with content (docs/export.md, "text"): the
 * Markdown of a page that has one (`data.markdown` names the `.md` file, docs/content.md), else
 * the stored body of a text type (plain text, Markdown, JSON, XML, CSV, YAML, JavaScript…)
 * decoded with the item's charset; nothing for HTML without Markdown (markup, not text: crawl
 * with `--markdown all` to have it) or for a binary body.
 */
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import type { Item } from '../engine/item.js';
import { decodeBody, sniffEncoding, UTF8 } from '../http/charset.js';

/** Media types other than `text/*` whose bodies are text. */
const TEXT_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/x-ndjson',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/sql',
  'application/graphql',
  'application/x-sh',
  'application/x-tex',
]);

/** Markup kept as it is served, not taken as text. */
const MARKUP_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/**
 * Whether a body of this media type is text to export: `text/*` and the types above, `+json` and
 * `+xml` types (feeds, JSON-LD), never HTML.
 * @param contentType a Content-Type value (parameters ignored) or null.
 */
export function isTextType(contentType: string | null | undefined): boolean {
  if (typeof contentType !== 'string') return false;
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  if (MARKUP_TYPES.has(type)) return false;
  return type.startsWith('text/') || TEXT_TYPES.has(type) || type.endsWith('+json') || type.endsWith('+xml');
}

/** Why an item's text could not be read, for a warning. */
export class ItemTextError extends Error {
  constructor(
    /** The file, relative to the data directory. */
    readonly file: string,
    message: string,
  ) {
    super(message);
    this.name = 'ItemTextError';
  }
}

/** Where an item's text is: the file, relative to the data directory, and how to decode it. */
interface TextSource {
  file: string;
  /** A Markdown file (always UTF-8), else a body decoded as `contentType` says. */
  markdown: boolean;
  /** The Content-Type (or a charset as one) to decode a body with. */
  contentType: string | null;
}

/** Where the text of `item` is, or null when it has none (see the module comment). */
function textSource(item: Item): TextSource | null {
  const data = isRecord(item.data) ? item.data : undefined;
  if (typeof data?.markdown === 'string') return { file: data.markdown, markdown: true, contentType: null };
  if (typeof item.file !== 'string') return null;
  // The sniffed type is there when the Content-Type was missing or unusable.
  const sniffed = data?.sniffedType;
  const type =
    typeof sniffed === 'string' ? sniffed : typeof item.contentType === 'string' ? item.contentType : null;
  if (!isTextType(type)) return null;
  // Stored as received under a Content-Encoding that could not be removed: compressed bytes.
  if (data?.contentEncoding === 'unknown-encoding') return null;
  // The charset the page was decoded with when it was read (`data.encoding`, set when not
  // UTF-8), else the Content-Type's, a BOM's or an XML declaration's; UTF-8 by default.
  const charset = typeof data?.encoding === 'string' ? `text/plain; charset=${data.encoding}` : null;
  return {
    file: item.file,
    markdown: false,
    contentType: charset ?? (typeof item.contentType === 'string' ? item.contentType : null),
  };
}

/** The text of a stored file's bytes. */
function decodeText(body: Buffer, source: TextSource): string {
  if (source.markdown) return body.toString('utf8').replace(/^\uFEFF/, '');
  return decodeBody(body, source.contentType, false).text;
}

/**
 * The text of `item` (see the module comment). The file is read synchronously: 17 µs for a
 * 2 KB file against 50–200 µs through fs.promises (measured on the 2-core machine, tmpfs), and
 * an export reads one file per item, one after the other.
 * @param dataDir the data directory its paths are relative to (absolute).
 * @returns the text, or null when the item has none.
 * @throws ItemTextError when the item names a file that cannot be read (removed, outside the
 *   data directory, unreadable).
 */
export function itemText(dataDir: string, item: Item): string | null {
  const source = textSource(item);
  return source === null ? null : decodeText(readStored(dataDir, source.file), source);
}

/**
 * The text of `item` as {@link itemText} has it, but as its UTF-8 bytes where the file holds
 * them already (a Markdown file, a body in UTF-8: valid UTF-8, a BOM left out), read into
 * `files`' buffer: no string made and encoded again, no buffer allocated per file. A file in
 * another charset, or not valid UTF-8, is decoded to a string as {@link itemText} does.
 * @returns the bytes (a view of `files`' buffer, valid until its next read), the text, or null.
 * @throws ItemTextError as {@link itemText}.
 */
export function itemTextUtf8(
  dataDir: string,
  item: Item,
  files: StoredFileReader,
): Uint8Array | string | null {
  const source = textSource(item);
  if (source === null) return null;
  const body = files.read(dataDir, source.file);
  if (source.markdown || sniffEncoding(body, source.contentType, false).encoding === UTF8) {
    const text = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? body.subarray(3) : body;
    if (isUtf8(text)) return text;
  }
  return decodeText(body, source);
}

/** Bytes a {@link StoredFileReader} keeps between files (a larger file gets a buffer of its own). */
const KEPT_BYTES = 64 * 1024;

/** Reads stored files into one buffer, reused from file to file. */
export class StoredFileReader {
  private readonly buffer = Buffer.allocUnsafeSlow(KEPT_BYTES);

  /**
   * The bytes of `relative` (a file of the data directory `dataDir`), synchronously.
   * @returns a view valid until the next call.
   * @throws ItemTextError (see {@link itemText}).
   */
  read(dataDir: string, relative: string): Buffer {
    return withStored(dataDir, relative, (file) => {
      const fd = fs.openSync(file, 'r');
      try {
        const size = fs.fstatSync(fd).size;
        const into = size <= this.buffer.length ? this.buffer : Buffer.allocUnsafeSlow(size);
        let n = 0;
        while (n < size) {
          const got = fs.readSync(fd, into, n, size - n, null);
          if (got === 0) break;
          n += got;
        }
        return into.subarray(0, n);
      } finally {
        fs.closeSync(fd);
      }
    });
  }
}

/** A stored file's bytes. @throws ItemTextError (see {@link itemText}). */
function readStored(dataDir: string, relative: string): Buffer {
  return withStored(dataDir, relative, (file) => fs.readFileSync(file));
}

/** `read` of the file `relative` names. @throws ItemTextError (see {@link itemText}). */
function withStored(dataDir: string, relative: string, read: (file: string) => Buffer): Buffer {
  const file = path.resolve(dataDir, relative);
  if (!file.startsWith(dataDir + path.sep)) throw new ItemTextError(relative, 'outside the data directory');
  try {
    return read(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ItemTextError(relative, code === 'ENOENT' ? 'not found' : (code ?? (e as Error).message));
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
