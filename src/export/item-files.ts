/**
 * The item files of a data directory as export reads them: `<data>/items/<worker-id>.jsonl`, each
 * up to the last newline it had when it was listed, so a line a running collector is still
 * writing (a torn last line) is never read, and every pass over the files reads the same lines.
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/** One worker's items file, as listed. */
export interface ItemFile {
  /** Its path relative to the data directory, as warnings name it: `items/crawl-0.jsonl`. */
  name: string;
  /** Absolute path. */
  path: string;
  /** Bytes readable: up to and including the last newline when it was listed (0: no whole line). */
  end: number;
}

/** A batch of whole lines of a file, in file order. */
export interface LineBatch {
  /** 1-based number of `lines[0]` in the file (every line counts, empty ones too). */
  first: number;
  lines: string[];
}

/** Bytes read from an items file at a time. */
const CHUNK_BYTES = 1 << 16;

/**
 * The items files of `dataDir`, sorted by name (so by worker id), each with the length of its
 * whole lines at this moment. A data directory without `items/` has none.
 * @throws on I/O errors other than a missing `items/` (an unreadable directory).
 */
export async function listItemFiles(dataDir: string): Promise<ItemFile[]> {
  const dir = path.join(dataDir, 'items');
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const files: ItemFile[] = [];
  for (const name of names.filter((n) => n.endsWith('.jsonl')).sort()) {
    const file = path.join(dir, name);
    const end = await wholeLinesEnd(file);
    if (end !== null) files.push({ name: `items/${name}`, path: file, end });
  }
  return files;
}

/**
 * Where the whole lines of `file` end: the offset after its last newline (0 without one).
 * @returns null when `file` is not a regular file (removed meanwhile, a directory).
 */
async function wholeLinesEnd(file: string): Promise<number | null> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return null;
    const buf = Buffer.allocUnsafe(Math.min(st.size, 64 * 1024));
    for (let end = st.size; end > 0; ) {
      const start = Math.max(0, end - buf.length);
      const { bytesRead } = await fh.read(buf, 0, end - start, start);
      const nl = buf.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (nl >= 0) return start + nl + 1;
      end = start;
    }
    return 0;
  } finally {
    await fh.close();
  }
}

/**
 * The lines of `file` up to its listed end, in batches (one per read of up to 64 KiB). Lines are
 * split at LF bytes and decoded as UTF-8 (a newline byte never occurs inside a UTF-8 sequence).
 * Reads are synchronous: an export is one long computation over the lines, and a read through the
 * thread pool left the process idle a quarter of the time on a loaded 2-core machine.
 * @throws on I/O errors; a file that shrank meanwhile (a resume cut a torn tail) ends early.
 */
export async function* readLineBatches(file: ItemFile): AsyncGenerator<LineBatch> {
  if (file.end === 0) return;
  const fd = fsSync.openSync(file.path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, file.end));
    let carry: Buffer | null = null;
    let pos = 0;
    let lineNo = 1;
    while (pos < file.end) {
      const bytesRead = fsSync.readSync(fd, chunk, 0, Math.min(chunk.length, file.end - pos), pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const data = chunk.subarray(0, bytesRead);
      const nl = data.lastIndexOf(0x0a);
      if (nl < 0) {
        carry = carry === null ? Buffer.from(data) : Buffer.concat([carry, data]);
        continue;
      }
      const text: string =
        carry === null
          ? data.toString('utf8', 0, nl)
          : Buffer.concat([carry, data.subarray(0, nl)]).toString();
      carry = nl + 1 < bytesRead ? Buffer.from(data.subarray(nl + 1)) : null;
      const lines = text.split('\n');
      yield { first: lineNo, lines };
      lineNo += lines.length;
    }
  } finally {
    fsSync.closeSync(fd);
  }
}
