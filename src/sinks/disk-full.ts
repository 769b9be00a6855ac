/**
 * A full disk (ENOSPC, or EDQUOT: a quota reached) is not a crash: the collector stops taking
 * URLs, writes what it still can, and exits with {@link DISK_FULL_EXIT_CODE} and one line
 * (`disk full at <path> (N MB free): stopped; --resume continues`, or `no free inodes on <path>
 * …` when the filesystem ran out of inodes rather than bytes: ENOSPC says either). Nothing
 * acknowledged is lost and nothing is written twice: a page whose body or item could not be
 * written has no item line, so `--resume` fetches it again once there is room.
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * Exit code of a run stopped by a full disk: 75, `EX_TEMPFAIL` of sysexits(3) ("temporary
 * failure; try again later"): `--resume` continues once space is freed.
 */
export const DISK_FULL_EXIT_CODE = 75;

/** Whether `e` says the disk (or the user's quota) is full. */
export function isDiskFull(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return true;
  // Errors that crossed a thread boundary as text keep their code only in the message.
  return /^(ENOSPC|EDQUOT):/.test((e as Error | null)?.message ?? '');
}

/** Where a disk-full error happened: the file named by the error, else `fallback`. */
export function diskFullPath(e: unknown, fallback: string): string {
  const p = (e as NodeJS.ErrnoException | null)?.path;
  if (typeof p === 'string' && p.length > 0) return p;
  const m = /^(?:ENOSPC|EDQUOT):[^,]*, \w+ '([^']+)'/.exec((e as Error | null)?.message ?? '');
  return m ? m[1] : fallback;
}

/**
 * Give a disk-full error that names no file (a failed write(2) names none) the directory it
 * happened in, for the message. Any other error is returned as is.
 */
export function locateDiskFull(e: unknown, dir: string): unknown {
  if (isDiskFull(e)) Object.assign(e as object, { path: diskFullPath(e, dir) });
  return e;
}

/**
 * What is left on a filesystem: bytes for this user (statfs `bavail × bsize`) and free inodes
 * (statfs `ffree`; null on a filesystem without a fixed inode table, such as btrfs, which reports
 * 0 of 0). A disk can be "full" either way: every new file needs an inode as well as bytes.
 */
export interface DiskSpace {
  /** Bytes available to this user. */
  freeBytes: number;
  /** Free inodes, or null when the filesystem has no inode limit. */
  freeInodes: number | null;
}

/**
 * The free bytes and inodes of the filesystem holding `p`, read from the nearest directory of `p`
 * that exists; null when none can be read. The one place the collector measures a disk (a test
 * hands its own numbers to the callers that take a `diskSpace` function instead).
 */
export function diskSpace(p: string): DiskSpace | null {
  for (let d = path.resolve(p); ; d = path.dirname(d)) {
    try {
      const s = fs.statfsSync(d);
      return { freeBytes: s.bavail * s.bsize, freeInodes: s.files === 0 ? null : s.ffree };
    } catch {
      if (path.dirname(d) === d) return null;
    }
  }
}

/**
 * Bytes available to this user on the filesystem holding `p` (statfs `bavail × bsize`), from the
 * nearest directory of `p` that exists; null when it cannot be read.
 */
export function freeBytes(p: string): number | null {
  return diskSpace(p)?.freeBytes ?? null;
}

/** Megabytes for a person: whole above 10 MB, one decimal below, `?` when unknown. */
export function freeMegabytes(bytes: number | null): string {
  if (bytes === null) return '?';
  return bytes >= 10 * 1048576 ? String(Math.round(bytes / 1048576)) : (bytes / 1048576).toFixed(1);
}

/**
 * Free inodes at or below which a filesystem counts as out of them: the temp files removed after
 * a failed write give a few back before anyone measures.
 */
export const INODES_EXHAUSTED = 64;

/**
 * Whether a full disk is one out of inodes rather than bytes: the filesystem has an inode limit
 * and (next to) none left, so no file can be created whatever bytes are free.
 */
export function outOfInodes(space: DiskSpace | null): boolean {
  return space !== null && space.freeInodes !== null && space.freeInodes <= INODES_EXHAUSTED;
}

/**
 * The one line that reports a full disk (no `collector:` prefix, no newline), naming the cause:
 * `disk full at <path> (N MB free): …`, or `no free inodes on <path> (N MB free): …` when the
 * bytes are there but the files are not.
 * @param space the measured disk (default: measured now at `at`).
 */
export function diskFullLine(at: string, space: DiskSpace | null = diskSpace(at)): string {
  const mb = freeMegabytes(space?.freeBytes ?? null);
  const what = outOfInodes(space) ? `no free inodes on ${at}` : `disk full at ${at}`;
  return `${what} (${mb} MB free): stopped; --resume continues`;
}
