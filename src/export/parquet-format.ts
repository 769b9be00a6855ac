/**
 * Parquet export through hyparquet-writer (pure JavaScript, one small dependency, Node 20): rows
 * are gathered into a row group (column-buffers.ts) until it holds {@link ROW_GROUP_ROWS} rows or
 * {@link ROW_GROUP_BYTES} of values, which is then encoded (GZIP) and written out — one row group
 * in memory at a time, whatever the size of the export. The footer goes last, written from each
 * row group's metadata serialized when the group was written (parquet-footer.ts).
 *
 * Types: strings as UTF8 byte arrays; `int32`/`int64` as INT32/INT64; `fetched_at` as INT64
 * TIMESTAMP(MILLIS, UTC); JSON columns as byte arrays of the JSON logical type. Every column is
 * OPTIONAL (null when absent). DuckDB, pandas/pyarrow and Hugging Face `datasets` read it as is.
 */
import { gzipSync } from 'node:zlib';
import { ParquetWriter, type SchemaElement } from 'hyparquet-writer';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../config/package-info.js';
import { BLOCK_BYTES, BlockWriter } from './block-writer.js';
import { columnBuffer } from './column-buffers.js';
import type { Column, ColumnType } from './columns.js';
import type { ExportOutput } from './export-output.js';
import type { FormatWriter } from './format-writer.js';
import type { ExportRecord } from './item-reader.js';
import { growPageWritersByBlocks } from './page-writer-growth.js';
import { ParquetFooter } from './parquet-footer.js';

/** Most rows in a row group. */
export const ROW_GROUP_ROWS = 5_000;

/** The most value bytes in a row group (UTF-8 bytes of strings and JSON text): bounds its memory. */
export const ROW_GROUP_BYTES = 2 * 1024 * 1024;

/** Row group limits (default {@link ROW_GROUP_ROWS}, {@link ROW_GROUP_BYTES}; tests make them small). */
export interface ParquetLimits {
  rows?: number;
  bytes?: number;
}

/** The schema element of each column type. */
function schemaElement(name: string, type: ColumnType): SchemaElement {
  const optional = { name, repetition_type: 'OPTIONAL' } as const;
  switch (type) {
    case 'string':
      return { ...optional, type: 'BYTE_ARRAY', converted_type: 'UTF8' };
    case 'int32':
      return { ...optional, type: 'INT32' };
    case 'int64':
      return { ...optional, type: 'INT64' };
    case 'timestamp':
      return {
        ...optional,
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
      };
    case 'json':
      // The legacy converted type JSON (which DuckDB reads) is added only at the footer
      // (declareJson): with it, hyparquet-writer would copy and stringify every value itself;
      // column-buffers.ts has them as JSON text already.
      return { ...optional, type: 'BYTE_ARRAY', logical_type: { type: 'JSON' } };
  }
}

/** The output as hyparquet-writer's byte writer: blocks written out at each {@link flush}. */
class OutputWriter extends BlockWriter {
  constructor(private readonly output: ExportOutput) {
    super();
  }

  /** Write the bytes so far (called by the library after each row group, and at the end). */
  async flush(): Promise<void> {
    for (const b of this.takeBlocks()) await this.output.write(b);
  }

  override async finish(): Promise<void> {
    await this.flush();
  }
}

/**
 * Give the JSON columns of `schema` the converted type JSON too, for the footer: the writer
 * reads its schema elements when it encodes a column (as bytes, without it) and again when it
 * writes the footer (with it), the same objects.
 */
function declareJson(schema: SchemaElement[]): void {
  for (const e of schema) if (e.logical_type?.type === 'JSON') e.converted_type = 'JSON';
}

/** A writer of Parquet to `output`. */
export function parquetWriter(
  columns: readonly Column[],
  output: ExportOutput,
  limits: ParquetLimits = {},
): FormatWriter {
  growPageWritersByBlocks();
  const maxRows = limits.rows ?? ROW_GROUP_ROWS;
  const maxBytes = limits.bytes ?? ROW_GROUP_BYTES;
  const schema: SchemaElement[] = [
    { name: 'schema', num_children: columns.length },
    ...columns.map((c) => schemaElement(c.name, c.type)),
  ];
  const createdBy = `${PACKAGE_NAME} ${PACKAGE_VERSION} (hyparquet-writer)`;
  const out = new OutputWriter(output);
  const writer = new ParquetWriter({
    writer: out,
    schema,
    createdBy,
    // GZIP at level 1 through Node's zlib: 2.7× the speed of the library's Snappy, in JavaScript,
    // for smaller files; every Parquet reader reads GZIP (bench/RESULTS.md, 2026-12-03).
    codec: 'GZIP',
    compressors: { GZIP: (bytes: Uint8Array) => gzipSync(bytes, { level: 1 }) },
  });
  const footer = new ParquetFooter(schema, createdBy);
  const buffers = columns.map((c) => columnBuffer(c.type, c.repeats === true));
  let rows = 0;
  let bytes = 0;

  const writeGroup = async (): Promise<void> => {
    if (rows === 0) return;
    const columnData = columns.map((c, i) => ({
      name: c.name,
      // Made when the writer comes to the column, not all at once before the first: each
      // column's values (a view per value) are garbage once it is encoded.
      get data() {
        return buffers[i].values();
      },
      // A column of few distinct values is dictionary-encoded (from its strings: only the
      // dictionary is encoded to UTF-8); the other string and JSON columns are written plain,
      // without the library's sampling for a dictionary: a third of the encoding time went to
      // hashing the bytes of URLs, titles and hashes in search of repeats that are not there.
      encoding: !c.repeats && (c.type === 'string' || c.type === 'json') ? ('PLAIN' as const) : undefined,
      // Statistics (min/max) let readers skip row groups by time; on the other columns they cost
      // encoding time and footer bytes for little.
      statistics: c.type === 'timestamp',
      // No offset index (page locations): kept in memory for every column chunk until the end of
      // the file, it would grow with the export (parquet-footer.ts refuses them), and a chunk of a
      // row group this size has one page or few.
      offsetIndex: false,
    }));
    rows = 0;
    bytes = 0;
    // Encoded synchronously, before the first await: the buffers are free again after it.
    // Data pages of a block each (block-writer.ts).
    const written = writer.write({
      columnData,
      rowGroupSize: Number.MAX_SAFE_INTEGER,
      pageSize: BLOCK_BYTES,
    });
    for (const b of buffers) b.clear();
    // The row group's metadata goes to the footer as bytes, not kept as objects by the writer
    // (parquet-footer.ts); nothing else is pending (no page index, no bloom filter).
    for (const group of writer.row_groups.splice(0)) footer.addRowGroup(group);
    writer.pendingIndexes.length = 0;
    await written;
  };

  return {
    row(record: ExportRecord) {
      for (let i = 0; i < columns.length; i++) bytes += buffers[i].push(columns[i].get(record));
      rows++;
      return rows >= maxRows || bytes >= maxBytes ? writeGroup() : undefined;
    },
    async end() {
      await writeGroup();
      declareJson(schema);
      footer.write(out);
      await out.finish();
    },
  };
}
