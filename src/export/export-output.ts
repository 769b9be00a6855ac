/**
 * Where an export is written: standard output (`-`), or a file that appears under its name only
 * when the export is complete — written as `<file>.part-<pid>` beside it, then linked into place
 * (never over an existing file) or, with `force`, renamed over it. A failed or interrupted export
 * leaves no half-written file under the name. Writes are buffered and wait when the output does
 * (backpressure), so memory stays flat however fast the items come.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../config/usage-error.js';
import { TEMP_INFIX } from '../sinks/atomic-file.js';

/** Bytes collected before they are written: under glibc's 128 KiB mmap threshold (block-writer.ts). */
const BUFFER_BYTES = 64 * 1024;

/** Standard output was closed by its reader (`collector export … | head`). */
export class OutputClosedError extends Error {
  constructor() {
    super('standard output was closed');
    this.name = 'OutputClosedError';
  }
}

/** An export's output. */
export interface ExportOutput {
  /** `-` for standard output, else the file's path as given. */
  readonly name: string;
  /** Whether it is a terminal (standard output only). */
  readonly isTerminal: boolean;
  /**
   * Write text (UTF-8) or bytes; await the result when it is a promise (the output is busy).
   * @throws OutputClosedError when standard output was closed; I/O errors of the file.
   */
  write(chunk: string | Uint8Array): Promise<void> | undefined;
  /** Write what is buffered and put the file in place. @throws I/O errors, UsageError (see {@link openOutput}). */
  commit(): Promise<void>;
  /** Give up: the file is not put in place, its temp file is removed. Never throws. */
  abort(): Promise<void>;
}

/**
 * Open the output named by `--out`.
 * @param out `-` (standard output) or a file path (relative to the current directory).
 * @param force replace an existing file.
 * @throws UsageError when the file exists (without `force`), is a directory, or its directory
 *   does not exist.
 */
export async function openOutput(out: string, force: boolean): Promise<ExportOutput> {
  if (out === '-') return new StdoutOutput();
  const file = path.resolve(out);
  const st = await fsp.stat(file).catch(() => null);
  if (st?.isDirectory()) throw new UsageError(`--out ${out}: is a directory; give a file name`);
  if (st !== null && !force)
    throw new UsageError(`--out ${out}: exists; give another name, or --force to replace it`);
  const dir = await fsp.stat(path.dirname(file)).catch(() => null);
  if (!dir?.isDirectory()) throw new UsageError(`--out ${out}: directory ${path.dirname(out)} not found`);
  const temp = `${file}${TEMP_INFIX}${process.pid}`;
  const fh = await fsp.open(temp, 'w');
  return new FileOutput(out, file, temp, fh, force);
}

/** Collects small writes into chunks of {@link BUFFER_BYTES}. */
abstract class BufferedOutput implements ExportOutput {
  abstract readonly name: string;
  abstract readonly isTerminal: boolean;
  private pending: string[] = [];
  private pendingLength = 0;

  write(chunk: string | Uint8Array): Promise<void> | undefined {
    if (typeof chunk === 'string') {
      this.pending.push(chunk);
      this.pendingLength += chunk.length;
      return this.pendingLength >= BUFFER_BYTES ? this.flushText() : undefined;
    }
    if (this.pendingLength > 0) return this.flushText().then(() => this.send(chunk));
    return this.send(chunk);
  }

  abstract commit(): Promise<void>;
  abstract abort(): Promise<void>;

  /** Write `bytes` through. */
  protected abstract send(bytes: Uint8Array): Promise<void> | undefined;

  protected flushText(): Promise<void> {
    const text = this.pending.join('');
    this.pending = [];
    this.pendingLength = 0;
    return this.send(Buffer.from(text, 'utf8')) ?? Promise.resolve();
  }
}

class StdoutOutput extends BufferedOutput {
  readonly name = '-';
  readonly isTerminal = process.stdout.isTTY === true;
  private closed = false;

  constructor() {
    super();
    process.stdout.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') this.closed = true;
    });
  }

  protected send(bytes: Uint8Array): Promise<void> | undefined {
    if (this.closed) throw new OutputClosedError();
    if (process.stdout.write(bytes)) return undefined;
    return new Promise((resolve, reject) => {
      const done = () => {
        process.stdout.off('drain', done);
        process.stdout.off('close', done);
        if (this.closed) reject(new OutputClosedError());
        else resolve();
      };
      process.stdout.on('drain', done);
      process.stdout.on('close', done);
    });
  }

  async commit(): Promise<void> {
    await this.flushText();
  }

  async abort(): Promise<void> {}
}

class FileOutput extends BufferedOutput {
  readonly isTerminal = false;

  constructor(
    readonly name: string,
    private readonly file: string,
    private readonly temp: string,
    private readonly fh: fsp.FileHandle,
    private readonly force: boolean,
  ) {
    super();
  }

  /** Synchronous, like the reads (item-files.ts): a file write through the thread pool idled the export. */
  protected send(bytes: Uint8Array): undefined {
    let done = 0;
    while (done < bytes.length) done += fs.writeSync(this.fh.fd, bytes, done);
    return undefined;
  }

  async commit(): Promise<void> {
    await this.flushText();
    await this.fh.close();
    if (this.force) {
      await fsp.rename(this.temp, this.file);
      return;
    }
    try {
      // A link never replaces a file made meanwhile (the check at open was no lock); a filesystem
      // without hard links gets a copy, never over an existing file either.
      await fsp.link(this.temp, this.file).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'EEXIST') throw e;
        return fsp.copyFile(this.temp, this.file, fs.constants.COPYFILE_EXCL);
      });
    } catch (e) {
      await this.abort();
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      throw new UsageError(`--out ${this.name}: exists (made while exporting); --force replaces it`);
    }
    await fsp.unlink(this.temp);
  }

  async abort(): Promise<void> {
    await this.fh.close().catch(() => {});
    await fsp.unlink(this.temp).catch(() => {});
  }
}
