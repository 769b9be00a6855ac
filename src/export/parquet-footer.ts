/**
 * The footer of a Parquet file — its FileMetaData in the Thrift compact protocol (parquet.thrift
 * of apache/parquet-format), then its length and `PAR1` — put together from row groups serialized
 * as each is written. hyparquet-writer keeps every row group's metadata as objects until it writes
 * the footer (~500 bytes of objects per column chunk: 20 MB of V8 heap for the 36,000 chunks of a
 * 1,000,000-item export with content) and then builds as many again to serialize them; here a row
 * group is ~50 bytes a column chunk in 64 KiB blocks from the time it is written. The bytes are
 * the ones the library's `finish()` writes for the same file (test/export/parquet-footer.test.ts).
 */
import type { ParquetWriter, SchemaElement } from 'hyparquet-writer';
import { logicalType } from 'hyparquet-writer/src/metadata.js';
import { serializeTCompactProtocol } from 'hyparquet-writer/src/thrift.js';
import { unconvertStatistics } from 'hyparquet-writer/src/unconvert.js';
import { BlockWriter } from './block-writer.js';

/** A row group as hyparquet-writer describes it. */
export type RowGroup = ParquetWriter['row_groups'][number];
type ByteWriter = ParquetWriter['writer'];

// Thrift enums of parquet.thrift, in value order.
const TYPES = ['BOOLEAN', 'INT32', 'INT64', 'INT96', 'FLOAT', 'DOUBLE', 'BYTE_ARRAY', 'FIXED_LEN_BYTE_ARRAY'];
const REPETITION_TYPES = ['REQUIRED', 'OPTIONAL', 'REPEATED'];
const CONVERTED_TYPES = [
  'UTF8',
  'MAP',
  'MAP_KEY_VALUE',
  'LIST',
  'ENUM',
  'DECIMAL',
  'DATE',
  'TIME_MILLIS',
  'TIME_MICROS',
  'TIMESTAMP_MILLIS',
  'TIMESTAMP_MICROS',
  'UINT_8',
  'UINT_16',
  'UINT_32',
  'UINT_64',
  'INT_8',
  'INT_16',
  'INT_32',
  'INT_64',
  'JSON',
  'BSON',
  'INTERVAL',
];
const ENCODINGS = [
  'PLAIN',
  'GROUP_VAR_INT',
  'PLAIN_DICTIONARY',
  'RLE',
  'BIT_PACKED',
  'DELTA_BINARY_PACKED',
  'DELTA_LENGTH_BYTE_ARRAY',
  'DELTA_BYTE_ARRAY',
  'RLE_DICTIONARY',
  'BYTE_STREAM_SPLIT',
];
const CODECS = ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'LZO', 'BROTLI', 'LZ4', 'ZSTD', 'LZ4_RAW'];
const PAGE_TYPES = ['DATA_PAGE', 'INDEX_PAGE', 'DICTIONARY_PAGE', 'DATA_PAGE_V2'];

// Compact protocol: type ids, and a field header is (id delta << 4) | type.
const T_I32 = 5;
const T_I64 = 6;
const T_BINARY = 8;
const T_LIST = 9;
const T_STRUCT = 12;

/** The version of the FileMetaData (2, as hyparquet-writer writes it). */
const FORMAT_VERSION = 2;

const MAGIC = 0x31524150; // "PAR1", little-endian

/** The index of `name` in an enum list. @throws Error for a name it does not have. */
function enumValue(list: readonly string[], name: string | undefined): number | undefined {
  if (name === undefined) return undefined;
  const i = list.indexOf(name);
  if (i < 0) throw new Error(`parquet footer: unknown enum value ${name}`);
  return i;
}

/** A file's footer: row groups added as they are written, then {@link write}. */
export class ParquetFooter {
  private readonly rowGroups = new BlockWriter();
  private groups = 0;
  private rows = 0n;
  private readonly byName: Map<string, SchemaElement>;

  /**
   * @param schema the file's schema as given to the writer (root first, flat: the root's children
   *   are the columns); read again at {@link write}, so changes made before then are written.
   * @param createdBy the `created_by` string.
   */
  constructor(
    private readonly schema: SchemaElement[],
    private readonly createdBy: string,
  ) {
    this.byName = new Map(schema.slice(1).map((e) => [e.name, e]));
  }

