/**
 * The frontier's overflow on disk: when more URLs are queued than the in-memory budget allows,
 * new ones are appended to `state/<worker>/spill.log` and read back in order as the in-memory
 * queue drains, so a crawl that knows millions of URLs holds only a window of them in memory.
 * The file is rebuilt at every start from the frontier log (enqueued minus done), so it needs no
 * crash safety of its own.
 */
import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import { openNoFollow } from '../sinks/no-follow.js';

/** Bytes read from the spill file per refill. */
const READ_CHUNK = 256 * 1024;

/** A FIFO of (url, depth) on disk. One reader and one writer: the crawler. */
export class SpillQueue {
  private pendingLines: string[] = [];
  private writing: Promise<void> = Promise.resolve();
  private writeScheduled = false;
  private readOffset = 0;
  private writeOffset = 0;
  private count = 0;

  private constructor(
    private readonly file: string,
    private readonly fh: fs.FileHandle,
    private readonly onError: (e: Error) => void,
  ) {}

  /**
   * Create (or empty) the spill file.
   * @param onError told when a write fails (e.g. ENOSPC): the URLs spilled since are lost from
   *   this queue (not from the frontier log), so the crawl must stop; `take` rejects from then on.
   * @throws SymlinkRefused when `file` is a symbolic link (never emptied through); other I/O errors.
   */
  static async open(file: string, onError: (e: Error) => void = () => {}): Promise<SpillQueue> {
    const flags = fsConstants.O_RDWR | fsConstants.O_CREAT | fsConstants.O_TRUNC; // 'w+'
    return new SpillQueue(file, await openNoFollow(file, flags), onError);
  }

  /** URLs spilled and not yet taken back. */
  get size(): number {
    return this.count;
  }

  /** Append a canonical URL (ASCII, no tab or newline) at `depth`. */
  push(url: string, depth: number): void {
    this.pendingLines.push(`${depth}\t${url}\n`);
    this.count++;
    if (!this.writeScheduled) {
      this.writeScheduled = true;
      setImmediate(() => void this.flush().catch((e: Error) => this.onError(e)));
    }
  }

  private flush(): Promise<void> {
    this.writeScheduled = false;
    const lines = this.pendingLines;
    this.pendingLines = [];
    if (lines.length > 0) {
      const text = lines.join('');
      const at = this.writeOffset;
      this.writeOffset += Buffer.byteLength(text, 'latin1');
      this.writing = this.writing.then(async () => {
        await this.fh.write(text, at, 'latin1');
      });
    }
    return this.writing;
  }

  /**
   * Take up to `max` entries back, oldest first.
   * @returns entries as [url, depth]; fewer than `max` only when the queue has fewer.
   */
  async take(max: number): Promise<Array<[string, number]>> {
    await this.flush();
    const out: Array<[string, number]> = [];
    const buf = Buffer.allocUnsafe(READ_CHUNK);
    while (out.length < max && this.count > 0) {
      const { bytesRead } = await this.fh.read(buf, 0, READ_CHUNK, this.readOffset);
      if (bytesRead === 0) break;
      let start = 0;
      for (;;) {
        if (out.length >= max) break;
        const nl = buf.indexOf(0x0a, start);
        if (nl < 0 || nl >= bytesRead) break;
        const line = buf.toString('latin1', start, nl);
        const tab = line.indexOf('\t');
        out.push([line.slice(tab + 1), Number(line.slice(0, tab))]);
        this.count--;
        start = nl + 1;
      }
      if (start === 0) break; // a line longer than the chunk cannot happen (URLs ≤ maxUrlLength)
      this.readOffset += start;
    }
    return out;
  }

  /** Close and delete the file (what it held is in the frontier log). */
  async close(): Promise<void> {
    await this.flush().catch(() => {});
    await this.fh.close();
    await fs.rm(this.file, { force: true });
  }
}
