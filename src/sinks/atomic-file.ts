/**
 * Replaces a file atomically (temp file in the same directory, then rename), so readers
 * and crash recovery only ever see the old or the new content, never a half-written file.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { copyFile, link, open, readFile, rename, unlink } from 'node:fs/promises';
import nodePath from 'node:path';
import { READ_NO_FOLLOW, UPDATE_NO_FOLLOW } from './no-follow.js';

/** Infix of temp file names: `<name>.part-<12 hex>`. Leftovers after a crash are safe to delete. */
export const TEMP_INFIX = '.part-';

/** Options for {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /**
   * fsync the temp file before the rename (default false). Survives power loss, not just
   * process death, at the cost of a disk flush per call: use it for state snapshots,
   * not for every stored page.
   */
  fsync?: boolean;
  /**
   * Never replace a different file already at `path` (default false): the new file is linked
   * into place, and when `path` exists with other content the call fails with EEXIST. An
   * existing file with the same bytes counts as written.
   */
  exclusive?: boolean;
  /**
   * Directory for the temp file, on the same filesystem as `path` (default: `path`'s own). A
   * dedicated directory can be emptied after a crash without scanning the data; when it turns
   * out to be on another filesystem (EXDEV), the write is done again with a sibling temp file.
   */
  tempDir?: string;
}

let tempCounter = 0;
const tempPrefix = randomBytes(4).toString('hex');

/** A temp name: `<tempDir>/<8 hex>-<counter>.part`, or `<path>.part-<8 hex>-<counter>` beside it. */
function tempFor(path: string, tempDir: string | undefined): string {
  const unique = `${tempPrefix}-${(tempCounter++).toString(36)}`;
  return tempDir ? nodePath.join(tempDir, `${unique}.part`) : `${path}${TEMP_INFIX}${unique}`;
}

function isExdev(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === 'EXDEV';
}

/**
 * Writes `data` to `path` atomically: writes `<path>.part-<random>` in the same directory,
 * then renames it over `path`. On failure the temp file is removed and the original
 * error rethrown, so nothing half-written is left under either name.
 *
 * @param path destination file; its directory must already exist.
 * @param data file contents (strings are written as UTF-8).
 * @throws the fs error (with `code`), e.g. ENOENT when the directory is missing,
 *   ENOTDIR when a path component is a file, EISDIR when `path` is a directory, EEXIST with
 *   `exclusive` when another file is already there.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Buffer,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const temp = tempFor(path, options.tempDir);
  let created = false;
  try {
    const handle = await open(temp, 'wx');
    created = true;
    try {
      await handle.writeFile(data);
      if (options.fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.exclusive) {
      try {
        await link(temp, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        // A link there counts as different (never read through): the caller's clash handling.
        const existing = await readFile(path, { flag: READ_NO_FOLLOW }).catch(() => null);
        const bytes = typeof data === 'string' ? Buffer.from(data) : data;
        if (existing === null || !existing.equals(bytes)) throw error;
      }
      await unlink(temp);
    } else {
      await rename(temp, path);
    }
  } catch (error) {
    if (created) await unlink(temp).catch(() => {});
    if (options.tempDir && isExdev(error))
      return writeFileAtomic(path, data, { ...options, tempDir: undefined });
    throw error;
  }
}

/**
 * {@link writeFileAtomic}'s synchronous twin, for a thread whose only job is writing files
 * (the body writer): each step is one syscall on that thread, with no hop through libuv's thread
 * pool (five hops per file cost more CPU than the writes on a 2-core machine). Same contract,
 * options and errors.
 */
export function writeFileAtomicSync(
  path: string,
  data: string | Buffer,
  options: AtomicWriteOptions = {},
): void {
  const temp = tempFor(path, options.tempDir);
  let created = false;
  try {
    const fd = fs.openSync(temp, 'wx');
    created = true;
    try {
      fs.writeFileSync(fd, data);
      if (options.fsync) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (options.exclusive) {
      try {
        fs.linkSync(temp, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        let existing: Buffer | null = null;
        try {
          const fd = fs.openSync(path, READ_NO_FOLLOW); // a link there counts as different
          try {
            existing = fs.readFileSync(fd);
          } finally {
            fs.closeSync(fd);
          }
        } catch {
          // unreadable: treated as different
        }
        const bytes = typeof data === 'string' ? Buffer.from(data) : data;
        if (existing === null || !existing.equals(bytes)) throw error;
      }
      fs.unlinkSync(temp);
    } else {
      fs.renameSync(temp, path);
    }
  } catch (error) {
    if (created) {
      try {
        fs.unlinkSync(temp);
      } catch {
        // already gone
      }
    }
    if (options.tempDir && isExdev(error)) {
      writeFileAtomicSync(path, data, { ...options, tempDir: undefined });
      return;
    }
    throw error;
  }
}

/** Codes of a filesystem that cannot hard-link (the caller then copies). */
const NO_LINK_CODES = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'ENOSYS']);

