/**
 * Nothing below `<out>` is written through a symbolic link: a link placed in `files/`, `state/`,
 * `items/`, `warc/` or `logs/` (by mistake, or by someone who wants the collector, perhaps running
 * as root, to write elsewhere) is refused with a {@link SymlinkRefused} error, never followed.
 * `<out>` itself may be a link (it is the user's choice of place). Directories are made and checked
 * one component at a time (mkdir, else lstat) and remembered once checked, so the cost is one or
 * two syscalls per new directory, not per file; files are opened with `O_NOFOLLOW`.
 *
 * What remains (Node 20 has no openat(2)): a directory checked here and then replaced by a link
 * while the process runs is not checked again. That needs write access to `<out>` during the run.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

/** Add to open(2) flags: fail with ELOOP instead of following a final symbolic link. */
export const O_NOFOLLOW = fs.constants.O_NOFOLLOW;

/** open(2) flags of an append-only state file (`'a'`) that refuses a link. */
export const APPEND_NO_FOLLOW =
  fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | O_NOFOLLOW;

/** open(2) flags for reading and writing an existing file (`'r+'`) that refuse a link. */
export const UPDATE_NO_FOLLOW = fs.constants.O_RDWR | O_NOFOLLOW;

/** open(2) flags for reading (`'r'`) that refuse a link. */
export const READ_NO_FOLLOW = fs.constants.O_RDONLY | O_NOFOLLOW;

/** The directories and files whose links are refused at start ({@link findLinkBelow}). */
export const OUTPUT_PARTS = ['files', 'state', 'items', 'warc', 'logs'] as const;

/**
 * A path below `<out>` is a symbolic link, so the collector will not go through it. `code` is
 * `ELOOP` (what `O_NOFOLLOW` answers), `path` the link.
 */
export class SymlinkRefused extends Error {
  readonly code = 'ELOOP';
  /** The link. */
  readonly path: string;
  /**
   * @param link the link's absolute path.
   * @param root `<out>`: the message names the link relative to it.
   */
  constructor(link: string, root?: string) {
    const shown = root === undefined ? link : (below(root, link) ?? link);
    super(
      `${shown} is a symbolic link: not followed (nothing below the output directory is written through a link)`,
    );
    this.name = 'SymlinkRefused';
    this.path = link;
  }
}

/** `p` relative to `root` when it is below it, else null. */
function below(root: string, p: string): string | null {
  const r = path.relative(root, p);
  return r === '' || r.startsWith('..') || path.isAbsolute(r) ? null : r;
}

/** An error like the one mkdir gives when a file sits where a directory is needed. */
function notADirectory(dir: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), {
    code: 'ENOTDIR',
    path: dir,
  });
}

/** An open's ELOOP (the final component is a link) as a {@link SymlinkRefused}; other errors as they are. */
export function refusedLink(e: unknown, file: string, root?: string): unknown {
  return (e as NodeJS.ErrnoException)?.code === 'ELOOP' && !(e instanceof SymlinkRefused)
    ? new SymlinkRefused(file, root)
    : e;
}

/**
 * Open `file` with `flags` (which should hold {@link O_NOFOLLOW}), a link refused as
 * {@link SymlinkRefused}.
 * @throws SymlinkRefused when `file` is a link; the fs error otherwise.
 */
export async function openNoFollow(file: string, flags: number, mode = 0o666): Promise<fsp.FileHandle> {
  try {
    return await fsp.open(file, flags | O_NOFOLLOW, mode);
  } catch (e) {
    throw refusedLink(e, file);
  }
}

/**
 * Directories below a trusted `root` (`<out>`), made and checked without following links. One
 * instance per writer: it remembers the directories it checked (for the life of the process).
 */
export class NoFollowDirs {
  private readonly checked = new Set<string>();
  /** Absolute `root`; it is trusted as it is (it may be a link). */
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /**
   * Make `dir` and its missing parents below the root (the root too, when missing), checking
   * each component below the root that was there already: one `mkdir` per new directory, an
   * `lstat` per existing one, each at most once per instance.
   * @param dir absolute directory at or below the root.
   * @throws SymlinkRefused when a component is a link; an ENOTDIR error (with `code` and `path`)
   *   when one is a file; Error when `dir` is not below the root; other fs errors (EACCES, ENOSPC).
   */
  ensureSync(dir: string): void {
    if (this.checked.has(dir)) return;
    if (dir === this.root) {
      fs.mkdirSync(dir, { recursive: true }); // trusted: made as asked, links followed
      this.checked.add(dir);
      return;
    }
    this.ensureSync(this.parentOf(dir));
    try {
      fs.mkdirSync(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      this.judge(dir, fs.lstatSync(dir));
    }
    this.checked.add(dir);
  }

  /** {@link ensureSync} without blocking the event loop; same contract. */
  async ensure(dir: string): Promise<void> {
    if (this.checked.has(dir)) return;
    if (dir === this.root) {
      await fsp.mkdir(dir, { recursive: true });
      this.checked.add(dir);
      return;
    }
    await this.ensure(this.parentOf(dir));
    try {
      await fsp.mkdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      this.judge(dir, await fsp.lstat(dir));
    }
    this.checked.add(dir);
  }

  private parentOf(dir: string): string {
    const parent = path.dirname(dir);
    if (parent === dir || below(this.root, dir) === null) {
      throw new Error(`${dir} is not below ${this.root}`);
    }
    return parent;
  }

  private judge(dir: string, st: fs.Stats): void {
    if (st.isSymbolicLink()) throw new SymlinkRefused(dir, this.root);
    if (!st.isDirectory()) throw notADirectory(dir);
  }
}

/**
 * The first symbolic link among the parts of `<out>` a collector writes (`files`, `state`,
 * `items`, `warc`, `logs`), the entries of all but `files` and the entries of `state/`'s
 * directories (the workers' state files): what a run opens at start. `files/` below its top is
 * checked as it is written ({@link NoFollowDirs}), since it may hold millions of files.
 * @param out the output directory (trusted: may itself be a link).
 * @returns the link's path and target, or null when there is none.
 */
export async function findLinkBelow(out: string): Promise<{ path: string; target: string } | null> {
  const root = path.resolve(out);
  const found = async (p: string) => ({ path: p, target: await fsp.readlink(p).catch(() => '?') });
  for (const part of OUTPUT_PARTS) {
    const top = path.join(root, part);
    let st: fs.Stats;
    try {
      st = await fsp.lstat(top);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) return found(top);
    if (part === 'files' || !st.isDirectory()) continue;
    for (const d of await entries(top)) {
      const p = path.join(top, d.name);
      if (d.isSymbolicLink()) return found(p);
      if (part !== 'state' || !d.isDirectory()) continue;
      for (const e of await entries(p)) {
        if (e.isSymbolicLink()) return found(path.join(p, e.name));
      }
    }
  }
  return null;
}

/**
 * The entries of a directory; none when it is gone: another process that shares `<out>` (one
 * losing a lock race, say) may remove its temporary directory between the listing of its parent
 * and this one.
 */
async function entries(dir: string): Promise<fs.Dirent[]> {
  try {
    return await fsp.readdir(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}
