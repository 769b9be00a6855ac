/**
 * Reading state logs back line by line: a torn last line (a kill during a write) truncated,
 * complete lines only, and for the items file each line's exact position (the content index maps
 * line numbers to byte offsets).
 */
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { openNoFollow, UPDATE_NO_FOLLOW } from '../sinks/no-follow.js';

/**
 * Truncate a torn last line (a line without its newline, left by a kill during a write).
 * @returns bytes removed (0 when the file ends cleanly or does not exist).
 * @throws SymlinkRefused when `file` is a symbolic link (never truncated through); fs errors.
 */
export async function repairTornTail(file: string): Promise<number> {
  let fh: fs.FileHandle;
  try {
    fh = await openNoFollow(file, UPDATE_NO_FOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
  try {
    const { size } = await fh.stat();
    if (size === 0) return 0;
    const buf = Buffer.alloc(Math.min(size, 64 * 1024));
    let end = size;
    // Scan backwards for the last newline.
    while (end > 0) {
      const start = Math.max(0, end - buf.length);
      const n = end - start;
      await fh.read(buf, 0, n, start);
      if (end === size && buf[n - 1] === 0x0a) return 0;
      const i = buf.subarray(0, n).lastIndexOf(0x0a);
      if (i >= 0) {
        const keep = start + i + 1;
        await fh.truncate(keep);
        return size - keep;
      }
      end = start;
    }
    await fh.truncate(0);
    return size;
  } finally {
    await fh.close();
  }
}

/** Call `onLine` for every complete line of a file (missing file = no lines). */
export async function readLines(file: string, onLine: (line: string) => void): Promise<void> {
  try {
    await fs.access(file);
  } catch {
    return;
  }
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of rl) if (line.length > 0) onLine(line);
}

/** Where one line of the items file is (see `recoverJournal` in journal.ts). */
export interface ItemsLine {
  /** 0-based line number; every line counts, also those skipped as unreadable. */
  index: number;
  /** Byte offset of the line's first byte in the file. */
  offset: number;
  /** Length of the line in bytes, its newline included. */
  bytes: number;
}

/**
 * Call `onLine` for every complete line of a file with its exact position: lines are split at
 * LF bytes (a last line without one is not reported) and decoded as UTF-8 (a trailing CR is
 * kept). A missing file has no lines.
 * @throws on I/O errors other than a missing file.
 */
export async function readLinesWithPositions(
  file: string,
  onLine: (line: string, at: ItemsLine) => void,
): Promise<void> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    let carry: Buffer[] = [];
    let carryBytes = 0;
    let offset = 0;
    let index = 0;
    for (;;) {
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      let start = 0;
      for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
        let line: string;
        if (carryBytes > 0) {
          carry.push(data.subarray(start, nl));
          line = Buffer.concat(carry).toString('utf8');
        } else line = data.toString('utf8', start, nl);
        const bytes = carryBytes + nl - start + 1;
        onLine(line, { index: index++, offset, bytes });
        offset += bytes;
        carry = [];
        carryBytes = 0;
        start = nl + 1;
      }
      if (start < bytesRead) {
        carry.push(Buffer.from(data.subarray(start)));
        carryBytes += bytesRead - start;
      }
    }
  } finally {
    await fh.close();
  }
}
