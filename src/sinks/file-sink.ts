/**
 * Stores response bodies under `<out>/files/<host>/<path>` with atomic writes and a
 * bounded FIFO write queue, so the fetch loop hands bodies off without waiting on disk.
 *
 * Versions (for sources that fetch a page again in later rounds; option `versions`): each
 * different body of a URL is one version, stored once under an immutable name that depends only
 * on the URL and the bytes (`files/<host>/_versions/<url hash>/<body hash>`, `versionPathFor`),
 * and that name is what {@link FileSink.write} returns for the item's `file`. The page's own path
 * `files/<host>/<path>` always shows the current version (a hard link to it, replaced atomically).
 * So an item's `file` holds exactly the bytes of its `sha256` for ever, however often the page
 * changes; with `keep: false` superseded versions are deleted (their items' `file` is then
 * missing, never wrong). Without `versions` (a one-shot crawl) nothing changes: a body is stored
 * at its page's path and never replaced.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import {
  linkAtomic,
  linkAtomicSync,
  TEMP_INFIX,
  writeFileAtomic,
  writeFileAtomicSync,
} from './atomic-file.js';
import { CONFLICTS_DIR, filePathFor, versionExtension, versionPathFor } from './file-path.js';
import { NoFollowDirs } from './no-follow.js';

/** Default number of bodies written to disk at the same time. */
export const DEFAULT_MAX_CONCURRENT_WRITES = 8;

/** Options for {@link FileSink}. */
export interface FileSinkOptions {
  /** The crawl's output directory `<out>`; bodies go to `<out>/files/`. */
  outDir: string;
  /** Bodies written concurrently, ≥ 1 (default 8); further writes wait in FIFO order. */
  maxConcurrentWrites?: number;
  /** Store pages as versions (see the module comment); absent = one body per page, never replaced. */
  versions?: VersionOptions;
}

/** How versions are kept. */
export interface VersionOptions {
  /**
   * Keep every version's file (true), or delete the older ones once a newer one is current
   * (false: less disk; the items of older versions then name a file that no longer exists).
   */
  keep: boolean;
}

interface WriteJob {
  url: string;
  body: Buffer;
  extension: string | undefined;
  resolve: (file: string) => void;
  reject: (error: unknown) => void;
}

/** fs error codes meaning "a file sits where a directory is needed, or the reverse". */
const CONFLICT_CODES = new Set(['ENOTDIR', 'EEXIST', 'EISDIR']);

function isConflict(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && CONFLICT_CODES.has(code);
}

/**
 * Whether `target` is a body stored before versions were on (a regular file with one link: not a
 * link to a version), which an item of an earlier run may name: it is never replaced, so the
 * page's path then keeps that body instead of showing the current version.
 */
function storedWithoutVersions(target: string): boolean {
  try {
    const st = lstatSync(target);
    return st.isFile() && st.nlink === 1;
  } catch {
    return false;
  }
}

/**
 * Where body writes keep their temp files: `<out>/state/tmp`, beside the data on the same
 * filesystem but outside `files/`, so what a crash leaves there is removed at the next start
 * (see `lockOutput`) without scanning the stored bodies.
 */
export function bodyTempDir(outDir: string): string {
  return path.resolve(outDir, 'state', 'tmp');
}

/**
 * Resolves `relative` against `root` and checks the result is strictly inside `root`
 * (defence in depth: {@link filePathFor} already never yields `..` or absolute paths).
 *
 * @param root absolute directory, e.g. `<out>/files`.
 * @param relative path to place under it.
 * @returns the absolute path.
 * @throws Error when the resolved path is `root` itself or outside it.
 */
export function resolveInside(root: string, relative: string): string {
  const target = path.resolve(root, relative);
  if (!target.startsWith(root + path.sep)) {
    throw new Error(`path ${JSON.stringify(relative)} resolves outside ${root}: ${target}`);
  }
  return target;
}

/**
 * Writes bodies to `<outDir>/files/` at {@link filePathFor}`(url)`.
 *
 * - Atomic: each body goes to `<name>.part-<random>` and is renamed into place.
 * - File/directory clashes (`/a` stored as a file, then `/a/b` needs `a/` as a directory,
 *   or the reverse) store the later body at `files/<host>/_conflicts/<16 hex of
 *   SHA-1(url)>` instead.
 * - Bounded: at most `maxConcurrentWrites` writes run at once; the rest queue in FIFO
 *   order, holding their bodies in memory (see {@link pendingBytes} for backpressure).
 * - Never through a symbolic link: `files/`, each directory below it and the temp directory are
 *   made or checked one component at a time, once per directory ({@link NoFollowDirs}); a link
 *   fails the write with `SymlinkRefused` (the item records it as its `storeError`). A final
 *   link is replaced by the rename, or (exclusive writes) makes a clash, never written through.
 *
 * Not safe for two sinks (or processes) writing the same host directory concurrently
 * beyond what rename atomicity gives; ownership by host keeps that from happening.
 */
