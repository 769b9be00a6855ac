/**
 * Appending a chunk of whole lines to a state file all or nothing: a write cut short (a full
 * disk writes what fits, then fails) is truncated back to the last complete chunk, so the file
 * never holds a torn line in its middle that a later append would glue to the next one.
 */
import type fs from 'node:fs/promises';
import { APPEND_NO_FOLLOW, openNoFollow } from '../sinks/no-follow.js';

/** A file open for appending whole chunks. One writer at a time (the caller chains its writes). */
export class AppendFile {
  private broken: Error | null = null;

  private constructor(
    readonly path: string,
    private readonly fh: fs.FileHandle,
    /** Bytes in the file: where the next chunk starts. */
    private size: number,
  ) {}

  /**
   * Open (creating) `file` for appending; a symbolic link there is refused, never followed.
   * @throws SymlinkRefused when `file` is a link; the fs error on other I/O errors.
   */
  static async open(file: string): Promise<AppendFile> {
    const fh = await openNoFollow(file, APPEND_NO_FOLLOW);
    try {
      return new AppendFile(file, fh, (await fh.stat()).size);
    } catch (e) {
      await fh.close();
      throw e;
    }
  }

  /** Bytes in the file: what was there at open and every chunk appended since. */
  get bytes(): number {
    return this.size;
  }

  /**
   * Append `text` whole.
   * @throws the write's error (with `code`, e.g. ENOSPC) after truncating the file back to its
   *   size before the call; when even that fails, every later append throws too.
   */
  async append(text: string): Promise<void> {
    if (this.broken) throw this.broken;
    const buf = Buffer.from(text, 'utf8');
    let done = 0;
    try {
      while (done < buf.length) {
        const { bytesWritten } = await this.fh.write(buf, done, buf.length - done);
        done += bytesWritten;
      }
    } catch (e) {
      if (done > 0) {
        try {
          await this.fh.truncate(this.size);
        } catch {
          this.broken = e as Error; // a torn chunk stays at the end; resume repairs it
        }
      }
      throw Object.assign(e as Error, { path: (e as NodeJS.ErrnoException).path ?? this.path });
    }
    this.size += buf.length;
  }

  /**
   * Empty the file (one ftruncate: a crash leaves it whole or empty); the next chunk starts it.
   * @throws the fs error.
   */
  async truncate(): Promise<void> {
    await this.fh.truncate(0);
    this.size = 0;
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}
