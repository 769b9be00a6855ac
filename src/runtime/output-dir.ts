/**
 * Preparing `<out>` for a crawl: writable, not holding another crawl unless resuming, and the
 * crawl's seeds recorded for `--resume` (the lock against a second collector: output-lock.ts).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../config/usage-error.js';
import { writeFileAtomic } from '../sinks/atomic-file.js';
import { isDiskFull } from '../sinks/disk-full.js';
import { findLinkBelow } from '../sinks/no-follow.js';

/** What a crawl remembers about itself in `<out>/state/crawl.json`. */
export interface CrawlRecord {
  version: 1;
  seeds: string[];
  createdAt: string;
  /** The `--source` it was started with (a built-in name or an absolute module path); absent: crawl. */
  source?: string;
  /** The source's options as written (`--source-option`). */
  sourceOptions?: Record<string, unknown>;
}

/** What a new crawl records besides its seeds. */
export interface CrawlSourceRecord {
  source?: string;
  sourceOptions?: Record<string, unknown>;
  /** The source makes its own requests (`seeds()`): no seed URL is needed. */
  seedsOptional: boolean;
}

/** The record of the crawl in `out` (`state/crawl.json`), or null when there is none (or it is unreadable). */
export async function readCrawlRecord(out: string): Promise<CrawlRecord | null> {
  try {
    const rec = JSON.parse(await fs.readFile(path.join(out, 'state', 'crawl.json'), 'utf8')) as CrawlRecord;
    return rec !== null && typeof rec === 'object' && Array.isArray(rec.seeds) ? rec : null;
  } catch {
    return null;
  }
}

/**
 * `mkdir -p` for a user-given directory, one level at a time. Node 20's recursive mkdir never
 * returns for some paths (e.g. under /proc, where mkdir answers ENOENT for an existing parent);
 * here every failure surfaces as an error with its code.
 * @throws the fs error of the first level that cannot be created.
 */
export async function makeDirectory(dir: string): Promise<void> {
  const abs = path.resolve(dir);
  const missing: string[] = [];
  for (let d = abs; ; d = path.dirname(d)) {
    let st: Awaited<ReturnType<typeof fs.stat>>;
    try {
      st = await fs.stat(d);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || path.dirname(d) === d) throw e;
      // ENOTDIR: a file further up; the walk goes on to name it.
      if (code === 'ENOENT') missing.unshift(d);
      continue;
    }
    if (!st.isDirectory()) {
      throw Object.assign(new Error(`${d} is not a directory`), { code: 'ENOTDIR', file: d });
    }
    break;
  }
  for (const d of missing) {
    try {
      await fs.mkdir(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

/**
 * The first level of `dir` that does not exist yet (what {@link makeDirectory} would create and
 * {@link removeIfCreated} may remove), or null when `dir` exists (or cannot be looked at).
 */
export async function firstMissing(dir: string): Promise<string | null> {
  let missing: string | null = null;
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try {
      await fs.stat(d);
      return missing;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(d) === d) return missing;
      missing = d;
    }
  }
}

/**
 * Run `work`; when it fails with a usage error, remove `created` (a directory that did not exist
 * before this command, see {@link firstMissing}) with what this command wrote in it, so a mistake
 * leaves no empty `--out` or `data` behind — nor a half-made crawl that the corrected command
 * would refuse as an earlier one.
 */
export async function removeIfCreated<T>(created: string | null, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (created !== null && e instanceof UsageError) await fs.rm(created, { recursive: true, force: true });
    throw e;
  }
}

/** `--out` (or `data`) cannot be used: one line naming it and why, in words where there are some. */
export function unusableDirectory(label: string, dir: string, e: unknown): UsageError {
  const code = (e as NodeJS.ErrnoException).code ?? 'error';
  if (code === 'ENOTDIR') {
    const file = (e as { file?: string }).file;
    const which = file === undefined || file === path.resolve(dir) ? 'is a file' : `is under ${file}, a file`;
    return new UsageError(`${label} ${dir}: ${which}, not a directory; choose a directory`);
  }
  const why = code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? 'not writable' : 'cannot be used';
  return new UsageError(`${label} ${dir}: ${why} (${code}); choose a directory you can write to`);
}

