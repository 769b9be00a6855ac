/**
 * The Parquet footer written from row groups serialized as they come (src/export/parquet-footer.ts)
 * is, byte for byte, the one hyparquet-writer's own `finish()` writes from the objects it keeps.
 */
import { ByteWriter, ParquetWriter, type SchemaElement } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { ParquetFooter } from '../../src/export/parquet-footer.js';

/** 17 columns (a schema list over 14 elements has the long list header): every kind the export writes. */
function schema(): SchemaElement[] {
  const columns: SchemaElement[] = [
    { name: 'url', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
    { name: 'status', type: 'INT32', repetition_type: 'OPTIONAL' },
    { name: 'bytes', type: 'INT64', repetition_type: 'OPTIONAL' },
    {
      name: 'fetched_at',
      type: 'INT64',
      repetition_type: 'OPTIONAL',
      converted_type: 'TIMESTAMP_MILLIS',
      logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
    },
    { name: 'data', type: 'BYTE_ARRAY', repetition_type: 'OPTIONAL', logical_type: { type: 'JSON' } },
    { name: 'worker', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
  ];
  for (let i = 0; columns.length < 17; i++)
    columns.push({ name: `s${i}`, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });
  return [{ name: 'schema', num_children: columns.length }, ...columns];
}

/** Row group `g` of `n` rows, as the export gives them to the writer. */
function columnData(s: SchemaElement[], g: number, n: number) {
  const enc = new TextEncoder();
  const rows = Array.from({ length: n }, (_, i) => g * 100 + i);
  return s.slice(1).map((e) => ({
    name: e.name,
    data: rows.map((r): unknown => {
      if (r % 7 === 3) return null;
      if (e.name === 'status') return 200 + (r % 3);
      if (e.name === 'bytes') return BigInt(r) * 1_000_000_000n;
      if (e.name === 'fetched_at') return BigInt(Date.UTC(2026, 11, 1) + r * 1000);
      if (e.name === 'worker') return `crawl-${r % 2}`;
      return enc.encode(e.name === 'data' ? JSON.stringify({ r }) : `${e.name} ${r} ✓`);
    }),
    encoding: e.type === 'BYTE_ARRAY' && e.name !== 'worker' ? ('PLAIN' as const) : undefined,
    statistics: e.name === 'fetched_at',
    offsetIndex: false,
  }));
}

/** A file of `groups` row groups, its footer written by the library or by ParquetFooter. */
function file(groups: number, ours: boolean): Uint8Array {
  const s = schema();
  const out = new ByteWriter();
  const writer = new ParquetWriter({ writer: out, schema: s, codec: 'UNCOMPRESSED', createdBy: 'test ✓' });
  const footer = new ParquetFooter(s, 'test ✓');
  for (let g = 0; g < groups; g++) {
    void writer.write({ columnData: columnData(s, g, 10 + g), rowGroupSize: Number.MAX_SAFE_INTEGER });
    if (ours) {
      for (const group of writer.row_groups.splice(0)) footer.addRowGroup(group);
      writer.pendingIndexes.length = 0;
    }
  }
  // A change to the schema after the row groups (parquet-format.ts declares JSON late) is written.
  for (const e of s) if (e.logical_type?.type === 'JSON') e.converted_type = 'JSON';
  if (ours) footer.write(out);
  else void writer.finish();
  return out.getBytes().slice();
}

describe('ParquetFooter', () => {
  it.each([1, 3, 20])('writes the library footer byte for byte (%i row groups)', (groups) => {
    const ours = file(groups, true);
    expect(Buffer.from(ours).toString('hex')).toBe(Buffer.from(file(groups, false)).toString('hex'));
    expect(Buffer.from(ours.subarray(-4)).toString()).toBe('PAR1');
  });

  it('with no row group, differs only in the empty list header: typed as a list of structs', () => {
    // The library gives an empty list the element type 0; DuckDB reads either
    // (test/export/parquet-format.test.ts, an export the filters leave empty).
    const ours = Buffer.from(file(0, true));
    const theirs = Buffer.from(file(0, false));
    expect(ours.length).toBe(theirs.length);
    const diff = [...ours.keys()].filter((i) => ours[i] !== theirs[i]);
    expect(diff).toHaveLength(1);
    expect([ours[diff[0]], theirs[diff[0]]]).toEqual([0x0c, 0x00]);
  });

  it('refuses a column chunk with a page index (its index would be lost)', () => {
    const footer = new ParquetFooter(schema(), 'x');
    expect(() =>
      footer.addRowGroup({
        columns: [{ file_offset: 4n, offset_index_offset: 100n, offset_index_length: 10 }],
        total_byte_size: 0n,
        num_rows: 0n,
      }),
    ).toThrow(/page indexes/);
  });
});
