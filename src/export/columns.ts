/**
 * The columns of an export (docs/export.md, "Columns"): the same names and order in every format,
 * snake_case as dataset tools expect, each read from an item defensively — a value of the wrong
 * type in a line (a damaged but parseable line) is null, never a crash in a writer.
 */
import { UsageError } from '../config/usage-error.js';
import type { ExportRecord } from './item-reader.js';

/**
 * A column's type. `string`; `int32`/`int64` (whole numbers; int64 for byte counts);
 * `timestamp` (ms since the epoch, UTC; written as ISO 8601 in JSONL and CSV); `json` (any JSON
 * value: nested in JSONL, JSON text in CSV and Parquet).
 */
export type ColumnType = 'string' | 'int32' | 'int64' | 'timestamp' | 'json';

/** A column's value: by type, a string, a number, or (json) any JSON value; null when absent. */
export type ColumnValue = string | number | unknown;

/** One column. */
export interface Column {
  name: string;
  type: ColumnType;
  /** What it holds, for `--help` and the docs. */
  doc: string;
  /**
   * Its values repeat from row to row (a few distinct ones: a content type, a worker): Parquet
   * stores them dictionary-encoded; the other string columns are written plain, without trying.
   */
  repeats?: boolean;
  get(record: ExportRecord): ColumnValue;
}

/** Top-level item fields that have a column (the others go to `extra`). */
const ITEM_FIELDS = new Set([
  'url',
  'finalUrl',
  'status',
  'contentType',
  'fetchedAt',
  'depth',
  'source',
  'worker',
  'label',
  'bytes',
  'sha256',
  'file',
  'title',
  'error',
  'data',
  'userData',
]);

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const int32 = (v: unknown): number | null =>
  Number.isInteger(v) && Math.abs(v as number) <= 0x7fffffff ? (v as number) : null;
const int64 = (v: unknown): number | null => (Number.isSafeInteger(v) ? (v as number) : null);
const dataOf = (r: ExportRecord): Record<string, unknown> | undefined => {
  const d: unknown = r.item.data;
  return typeof d === 'object' && d !== null && !Array.isArray(d)
    ? (d as Record<string, unknown>)
    : undefined;
};
const fromData = (key: string) => (r: ExportRecord) => str(dataOf(r)?.[key]);
const errorOf = (r: ExportRecord): Record<string, unknown> | undefined => {
  const e: unknown = r.item.error;
  return typeof e === 'object' && e !== null ? (e as Record<string, unknown>) : undefined;
};

