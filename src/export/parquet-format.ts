/**
 * Parquet export through hyparquet-writer (pure JavaScript, one small dependency, Node 20): rows
 * are gathered into a row group until it holds {@link ROW_GROUP_ROWS} rows or about
 * {@link ROW_GROUP_BYTES} of values, which is then encoded (Snappy) and written out — one row
 * group in memory at a time, whatever the size of the export. The footer goes last.
 *
 * Types: strings as UTF8 byte arrays; `int32`/`int64` as INT32/INT64; `fetched_at` as INT64
 * TIMESTAMP(MILLIS, UTC); JSON columns as byte arrays of the JSON logical type. Every column is
 * OPTIONAL (null when absent). DuckDB, pandas/pyarrow and Hugging Face `datasets` read it as is.
 */
import { ByteWriter, ParquetWriter, type SchemaElement } from 'hyparquet-writer';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../config/package-info.js';
import type { Column, ColumnType } from './columns.js';
import type { ExportOutput } from './export-output.js';
import type { FormatWriter } from './format-writer.js';
import type { ExportRecord } from './item-reader.js';

/** Most rows in a row group. */
export const ROW_GROUP_ROWS = 5_000;

/** About the most value bytes in a row group (strings counted by length): bounds its memory. */
export const ROW_GROUP_BYTES = 2 * 1024 * 1024;

/** What a JSON value is counted as in a row group's bytes (not measured: that would encode it twice). */
const JSON_BYTES = 256;

/**
 * Size of the native buffers the export allocates itself (encoded strings, output blocks) and of a
 * data page: under glibc's 128 KiB mmap threshold, so that freeing them does not raise it (a raised
 * threshold lets short-lived buffers fragment the heap). The encoder's own allocations still do:
 * bench/RESULTS.md (2026-12-03, `collector export`).
 */
const NATIVE_BLOCK_BYTES = 64 * 1024;

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
      return { ...optional, type: 'BYTE_ARRAY', converted_type: 'JSON', logical_type: { type: 'JSON' } };
  }
}

/**
 * hyparquet-writer's byte writer, handing its bytes out to be written: `ensure()` (called before
 * every append, synchronously) sets a full buffer aside and starts a new one, `flush()` (after each
 * row group) and `finish()` write them to the output, waiting for it.
 */
class OutputWriter extends ByteWriter {
  private chunks: Uint8Array[] = [];

  constructor(private readonly output: ExportOutput) {
    super(NATIVE_BLOCK_BYTES);
  }

  override ensure(size: number): void {
    if (this.index + size <= this.buffer.byteLength) return;
    this.setAside();
    if (size > this.buffer.byteLength) {
      this.buffer = new ArrayBuffer(size);
      this.view = new DataView(this.buffer);
    }
  }

  async flush(): Promise<void> {
    this.setAside();
    const chunks = this.chunks;
    this.chunks = [];
    for (const c of chunks) await this.output.write(c);
  }

  override async finish(): Promise<void> {
    await this.flush();
  }

  /** Move the bytes so far out (no copy) and continue in a new buffer. */
  private setAside(): void {
    if (this.index === 0) return;
    this.chunks.push(new Uint8Array(this.buffer, 0, this.index));
    this.buffer = new ArrayBuffer(NATIVE_BLOCK_BYTES);
    this.view = new DataView(this.buffer);
    this.index = 0;
  }
}

/**
 * Replace the strings of `values` by their UTF-8 bytes: views into shared blocks rather than one
 * allocation each (the library's own encoding).
 */
function encodeStrings(values: unknown[]): void {
  let block = Buffer.allocUnsafeSlow(0);
  let used = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== 'string') continue;
    if (block.length - used < v.length * 3) {
      block = Buffer.allocUnsafeSlow(Math.max(NATIVE_BLOCK_BYTES, v.length * 3));
      used = 0;
    }
    const n = block.write(v, used, 'utf8');
    values[i] = block.subarray(used, used + n);
    used += n;
  }
}

/** A writer of Parquet to `output`. */
export function parquetWriter(
  columns: readonly Column[],
  output: ExportOutput,
  limits: ParquetLimits = {},
): FormatWriter {
  const maxRows = limits.rows ?? ROW_GROUP_ROWS;
  const maxBytes = limits.bytes ?? ROW_GROUP_BYTES;
  const writer = new ParquetWriter({
    writer: new OutputWriter(output),
    schema: [
      { name: 'schema', num_children: columns.length },
      ...columns.map((c) => schemaElement(c.name, c.type)),
    ],
    createdBy: `${PACKAGE_NAME} ${PACKAGE_VERSION} (hyparquet-writer)`,
  });
  let values: unknown[][] = columns.map(() => []);
  let rows = 0;
  let bytes = 0;

  const writeGroup = async (): Promise<void> => {
    if (rows === 0) return;
    const columnData = columns.map((c, i) => {
      const data = values[i];
      if (c.type === 'string') encodeStrings(data);
      if (c.type === 'int64' || c.type === 'timestamp')
        for (let j = 0; j < data.length; j++) if (data[j] !== null) data[j] = BigInt(data[j] as number);
      // Statistics (min/max) help readers skip row groups by time, status or size; on strings they
      // took a third of the encoding time and say little (URLs, titles).
      // No offset index (page locations): kept in memory for every column chunk until the footer,
      // it would grow with the export, and a chunk of a row group this size has one page or few.
      return { name: c.name, data, statistics: c.type !== 'json' && c.type !== 'string', offsetIndex: false };
    });
    values = columns.map(() => []);
    rows = 0;
    bytes = 0;
    await writer.write({ columnData, rowGroupSize: Number.MAX_SAFE_INTEGER, pageSize: NATIVE_BLOCK_BYTES });
  };

  return {
    row(record: ExportRecord) {
      for (let i = 0; i < columns.length; i++) {
        const c = columns[i];
        const v = c.get(record) ?? null;
        bytes += typeof v === 'string' ? v.length : c.type === 'json' && v !== null ? JSON_BYTES : 8;
        values[i].push(v);
      }
      rows++;
      return rows >= maxRows || bytes >= maxBytes ? writeGroup() : undefined;
    },
    async end() {
      await writeGroup();
      await writer.finish();
    },
  };
}
