/**
 * Preparing `<out>` for a crawl: writable, not holding another crawl unless resuming, and the
 * crawl's seeds recorded for `--resume` (the lock against a second collector: output-lock.ts).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../config/usage-error.js';
import { writeFileAtomic } from '../sinks/atomic-file.js';
import { isDiskFull } from '../sinks/disk-full.js';

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
    try {
      const st = await fs.stat(d);
      if (!st.isDirectory()) throw Object.assign(new Error(`${d} is not a directory`), { code: 'ENOTDIR' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(d) === d) throw e;
      missing.unshift(d);
    }
  }
  for (const d of missing) {
    try {
      await fs.mkdir(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
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
  try {
    await makeDirectory(out);
    await fs.access(out, fs.constants.W_OK);
    const probe = path.join(out, `.write-test-${process.pid}`);
    await fs.writeFile(probe, '');
    await fs.rm(probe);
  } catch (e) {
    if (isDiskFull(e)) throw e; // reported as a full disk, not as a user mistake
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(`--out ${out}: not writable (${code}); choose a directory you can write to`);
  }
  const recordPath = path.join(out, 'state', 'crawl.json');
  const hasCrawl =
    (await nonEmptyDir(path.join(out, 'items'))) || (await nonEmptyDir(path.join(out, 'state')));
  if (!resume) {
    if (hasCrawl) {
      throw new UsageError(
        `--out ${out}: holds an earlier crawl (items/, state/); add --resume to continue it, or choose an empty directory`,
      );
    }
    if (seeds.length === 0 && !source.seedsOptional) {
      throw new UsageError(
        'no URL given: collector crawl <url...> (or a --source that makes its own requests)',
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
