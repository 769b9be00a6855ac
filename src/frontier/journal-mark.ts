/**
 * The journal's own count of what it wrote: `state/<worker>/journal.json` holds the bytes and
 * lines of the frontier log and of the items file after the journal's last write, replaced
 * atomically after each write. At resume the files are measured against it: a file shorter than
 * it was (truncated, emptied, replaced, or its last writes lost to a power cut) is a loss that is
 * said, not a crawl that quietly finishes without the pages it had queued. The mark may lag the
 * files (a kill between a write and its mark), never lead them, so an intact state never looks
 * damaged; a loss that falls entirely after the last mark is not seen.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../sinks/atomic-file.js';

/** The mark's file name in a worker's state dir. */
export const JOURNAL_MARK = 'journal.json';

/** The layout version of the mark. */
const FORMAT = 1;

/** Bytes and complete lines of one log. */
export interface LogSize {
  bytes: number;
  lines: number;
}

/** What the journal had written, as its mark records it. */
export interface JournalMark {
  frontier: LogSize;
  items: LogSize;
}

/** A log found shorter than its mark: what it had, what it has. */
export interface LogLoss {
  had: LogSize;
  has: LogSize;
}

/** The path of the mark in `stateDir`. */
export function journalMarkPath(stateDir: string): string {
  return path.join(stateDir, JOURNAL_MARK);
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isSize = (v: unknown): v is LogSize =>
  typeof v === 'object' && v !== null && isCount((v as LogSize).bytes) && isCount((v as LogSize).lines);

/**
 * Read the mark of `stateDir`.
 * @returns the mark; null when there is none (a crawl from before marks, or a new one) or it is
 *   damaged (then nothing can be checked: the caller goes on as before marks).
 */
export async function readJournalMark(stateDir: string): Promise<JournalMark | null> {
  let doc: unknown;
  try {
    doc = JSON.parse(await fs.readFile(journalMarkPath(stateDir), 'utf8'));
  } catch {
    return null;
  }
  const d = doc as { format?: unknown; frontier?: unknown; items?: unknown } | null;
  if (d === null || d.format !== FORMAT || !isSize(d.frontier) || !isSize(d.items)) return null;
  return { frontier: { ...d.frontier }, items: { ...d.items } };
}

/**
 * Replace the mark (atomically, not fsynced: a mark lost with a power cut only lags).
 * @throws the fs error (ENOSPC...).
 */
export async function writeJournalMark(stateDir: string, mark: JournalMark): Promise<void> {
  const doc = { format: FORMAT, ...mark, savedAt: new Date().toISOString() };
  await writeFileAtomic(journalMarkPath(stateDir), `${JSON.stringify(doc)}\n`);
}

/** `has` is a loss against `had`: fewer bytes or fewer lines than the journal wrote. */
export function lostFrom(had: LogSize, has: LogSize): LogLoss | null {
  return has.bytes < had.bytes || has.lines < had.lines ? { had, has } : null;
}