  /**
   * Serialize one row group (its column chunks must have no page index or bloom filter: those
   * are written by the library's `finish()`, which this footer replaces).
   * @throws Error for a column chunk with a page index, or a column not in the schema.
   */
  addRowGroup(group: RowGroup): void {
    serializeTCompactProtocol(this.rowGroups, {
      field_1: group.columns.map((c) => {
        if (c.offset_index_offset !== undefined || c.column_index_offset !== undefined)
          throw new Error('parquet footer: page indexes are not supported');
        const m = c.meta_data;
        return {
          field_1: c.file_path,
          field_2: c.file_offset,
          field_3: m && {
            field_1: enumValue(TYPES, m.type),
            field_2: m.encodings.map((e) => enumValue(ENCODINGS, e)),
            field_3: m.path_in_schema,
            field_4: enumValue(CODECS, m.codec),
            field_5: m.num_values,
            field_6: m.total_uncompressed_size,
            field_7: m.total_compressed_size,
            field_9: m.data_page_offset,
            field_10: m.index_page_offset,
            field_11: m.dictionary_page_offset,
            field_12: m.statistics && unconvertStatistics(m.statistics, this.element(m.path_in_schema)),
            field_13: m.encoding_stats?.map((s) => ({
              field_1: enumValue(PAGE_TYPES, s.page_type),
              field_2: enumValue(ENCODINGS, s.encoding),
              field_3: s.count,
            })),
          },
        };
      }),
      field_2: group.total_byte_size,
      field_3: group.num_rows,
      field_5: group.file_offset,
      field_6: group.total_compressed_size,
    });
    this.groups++;
    this.rows += group.num_rows;
  }

  /** Append the FileMetaData, its length and the closing magic to `writer` (at the file's end). */
  write(writer: ByteWriter): void {
    const start = writer.offset;
    // field 1: version
    writer.appendUint8((1 << 4) | T_I32);
    writer.appendZigZag(FORMAT_VERSION);
    // field 2: the schema
    writer.appendUint8((1 << 4) | T_LIST);
    listHeader(writer, this.schema.length);
    for (const e of this.schema) serializeTCompactProtocol(writer, schemaElement(e));
    // field 3: num_rows
    writer.appendUint8((1 << 4) | T_I64);
    writer.appendZigZag(this.rows);
    // field 4: the row groups, as serialized
    writer.appendUint8((1 << 4) | T_LIST);
    listHeader(writer, this.groups);
    for (const block of this.rowGroups.takeBlocks()) writer.appendBytes(block);
    // field 6: created_by
    const createdBy = Buffer.from(this.createdBy, 'utf8');
    writer.appendUint8((2 << 4) | T_BINARY);
    writer.appendVarInt(createdBy.length);
    writer.appendBytes(createdBy);
    // field 7: column_orders, TypeDefinedOrder for each column
    const leaves = this.schema.filter((e) => e.type !== undefined).length;
    writer.appendUint8((1 << 4) | T_LIST);
    listHeader(writer, leaves);
    for (let i = 0; i < leaves; i++) serializeTCompactProtocol(writer, { field_1: {} });
    writer.appendUint8(0); // end of FileMetaData
    writer.appendUint32(writer.offset - start);
    writer.appendUint32(MAGIC);
  }

  private element(path: string[]): SchemaElement {
    const e = path.length === 1 ? this.byName.get(path[0]) : undefined;
    if (e === undefined) throw new Error(`parquet footer: no column ${path.join('.')} in the schema`);
    return e;
  }
}

/** The header of a compact-protocol list of `size` structs. */
function listHeader(writer: ByteWriter, size: number): void {
  if (size < 15) {
    writer.appendUint8((size << 4) | T_STRUCT);
    return;
  }
  writer.appendUint8((15 << 4) | T_STRUCT);
  writer.appendVarInt(size);
}

/** A SchemaElement as its Thrift fields. */
function schemaElement(e: SchemaElement) {
  return {
    field_1: enumValue(TYPES, e.type),
    field_2: e.type_length,
    field_3: enumValue(REPETITION_TYPES, e.repetition_type),
    field_4: e.name,
    field_5: e.num_children,
    field_6: enumValue(CONVERTED_TYPES, e.converted_type),
    field_7: e.scale,
    field_8: e.precision,
    field_9: e.field_id,
    field_10: logicalType(e.logical_type),
  };
}
