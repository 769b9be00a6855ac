/**
 * hyparquet-writer's byte writers grown by blocks (src/export/page-writer-growth.ts): a writer
 * that outgrows its first KiB goes to 64 KiB at once, and a file written with pages of every size
 * is the same, byte for byte, as with the library's own growth.
 */
import { ByteWriter, parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { BLOCK_BYTES } from '../../src/export/block-writer.js';
import { growPageWritersByBlocks } from '../../src/export/page-writer-growth.js';

/** A file of 3 columns, with values from a few bytes to 200 KB (pages over a block). */
function file(): ArrayBuffer {
  const n = 300;
  return parquetWriteBuffer({
    columnData: [
      { name: 'id', data: Array.from({ length: n }, (_, i) => (i % 9 === 0 ? null : i)), type: 'INT32' },
      {
        name: 'text',
        data: Array.from({ length: n }, (_, i) =>
          i % 7 === 0 ? null : `${i} ✓ `.repeat(i === 5 ? 40_000 : i * 7),
        ),
        type: 'STRING',
      },
      { name: 'kind', data: Array.from({ length: n }, (_, i) => `kind-${i % 3}`), type: 'STRING' },
    ],
    pageSize: BLOCK_BYTES,
    rowGroupSize: 120,
    codec: 'UNCOMPRESSED',
  });
}

describe('growPageWritersByBlocks', () => {
  it('writes the same file as the library growth, and grows a writer to a block at once', () => {
    const before = Buffer.from(file());
    growPageWritersByBlocks();
    growPageWritersByBlocks(); // idempotent
    expect(Buffer.from(file()).equals(before)).toBe(true);
    expect(before.length).toBeGreaterThan(200_000);

    const w = new ByteWriter();
    w.appendBytes(new Uint8Array(1020));
    expect(w.buffer.byteLength).toBe(1024);
    w.appendBytes(new Uint8Array([1, 2, 3, 4, 5]));
    expect(w.buffer.byteLength).toBe(BLOCK_BYTES);
    expect([...w.getBytes().subarray(1020)]).toEqual([1, 2, 3, 4, 5]);
    w.appendBytes(new Uint8Array(BLOCK_BYTES));
    expect(w.buffer.byteLength).toBe(2 * BLOCK_BYTES);
    expect(w.offset).toBe(1025 + BLOCK_BYTES);
  });
});