export class FileSink {
  /** Absolute `<outDir>/files`. */
  readonly filesRoot: string;
  /** Absolute `<outDir>/state/tmp`: temp files of writes in progress ({@link bodyTempDir}). */
  private readonly tempDir: string;
  /** Directories below `<out>` made or checked so far (links refused). */
  private readonly dirs: NoFollowDirs;
  private readonly maxConcurrent: number;
  private readonly versions: VersionOptions | undefined;
  private readonly queue: Array<WriteJob | undefined> = [];
  private queueHead = 0;
  private active = 0;
  private queuedBytes = 0;
  private closed = false;
  private idleWaiters: Array<() => void> = [];

  /**
   * @throws RangeError when `maxConcurrentWrites` is not an integer ≥ 1.
   */
  constructor(opts: FileSinkOptions) {
    const max = opts.maxConcurrentWrites ?? DEFAULT_MAX_CONCURRENT_WRITES;
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(`FileSink: maxConcurrentWrites must be an integer >= 1, got ${max}`);
    }
    this.maxConcurrent = max;
    this.versions = opts.versions;
    this.filesRoot = path.resolve(opts.outDir, 'files');
    this.tempDir = bodyTempDir(opts.outDir);
    this.dirs = new NoFollowDirs(path.resolve(opts.outDir));
  }

  /** Writes queued or in progress. */
  get pendingWrites(): number {
    return this.queue.length - this.queueHead + this.active;
  }

  /** Body bytes waiting in the queue (not yet being written), for memory backpressure. */
  get pendingBytes(): number {
    return this.queuedBytes;
  }

  /**
   * Queues `body` to be stored for `url`. Returns immediately; the promise settles once
   * the file is in place under its final name.
   *
   * @param url canonical http(s) URL the body was fetched from.
   * @param body the body bytes, written as-is.
   * @param extension the file's extension chosen by a source (see {@link filePathFor}).
   * @returns path relative to `outDir`, POSIX separators, e.g. `files/host/a/index.html`
   *   or `files/host/_conflicts/0123456789abcdef`.
   * @throws (rejects) Error when the sink is closed, the URL is not http(s) (TypeError
   *   if it does not parse), the resolved path escapes `<outDir>/files`, or an fs error.
   */
  write(url: string, body: Buffer, extension?: string): Promise<string> {
    if (this.closed) return Promise.reject(new Error(`FileSink is closed; cannot write ${url}`));
    return new Promise<string>((resolve, reject) => {
      this.queue.push({ url, body, extension, resolve, reject });
      this.queuedBytes += body.length;
      this.pump();
    });
  }

  /**
   * Stops accepting writes and resolves once every queued and in-progress write has
   * settled. Idempotent; never rejects (individual `write` promises carry the errors).
   */
  close(): Promise<void> {
    this.closed = true;
    if (this.pendingWrites === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stores one body and returns its path relative to `outDir`. Called by the queue with
   * at most `maxConcurrentWrites` calls in flight; subclasses may wrap it (e.g. to
   * instrument), but must call `super.store`.
   *
   * @throws Error when the path escapes `<outDir>/files`; fs errors other than clashes.
   */
  protected async store(url: string, body: Buffer, extension?: string): Promise<string> {
    if (this.versions !== undefined) return this.storeVersion(url, body, this.versions, extension);
    const relative = filePathFor(url, extension);
    try {
      // Exclusive: `/a/` and `/a/index.html` (or two processes) must not replace each other's
      // different bodies; identical bytes are shared.
      await this.writeUnder(relative, body, url, true);
      return `files/${relative}`;
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
    const fallback = this.conflictPath(relative, url);
    // This URL's own name: a body fetched again (resume) replaces its earlier copy.
    await this.writeUnder(fallback, body, url, false);
    return `files/${fallback}`;
  }

  /**
   * {@link write}'s synchronous form, for the body-writer thread: the same paths, exclusivity
   * and conflict handling, with blocking syscalls and no queue.
   * @returns the path relative to `outDir`, as {@link write} resolves.
   * @throws as {@link write} rejects.
   */
  storeSync(url: string, body: Buffer, extension?: string): string {
    if (this.versions !== undefined) return this.storeVersionSync(url, body, this.versions, extension);
    const relative = filePathFor(url, extension);
    try {
      this.writeUnderSync(relative, body, url, true);
      return `files/${relative}`;
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
    const fallback = this.conflictPath(relative, url);
    this.writeUnderSync(fallback, body, url, false);
    return `files/${fallback}`;
  }

  /**
   * Versions on: the body under its version name (exclusive: the same bytes are already there),
   * then the page's path pointed at it, then, without `keep`, the URL's other versions removed.
   * @returns the version's path relative to `outDir`.
   */
  private async storeVersion(
    url: string,
    body: Buffer,
    versions: VersionOptions,
    extension?: string,
  ): Promise<string> {
    const sha256 = createHash('sha256').update(body).digest('hex');
    // A source's chosen extension (a README's `.md`), or the page's own (`.html`), on the version.
    const ext = versionExtension(url, extension);
    let relative = `${versionPathFor(url, sha256)}${ext}`;
    try {
      await this.writeUnder(relative, body, url, true);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // two versions sharing 64 bits of hash: the full hash tells them apart
      relative = `${versionPathFor(url, sha256)}${sha256.slice(16)}${ext}`;
      await this.writeUnder(relative, body, url, true);
    }
    const stored = this.target(relative, url);
    const current = filePathFor(url, extension);
    try {
      await this.ensureDir(this.target(current, url));
      if (!storedWithoutVersions(this.target(current, url)))
        await linkAtomic(stored, this.target(current, url), { tempDir: this.tempDir });
    } catch (error) {
      if (!isConflict(error)) throw error;
      // the page's path is taken by a directory (or the reverse): show the current version here
      const fallback = this.target(this.conflictPath(current, url), url);
      await this.ensureDir(fallback);
      if (!storedWithoutVersions(fallback)) await linkAtomic(stored, fallback, { tempDir: this.tempDir });
    }
    if (!versions.keep) {
      const dir = path.dirname(stored);
      for (const name of await readdir(dir)) {
        if (name !== path.basename(stored) && !name.includes(TEMP_INFIX))
          await unlink(path.join(dir, name)).catch(() => {});
      }
    }
    return `files/${relative}`;
  }

  /** {@link storeVersion}'s synchronous twin, for {@link storeSync}. */
  private storeVersionSync(url: string, body: Buffer, versions: VersionOptions, extension?: string): string {
    const sha256 = createHash('sha256').update(body).digest('hex');
    // A source's chosen extension (a README's `.md`), or the page's own (`.html`), on the version.
    const ext = versionExtension(url, extension);
    let relative = `${versionPathFor(url, sha256)}${ext}`;
    try {
      this.writeUnderSync(relative, body, url, true);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      relative = `${versionPathFor(url, sha256)}${sha256.slice(16)}${ext}`;
      this.writeUnderSync(relative, body, url, true);
    }
    const stored = this.target(relative, url);
    const current = filePathFor(url, extension);
    try {
      this.ensureDirSync(this.target(current, url));
      if (!storedWithoutVersions(this.target(current, url)))
        linkAtomicSync(stored, this.target(current, url), { tempDir: this.tempDir });
    } catch (error) {
      if (!isConflict(error)) throw error;
      const fallback = this.target(this.conflictPath(current, url), url);
      this.ensureDirSync(fallback);
      if (!storedWithoutVersions(fallback)) linkAtomicSync(stored, fallback, { tempDir: this.tempDir });
    }
    if (!versions.keep) {
      const dir = path.dirname(stored);
      for (const name of readdirSync(dir)) {
        if (name === path.basename(stored) || name.includes(TEMP_INFIX)) continue;
        try {
          unlinkSync(path.join(dir, name));
        } catch {
          // already gone
        }
      }
    }
    return `files/${relative}`;
  }

  /**
   * Creates (or checks) the directory of an absolute target and the temp directory, each once,
   * without following a link (see the class comment).
   */
  private async ensureDir(target: string): Promise<void> {
    await this.dirs.ensure(path.dirname(target));
    await this.dirs.ensure(this.tempDir);
  }

  private ensureDirSync(target: string): void {
    this.dirs.ensureSync(path.dirname(target));
    this.dirs.ensureSync(this.tempDir);
  }

  private conflictPath(relative: string, url: string): string {
    const host = relative.slice(0, relative.indexOf('/'));
    return `${host}/${CONFLICTS_DIR}/${createHash('sha1').update(url).digest('hex').slice(0, 16)}`;
  }

  private target(relative: string, url: string): string {
    try {
      return resolveInside(this.filesRoot, relative);
    } catch (error) {
      throw new Error(`FileSink: unsafe path for ${url}: ${(error as Error).message}`);
    }
  }

  private writeUnderSync(relative: string, body: Buffer, url: string, exclusive: boolean): void {
    const target = this.target(relative, url);
    this.ensureDirSync(target);
    writeFileAtomicSync(target, body, { exclusive, tempDir: this.tempDir });
  }

  /** Resolves `relative` under `filesRoot`, checks containment, creates dirs, writes. */
  private async writeUnder(relative: string, body: Buffer, url: string, exclusive: boolean): Promise<void> {
    const target = this.target(relative, url);
    await this.ensureDir(target);
    await writeFileAtomic(target, body, { exclusive, tempDir: this.tempDir });
  }

  /** Starts queued jobs while below the concurrency limit; wakes `close` when idle. */
  private pump(): void {
    while (this.active < this.maxConcurrent && this.queueHead < this.queue.length) {
      const job = this.queue[this.queueHead]!;
      this.queue[this.queueHead] = undefined; // drop the reference so the body can be freed
      this.queueHead++;
      this.queuedBytes -= job.body.length;
      this.active++;
      this.store(job.url, job.body, job.extension)
        .then(job.resolve, job.reject)
        .finally(() => {
          this.active--;
          this.pump();
        });
    }
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    }
    if (this.pendingWrites === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const wake of waiters) wake();
    }
  }
}
