/**
 * hyparquet-writer's temporary byte writers (a data page's values, its levels, a dictionary)
 * start at 1 KiB and double, so a 64 KiB page is written through buffers of 1, 2, 4 … 64 KiB: 127
 * KiB allocated for each, 6.7 GB over a 1,000,000-item export with content. Those native buffers
 * are freed only when V8 collects their objects, and the garbage waiting for a collection is what
 * held the export's native heap ~15 MB above JSON Lines' (bench/RESULTS.md, 2026-12-03 18:00).
 * Here a writer that outgrows its first buffer goes straight to {@link BLOCK_BYTES}: a page's
 * values take 1 + 64 KiB, a page's levels (a few hundred bytes) still 1 KiB.
 *
 * The library has no option for it: its `ByteWriter.ensure` is replaced, for every writer of the
 * process (the export's own, block-writer.ts, has its own `ensure`). Only the growth changes; the
 * bytes written are the same (test/export/parquet-footer.test.ts compares whole files).
 */
import { ByteWriter } from 'hyparquet-writer';
import { BLOCK_BYTES } from './block-writer.js';

let done = false;

/** Make hyparquet-writer's byte writers grow as the module comment says (once; idempotent). */
export function growPageWritersByBlocks(): void {
  if (done) return;
  done = true;
  ByteWriter.prototype.ensure = function ensure(this: ByteWriter, size: number): void {
    if (this.index + size <= this.buffer.byteLength) return;
    const next = new ArrayBuffer(Math.max(this.buffer.byteLength * 2, this.index + size, BLOCK_BYTES));
    new Uint8Array(next).set(new Uint8Array(this.buffer, 0, this.index));
    this.buffer = next;
    this.view = new DataView(next);
  };
}
