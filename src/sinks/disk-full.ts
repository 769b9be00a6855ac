/**
 * A full disk (ENOSPC, or EDQUOT: a quota reached) is not a crash: the collector stops taking
 * URLs, writes what it still can, and exits with {@link DISK_FULL_EXIT_CODE} and one line
 * (`disk full at <path> (N MB free): stopped; --resume continues`). Nothing acknowledged is lost
 * and nothing is written twice: a page whose body or item could not be written has no item
 * line, so `--resume` fetches it again once there is room.
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
 * Bytes available to this user on the filesystem holding `p` (statfs `bavail × bsize`), from the
 * nearest directory of `p` that exists; null when it cannot be read.
 */
export function freeBytes(p: string): number | null {
  for (let d = path.resolve(p); ; d = path.dirname(d)) {
    try {
      const s = fs.statfsSync(d);
      return s.bavail * s.bsize;
    } catch {
      if (path.dirname(d) === d) return null;
    }
  }
}

/** The one line that reports a full disk (no `collector:` prefix, no newline). */
export function diskFullLine(at: string, free: number | null = freeBytes(at)): string {
  const mb =
    free === null
      ? '?'
      : free >= 10 * 1048576
        ? String(Math.round(free / 1048576))
        : (free / 1048576).toFixed(1);
  return `disk full at ${at} (${mb} MB free): stopped; --resume continues`;
}
