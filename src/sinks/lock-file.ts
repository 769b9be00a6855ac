/**
 * A lock file that names its holder (pid + start time + boot id, see process-identity.ts) and is
 * taken over atomically when that holder is gone. Node has no flock(); this protocol needs only
 * link(2), which fails with EEXIST when the name exists, and unlink(2):
 *
 * - Take: write the holder record to a temp file, then link it to the lock name. The lock is
 *   never seen empty or half written, and of several processes exactly one link succeeds.
 * - Take over: a lock whose holder is not running is removed only by the process that first
 *   links a marker named after that holder's token (`<lock>.takeover-<token>`); it removes the
 *   lock only if it still holds that token, then removes the marker. So two processes that saw
 *   the same dead holder never both remove a lock, and a live holder's lock is never removed:
 *   its token differs from the dead one's. A marker left by a process that died mid-takeover is
 *   itself taken over the same way.
 * - Release: the holder removes the lock if it still holds its own token.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  describeProcess,
  isRunning,
  type ProcessIdentity,
  selfIdentity,
  startedAt,
} from './process-identity.js';

/** What a lock file holds (one JSON line). */
export interface LockRecord extends ProcessIdentity {
  /** Random, unique per acquisition: what a takeover marker is named after. */
  token: string;
  /** ISO 8601 start of the holder, for people reading the file. */
  startedAt?: string | null;
}

/**
 * How long a lock file that cannot be read (empty or garbage, written by something else than
 * this protocol, e.g. an older collector between its create and its write) counts as held, ms,
 * from its last change. After that it is taken for stale.
 */
export const UNREADABLE_LOCK_GRACE_MS = 10_000;

/** Rounds of take / take-over before giving up (each round has a winner; this bounds livelock). */
const MAX_ROUNDS = 50;

/** Markers of markers followed at most (each level needs another death mid-takeover). */
const MAX_TAKEOVER_DEPTH = 4;

const TAKEOVER_INFIX = '.takeover-';
const TEMP_SUFFIX = '.tmp';

/** The lock is held by a running process (or is being written). */
export class LockHeldError extends Error {
  constructor(
    readonly file: string,
    /** The holder, or null when the file could not be read yet (being written). */
    readonly holder: LockRecord | null,
  ) {
    super(`${file}: held by ${holder ? describeProcess(holder) : 'a process writing it now'}`);
    this.name = 'LockHeldError';
  }
}

/** A lock file as read: its record (null when unreadable), inode and last change. */
interface Seen {
  record: LockRecord | null;
  ino: number;
  mtimeMs: number;
}

/** A lock held by this process. */
export interface HeldLock {
  readonly file: string;
  readonly record: LockRecord;
  /** Remove the lock if it is still ours. Safe to call twice. */
  release(): Promise<void>;
}

/**
 * Parse a lock file's text: the JSON record, or an older collector's `<pid>\n`.
 * @returns null when the text is neither (empty, torn, garbage).
 */
export function parseLockRecord(text: string): LockRecord | null {
  const t = text.trim();
  if (/^\d+$/.test(t)) return { pid: Number(t), startTicks: null, bootId: null, token: '' };
  if (!text.endsWith('\n')) return null; // a record is written whole, newline included
  try {
    const r = JSON.parse(t) as Partial<LockRecord>;
    if (!Number.isSafeInteger(r.pid) || typeof r.token !== 'string' || !/^[0-9a-f]{8,64}$/.test(r.token)) {
      return null;
    }
    return {
      pid: r.pid as number,
      startTicks: Number.isSafeInteger(r.startTicks) ? (r.startTicks as number) : null,
      bootId: typeof r.bootId === 'string' ? r.bootId : null,
      token: r.token,
      startedAt: typeof r.startedAt === 'string' ? r.startedAt : null,
    };
  } catch {
    return null;
  }
}

/** Read a lock file. @returns null when there is none. */
async function readSeen(file: string): Promise<Seen | null> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    const st = await fh.stat();
    const text = (await fh.readFile('utf8')).slice(0, 4096);
    return { record: parseLockRecord(text), ino: st.ino, mtimeMs: st.mtimeMs };
  } finally {
    await fh.close();
  }
}

/** The token a takeover marker is named after: the record's, else (older or foreign files) the inode's. */
function tokenOf(s: Seen): string {
  return s.record?.token || `ino${s.ino}`;
}

/**
 * Whether a lock file as read is held: its holder runs, or it cannot be read and changed less
 * than {@link UNREADABLE_LOCK_GRACE_MS} ago.
 */
function isHeld(s: Seen, now = Date.now()): boolean {
  if (s.record === null) return now - s.mtimeMs < UNREADABLE_LOCK_GRACE_MS;
  return isRunning(s.record);
}

