/**
 * hyparquet-writer's byte writer in fixed blocks: where the library's own doubles its one buffer
 * and copies it (a row group's 1–2 MB copied again and again, and the large buffers freed behind
 * it), this one sets a full block aside without a copy and goes on in a new one. The blocks are
 * {@link BLOCK_BYTES}, under glibc's 128 KiB mmap threshold, so that freeing them does not raise
 * it (a raised threshold lets short-lived buffers fragment the heap: bench/RESULTS.md, 2026-12-03).
 */
import { ByteWriter } from 'hyparquet-writer';

/** Bytes of a block (and of a data page: parquet-format.ts). */
export const BLOCK_BYTES = 64 * 1024;

/** A byte writer whose bytes are taken out in blocks ({@link takeBlocks}). */
export class BlockWriter extends ByteWriter {
  private blocks: Uint8Array[] = [];

  constructor() {
    super(BLOCK_BYTES);
  }

  /** Called by every append before it writes `size` bytes: a block without room is set aside. */
  override ensure(size: number): void {
    if (this.index + size <= this.buffer.byteLength) return;
    this.setAside();
    if (size > this.buffer.byteLength) {
      this.buffer = new ArrayBuffer(size);
      this.view = new DataView(this.buffer);
    }
  }

  /** The bytes written since the last call, as blocks in order (no copy); the writer goes on empty. */
  takeBlocks(): Uint8Array[] {
    this.setAside();
    const blocks = this.blocks;
    this.blocks = [];
    return blocks;
  }

  /** Move the bytes of the current block out and continue in a new one. */
  private setAside(): void {
    if (this.index === 0) return;
    this.blocks.push(new Uint8Array(this.buffer, 0, this.index));
    this.buffer = new ArrayBuffer(BLOCK_BYTES);
    this.view = new DataView(this.buffer);
    this.index = 0;
  }
}