/**
 * Refuse an output directory that holds a symbolic link where the collector writes (`files`,
 * `state`, `items`, `warc`, `logs`, and what they hold but the pages: see `findLinkBelow`), before
 * anything is written there: nothing below `--out` is written through a link.
 * @param label how the directory is named: `--out` or `data`.
 * @throws UsageError naming the link and its target.
 */
export async function refuseLinks(out: string, label: string): Promise<void> {
  const link = await findLinkBelow(out);
  if (link === null) return;
  const rel = path.relative(path.resolve(out), link.path);
  throw new UsageError(
    `${label} ${out}: ${rel} is a symbolic link (to ${link.target}); the collector never writes through a link ` +
      `below ${label}: replace it with a directory or file of its own (or link ${label} itself), or choose another ${label}`,
  );
}

async function nonEmptyDir(p: string): Promise<boolean> {
  try {
    return (await fs.readdir(p)).length > 0;
  } catch {
    return false;
  }
}

/**
 * Check and prepare the output directory; returns the seeds to crawl.
 * @param seeds canonical seeds from the command line (may be empty with resume).
 * @throws UsageError when `out` is not writable, holds another crawl without `resume`, or
 *   there is nothing to resume.
 */
export async function prepareOutput(
  out: string,
  seeds: string[],
  resume: boolean,
  source: CrawlSourceRecord = { seedsOptional: false },
): Promise<string[]> {
  // Before `--out` is made: a mistake leaves nothing behind.
  if (!resume && seeds.length === 0 && !source.seedsOptional) {
    throw new UsageError(
      'no URL given: collector crawl <url...> (or a --source that makes its own requests)',
    );
  }
  try {
    await makeDirectory(out);
    await fs.access(out, fs.constants.W_OK);
    const probe = path.join(out, `.write-test-${process.pid}`);
    await fs.writeFile(probe, '');
    await fs.rm(probe);
  } catch (e) {
    if (isDiskFull(e)) throw e; // reported as a full disk, not as a user mistake
    throw unusableDirectory('--out', out, e);
  }
  await refuseLinks(out, '--out');
  const recordPath = path.join(out, 'state', 'crawl.json');
  const hasCrawl =
    (await nonEmptyDir(path.join(out, 'items'))) || (await nonEmptyDir(path.join(out, 'state')));
  if (!resume) {
    if (hasCrawl) {
      throw new UsageError(
        `--out ${out}: holds an earlier crawl (items/, state/); add --resume to continue it, or choose an empty directory`,
      );
    }
    await fs.mkdir(path.join(out, 'state'), { recursive: true });
    const rec: CrawlRecord = { version: 1, seeds, createdAt: new Date().toISOString() };
    if (source.source !== undefined) rec.source = source.source;
    if (source.sourceOptions !== undefined) rec.sourceOptions = source.sourceOptions;
    await writeFileAtomic(recordPath, `${JSON.stringify(rec, null, 2)}\n`);
    return seeds;
  }
  let rec = await readCrawlRecord(out);
  if (rec === null) {
    if (seeds.length === 0 && !source.seedsOptional) {
      throw new UsageError(
        `--out ${out}: no crawl to resume (no state/crawl.json); give seed URLs or drop --resume`,
      );
    }
    rec = { version: 1, seeds: [], createdAt: new Date().toISOString(), ...source };
    delete (rec as Partial<CrawlSourceRecord>).seedsOptional;
    await fs.mkdir(path.join(out, 'state'), { recursive: true });
    await writeFileAtomic(recordPath, `${JSON.stringify(rec, null, 2)}\n`);
  }
  const all = [...new Set([...rec.seeds, ...seeds])];
  if (all.length !== rec.seeds.length) {
    await fs.mkdir(path.join(out, 'state'), { recursive: true });
    await writeFileAtomic(recordPath, `${JSON.stringify({ ...rec, seeds: all }, null, 2)}\n`);
  }
  return all;
}