/** Create `name` holding `temp`'s content, failing with EEXIST when it exists. */
async function createExclusive(name: string, temp: string, content: string): Promise<void> {
  try {
    await fs.link(temp, name);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // Filesystems without hard links: O_EXCL create, then write (a reader may catch it empty,
    // which counts as held for UNREADABLE_LOCK_GRACE_MS).
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw e;
    await fs.writeFile(name, content, { flag: 'wx' });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Remove the lock `file` last seen as `stale` (holder gone), unless another process is already
 * doing it or someone else took the lock meanwhile. Returns when the caller should look again.
 */
async function takeOver(
  file: string,
  stale: Seen,
  temp: string,
  content: string,
  depth: number,
): Promise<void> {
  if (depth > MAX_TAKEOVER_DEPTH) throw new Error(`${file}: too many stale takeover markers`);
  const marker = `${file}${TAKEOVER_INFIX}${tokenOf(stale)}`;
  try {
    await createExclusive(marker, temp, content);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    const m = await readSeen(marker);
    if (m === null) return; // that takeover just ended: look again
    if (isHeld(m)) {
      await sleep(5 + Math.random() * 10); // another process is taking it over now
      return;
    }
    await takeOver(marker, m, temp, content, depth + 1); // it died mid-takeover: its marker is stale
    return;
  }
  try {
    const now = await readSeen(file);
    // Only the marker's owner removes a lock holding this token, and the token's holder is
    // gone: between this read and the unlink nobody else can change the file.
    if (now !== null && tokenOf(now) === tokenOf(stale) && now.ino === stale.ino) await fs.unlink(file);
  } finally {
    await fs.unlink(marker).catch(() => {});
  }
}

/**
 * Remove what dead processes left beside `file`: their temp files and takeover markers.
 * Best effort; a marker is removed through the takeover protocol.
 */
async function sweep(file: string, temp: string, content: string): Promise<void> {
  const dir = path.dirname(file);
  const base = path.basename(file);
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(`${base}.`) || name === path.basename(temp)) continue;
    const p = path.join(dir, name);
    const isMarker = name.startsWith(`${base}${TAKEOVER_INFIX}`) && !name.endsWith(TEMP_SUFFIX);
    const isTemp = name.endsWith(TEMP_SUFFIX) && !name.includes(TAKEOVER_INFIX);
    if (!isMarker && !isTemp) continue;
    try {
      const s = await readSeen(p);
      if (s === null || isHeld(s)) continue;
      if (isTemp) await fs.unlink(p);
      else await takeOver(p, s, temp, content, 1);
    } catch {
      // left for the next sweep
    }
  }
}

/**
 * Take the lock `file` for this process, taking it over when its holder is gone.
 * @returns the held lock.
 * @throws LockHeldError when a running process holds it (or an unreadable lock file is younger
 *   than {@link UNREADABLE_LOCK_GRACE_MS}); the fs error (with `code`, e.g. ENOSPC, EACCES) when
 *   the record cannot be written.
 */
export async function acquireLock(file: string): Promise<HeldLock> {
  const self = selfIdentity();
  const record: LockRecord = { ...self, token: randomBytes(8).toString('hex'), startedAt: startedAt(self) };
  const content = `${JSON.stringify(record)}\n`;
  const temp = `${file}.${record.token}${TEMP_SUFFIX}`;
  try {
    await fs.writeFile(temp, content, { flag: 'wx' });
  } catch (e) {
    await fs.unlink(temp).catch(() => {});
    throw e;
  }
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      try {
        await createExclusive(file, temp, content);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const seen = await readSeen(file);
        if (seen === null) continue; // released meanwhile
        if (isHeld(seen)) throw new LockHeldError(file, seen.record);
        await takeOver(file, seen, temp, content, 0);
        continue;
      }
      await sweep(file, temp, content);
      return heldLock(file, record);
    }
    throw new Error(`${file}: could not take the lock (too much contention)`);
  } finally {
    await fs.unlink(temp).catch(() => {});
  }
}

function heldLock(file: string, record: LockRecord): HeldLock {
  let released = false;
  return {
    file,
    record,
    async release() {
      if (released) return;
      released = true;
      const s = await readSeen(file).catch(() => null);
      if (s?.record?.token === record.token) await fs.unlink(file).catch(() => {});
    },
  };
}

/**
 * The running holder of the lock `file`, if any (for waiting on another process's lock).
 * @returns the holder's record, `'unreadable'` for a lock being written, or null when free.
 */
export async function lockHolder(file: string): Promise<LockRecord | 'unreadable' | null> {
  const s = await readSeen(file).catch(() => null);
  if (s === null || !isHeld(s)) return null;
  return s.record ?? 'unreadable';
}
