/**
 * The ops commands' own memory between two cron runs, in `<data>/state/<name>.json` (the
 * watchdog's restart attempts, the size report's last milestone): replaced atomically, so a
 * crash leaves the old or the new state, never half of one. A damaged file counts as empty.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../sinks/atomic-file.js';

/** Path of the state file `name` in `dataDir`. */
export function opsStatePath(dataDir: string, name: string): string {
  return path.join(dataDir, 'state', `${name}.json`);
}

/**
 * Read a state file.
 * @returns its content, or `empty` when it is missing, not JSON, or fails `valid`.
 */
export async function readOpsState<T>(
  dataDir: string,
  name: string,
  empty: T,
  valid: (v: unknown) => boolean,
): Promise<T> {
  try {
    const v = JSON.parse(await fs.readFile(opsStatePath(dataDir, name), 'utf8'));
    return valid(v) ? (v as T) : empty;
  } catch {
    return empty;
  }
}

/**
 * Replace a state file atomically (fsync'd: it must survive a power cut as well as a crash).
 * @throws the fs error (e.g. ENOSPC) when it cannot be written.
 */
export async function writeOpsState(dataDir: string, name: string, value: unknown): Promise<void> {
  await fs.mkdir(path.join(dataDir, 'state'), { recursive: true });
  await writeFileAtomic(opsStatePath(dataDir, name), `${JSON.stringify(value, null, 2)}\n`, { fsync: true });
}