/** Every column, in export order. */
export const COLUMNS: readonly Column[] = [
  { name: 'url', type: 'string', doc: 'canonical requested URL', get: (r) => str(r.item.url) },
  { name: 'final_url', type: 'string', doc: 'URL after redirects', get: (r) => str(r.item.finalUrl) },
  {
    name: 'status',
    type: 'int32',
    doc: 'HTTP status; null when no response came',
    get: (r) => int32(r.item.status),
  },
  {
    name: 'content_type',
    type: 'string',
    repeats: true,
    doc: 'Content-Type header',
    get: (r) => str(r.item.contentType),
  },
  { name: 'fetched_at', type: 'timestamp', doc: 'when it was fetched (UTC)', get: (r) => r.at },
  {
    name: 'title',
    type: 'string',
    doc: "the page's title (data.title, else the HTML <title>)",
    get: (r) => str(dataOf(r)?.title) ?? str(r.item.title),
  },
  {
    name: 'language',
    type: 'string',
    repeats: true,
    doc: 'BCP 47 language (data.language)',
    get: fromData('language'),
  },
  {
    name: 'text',
    type: 'string',
    doc: 'the content as text: Markdown, or a text body (with --with-content)',
    get: (r) => r.text ?? null,
  },
  {
    name: 'source',
    type: 'string',
    repeats: true,
    doc: 'the source that read it',
    get: (r) => str(r.item.source),
  },
  {
    name: 'worker',
    type: 'string',
    repeats: true,
    doc: 'the worker that fetched it',
    get: (r) => str(r.item.worker),
  },
  { name: 'depth', type: 'int32', doc: 'link distance from a seed', get: (r) => int32(r.item.depth) },
  { name: 'label', type: 'string', repeats: true, doc: "the request's label", get: (r) => str(r.item.label) },
  {
    name: 'bytes',
    type: 'int64',
    doc: 'body length after Content-Encoding removal',
    get: (r) => int64(r.item.bytes),
  },
  { name: 'sha256', type: 'string', doc: 'hex SHA-256 of those bytes', get: (r) => str(r.item.sha256) },
  {
    name: 'file',
    type: 'string',
    doc: 'stored body, relative to the data dir',
    get: (r) => str(r.item.file),
  },
  {
    name: 'markdown_file',
    type: 'string',
    doc: 'the Markdown file (data.markdown), relative to the data dir',
    get: fromData('markdown'),
  },
  { name: 'description', type: 'string', doc: 'data.description', get: fromData('description') },
  { name: 'author', type: 'string', repeats: true, doc: 'data.author', get: fromData('author') },
  { name: 'published', type: 'string', doc: 'data.published (ISO 8601)', get: fromData('published') },
  { name: 'modified', type: 'string', doc: 'data.modified (ISO 8601)', get: fromData('modified') },
  { name: 'canonical', type: 'string', doc: 'data.canonical', get: fromData('canonical') },
  { name: 'site_name', type: 'string', repeats: true, doc: 'data.siteName', get: fromData('siteName') },
  {
    name: 'words',
    type: 'int32',
    doc: 'words in the Markdown (data.words)',
    get: (r) => int32(dataOf(r)?.words),
  },
  {
    name: 'duplicate_of',
    type: 'string',
    doc: 'URL of the item that stored the same body (data.duplicateOf)',
    get: fromData('duplicateOf'),
  },
  {
    name: 'near_duplicate_of',
    type: 'string',
    doc: 'URL of a page with nearly the same text (data.nearDuplicateOf)',
    get: fromData('nearDuplicateOf'),
  },
  {
    name: 'round',
    type: 'int32',
    doc: 'round of continuous collection (data.round)',
    get: (r) => int32(dataOf(r)?.round),
  },
  {
    name: 'version',
    type: 'int32',
    doc: 'which body of the page this is (data.version)',
    get: (r) => int32(dataOf(r)?.version),
  },
  {
    name: 'error_kind',
    type: 'string',
    repeats: true,
    doc: 'error.kind when it failed',
    get: (r) => str(errorOf(r)?.kind),
  },
  {
    name: 'error_message',
    type: 'string',
    doc: 'error.message when it failed',
    get: (r) => str(errorOf(r)?.message),
  },
  { name: 'data', type: 'json', doc: "the item's data object, whole", get: (r) => dataOf(r) ?? null },
  { name: 'user_data', type: 'json', doc: "the request's userData", get: (r) => r.item.userData ?? null },
  {
    name: 'extra',
    type: 'json',
    doc: 'other top-level item fields, as an object (null without any)',
    get: (r) => extraFields(r.item as unknown as Record<string, unknown>),
  },
];

/** Top-level fields of `item` that have no column of their own, or null. */
function extraFields(item: Record<string, unknown>): Record<string, unknown> | null {
  let extra: Record<string, unknown> | null = null;
  for (const key in item) {
    if (!ITEM_FIELDS.has(key)) {
      extra ??= {};
      extra[key] = item[key];
    }
  }
  return extra;
}

/**
 * The columns to write.
 * @param fields names from `--fields` (in the order given), or undefined for every column but
 *   `text`, which comes only `withContent`.
 * @throws UsageError for an unknown or repeated name (the message lists the valid ones).
 */
export function selectColumns(fields: readonly string[] | undefined, withContent: boolean): Column[] {
  if (fields === undefined) return COLUMNS.filter((c) => withContent || c.name !== 'text');
  const byName = new Map(COLUMNS.map((c) => [c.name, c]));
  const seen = new Set<string>();
  return fields.map((name) => {
    const column = byName.get(name);
    if (column === undefined) {
      throw new UsageError(
        `--fields: unknown field "${name}"; valid fields: ${COLUMNS.map((c) => c.name).join(',')}`,
      );
    }
    if (seen.has(name)) throw new UsageError(`--fields: "${name}" is named twice`);
    seen.add(name);
    return column;
  });
}