/**
 * Makes `path` another name of the existing file `source` (a hard link, so no bytes are copied),
 * replacing what `path` held atomically: a link under a temp name, then a rename over `path`.
 * Where hard links are not supported, `source` is copied instead (same atomicity). Used to point a
 * page's own path at its current version.
 *
 * @param source existing file.
 * @param path destination; its directory must exist.
 * @throws the fs error (with `code`), e.g. ENOTDIR when a path component is a file, EISDIR when
 *   `path` is a directory.
 */
export async function linkAtomic(
  source: string,
  path: string,
  options: { tempDir?: string } = {},
): Promise<void> {
  const temp = tempFor(path, options.tempDir);
  try {
    try {
      await link(source, temp);
    } catch (error) {
      if (!NO_LINK_CODES.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
      await copyFile(source, temp);
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    if (options.tempDir && isExdev(error)) return linkAtomic(source, path, {});
    throw error;
  }
}

/** {@link linkAtomic}'s synchronous twin (for the body-writer thread); same contract. */
export function linkAtomicSync(source: string, path: string, options: { tempDir?: string } = {}): void {
  const temp = tempFor(path, options.tempDir);
  try {
    try {
      fs.linkSync(source, temp);
    } catch (error) {
      if (!NO_LINK_CODES.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
      fs.copyFileSync(source, temp);
    }
    fs.renameSync(temp, path);
  } catch (error) {
    try {
      fs.unlinkSync(temp);
    } catch {
      // never made
    }
    if (options.tempDir && isExdev(error)) {
      linkAtomicSync(source, path, {});
      return;
    }
    throw error;
  }
}

/**
 * Overwrites `path` in place: `data` over the existing bytes from offset 0, then the file cut to
 * its length. The last resort for a small file on a disk too full for a temp file: it needs no
 * new space when `data` is no longer than the file (cutting frees blocks). Not atomic: a crash
 * midway leaves old and new bytes mixed, so use it only for a file whose readers take damage
 * in their stride (status.json: "damaged").
 * @throws the fs error: ENOENT when there is no file, ENOSPC when `data` is longer and the disk full,
 *   ELOOP when `path` is a symbolic link (never written through).
 */
export async function overwriteInPlace(path: string, data: string | Buffer): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const handle = await open(path, UPDATE_NO_FOLLOW);
  try {
    await handle.write(bytes, 0, bytes.length, 0);
    await handle.truncate(bytes.length);
  } finally {
    await handle.close();
  }
}

/** Bytes gathered before one write of {@link writeLinesAtomic}. */
const LINES_CHUNK_BYTES = 256 * 1024;

/**
 * Replaces `path` atomically with `lines` (each followed by `\n`), written in chunks of about
 * 256 KiB as the iterable yields them: a file of millions of lines is never one string in memory.
 * Temp file beside `path`, fsynced, then renamed over it (readers and crash recovery see the old
 * file or the whole new one).
 * @returns the number of lines written.
 * @throws the fs error (with `code`: ENOSPC on a full disk...), after removing the temp file;
 *   `path` is then untouched.
 */
export async function writeLinesAtomic(path: string, lines: Iterable<string>): Promise<number> {
  const temp = tempFor(path, undefined);
  const handle = await open(temp, 'wx');
  let count = 0;
  try {
    try {
      let chunk: string[] = [];
      let bytes = 0;
      for (const line of lines) {
        chunk.push(line);
        bytes += line.length + 1;
        count++;
        if (bytes >= LINES_CHUNK_BYTES) {
          await handle.writeFile(`${chunk.join('\n')}\n`);
          chunk = [];
          bytes = 0;
        }
      }
      if (chunk.length > 0) await handle.writeFile(`${chunk.join('\n')}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  return count;
}
