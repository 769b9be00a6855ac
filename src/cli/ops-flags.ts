/**
 * Flag parsers shared by the ops commands (status, watchdog, size, plan, install): durations,
 * sizes and counts, each failing with commander's one-line usage error; and the check of a
 * `--data` directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { parseDuration, parseSize } from '../config/units.js';
import { UsageError } from '../config/usage-error.js';

/**
 * The data directory a `--data` flag names, resolved against the current directory. A missing one
 * is returned as it is: each command says what that means (not running, nothing to restart).
 * @param flag the flag's value, as given.
 * @throws UsageError when the path is a file or under one (`--data X: is a file, not a directory;
 *   give the data directory of a collector`), rather than an ENOTDIR from the first write.
 */
export function dataDirFlag(flag: string): string {
  const dir = path.resolve(flag);
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOTDIR') return dir;
    throw new UsageError(
      `--data ${flag}: is under a file, not a directory; give the data directory of a collector`,
    );
  }
  if (!st.isDirectory()) {
    throw new UsageError(
      `--data ${flag}: is a file, not a directory; give the data directory of a collector`,
    );
  }
  return dir;
}

/** A duration flag (`10m`, `90s`; a bare number is seconds), in ms. */
export function durationFlag(v: string): number {
  try {
    return parseDuration(v, 's');
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

/** A size flag (`100MB`, `2G`), in bytes; 0 is refused. */
export function sizeFlag(v: string): number {
  let n: number;
  try {
    n = parseSize(v);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
  if (n <= 0) throw new InvalidArgumentError(`expected a size above 0, got "${v}"`);
  return n;
}

/** A positive integer flag. */
export function countFlag(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < 1 || n > 1_000_000) {
    throw new InvalidArgumentError(`expected an integer from 1 to 1000000, got "${v}"`);
  }
  return n;
}

/** A positive number flag (CPUs may be fractional: a cgroup quota of 1.5 CPUs). */
export function positiveNumberFlag(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 4096) {
    throw new InvalidArgumentError(`expected a number above 0, got "${v}"`);
  }
  return n;
}
