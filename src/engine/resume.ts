/**
 * `--resume`: a worker's state rebuilt from its files. The frontier is what was enqueued minus
 * what has an item, each URL with the metadata its source gave it (label, headers, userData...); the seen-set holds every URL of both; the counters, the content index
 * and the near-duplicate index count the items already written; links already handed to sibling
 * processes count as seen here.
 * Every line read back is checked (log-replay.ts): a URL listed twice is queued once, a damaged,
 * out-of-scope or foreign line is skipped and reported.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ContentDedup } from '../dedup/content-dedup.js';
import { contentKeyFromHex } from '../dedup/content-index.js';
import type { SeenSet } from '../dedup/seen-set.js';
import { FRONTIER_LOG, type LogLoss, readHandoffs, recoverJournal } from '../frontier/journal.js';
import { type AckRecords, PENDING_ITEMS, settlePendingItems } from '../frontier/pending-items.js';
import type { RequestMeta } from '../frontier/request-meta.js';
import type { CrawlStats } from './crawl-stats.js';
import { countsAsError } from './item.js';
import { type ReplayPartition, reportSkippedLines, workerReplayFilter } from './log-replay.js';
import { pendingRelink, saveRelink } from './lost-links.js';
import type { NearDuplicateMarks } from './near-duplicate-marks.js';

/** Where a worker's state is, and what is rebuilt from it. */
export interface ResumeParts {
  stateDir: string;
  itemsPath: string;
  seen: SeenSet;
  contentIndex: ContentDedup;
  /** Near-duplicate marking, whose index of originals is rebuilt; null when it is off. */
  nearDuplicateMarks: NearDuplicateMarks | null;
  stats: CrawlStats;
  log: Logger;
  /** The `--out` dir (names the files in warnings). */
  outDir: string;
  /** The scope verdict of a URL (`'ok'` or why it is not followed): lines out of scope are skipped. */
  scope(url: string): string;
  /** This worker's place among its siblings (lines it does not own are skipped). */
  partition?: ReplayPartition;
  /** Queue a pending URL (already in the seen-set and the frontier log), with its metadata. */
  queue(url: string, depth: number, meta: RequestMeta | undefined): void;
  /**
   * Filled with the end of the WARC records the items name, per file (relative to `<out>`):
   * where each WARC file is cut back to (`--warc`).
   */
  warcEnds?: Map<string, number>;
}

/** What {@link restoreState} found. */
export interface Restored {
  /** Items found in the items file. */
  items: number;
  /** Complete lines of the frontier log and the items file (for the journal's mark). */
  lines: { frontier: number; items: number };
  /**
   * The items line from which the stored pages are to be read again for their links (lost-links.ts):
   * the frontier log lost lines (now, or at an earlier resume whose re-read did not finish); null
   * when nothing is to be found again.
   */
  relinkFrom: number | null;
}

/** `had → has` of a log as words: lines lost, or bytes when the lines are all there (rewritten shorter). */
function lossWords(loss: LogLoss): string {
  const lines = loss.had.lines - loss.has.lines;
  return lines > 0
    ? `lost ${lines} of its ${loss.had.lines} line${loss.had.lines === 1 ? '' : 's'}`
    : `is ${loss.had.bytes - loss.has.bytes} bytes shorter`;
}

/**
 * Say in one line each (log and stderr) what the frontier log and items file lost since the
 * journal's last mark; when the frontier log lost lines, record that the stored pages are to be
 * read again for the URLs it held (before the journal writes a mark that no longer shows it).
 * @returns the items line to read the stored pages again from, or null.
 */
async function reportLoss(
  parts: Pick<ResumeParts, 'stateDir' | 'itemsPath' | 'outDir' | 'log'>,
  lost: { frontier?: LogLoss; items?: LogLoss },
): Promise<number | null> {
  const name = (file: string) => path.relative(parts.outDir, file);
  if (lost.items) {
    parts.log.warn({ file: parts.itemsPath, ...lost.items }, 'items file lost lines');
    process.stderr.write(
      `collector: ${name(parts.itemsPath)} ${lossWords(lost.items)} since its last save (truncated or replaced?): ` +
        'the pages of the lost lines are fetched again\n',
    );
  }
  if (lost.frontier) {
    const file = path.join(parts.stateDir, FRONTIER_LOG);
    parts.log.warn({ file, ...lost.frontier }, 'frontier log lost lines');
    process.stderr.write(
      `collector: ${name(file)} ${lossWords(lost.frontier)} since its last save (truncated or replaced?): ` +
        "the URLs it held are looked for again in this worker's stored pages\n",
    );
    await saveRelink(parts.stateDir, 0);
    return 0;
  }
  return pendingRelink(parts.stateDir);
}

/**
 * Rebuild the frontier, seen-set, counters, content index and near-duplicate index from the
 * frontier log and the items file (repairing a torn last line of either). Invalid frontier-log
 * lines are skipped, counted and reported in one warning; a file shorter than the journal's mark
 * says it was is reported too (see {@link Restored.relinkFrom}).
 * @throws on I/O errors.
 */
export async function restoreState(parts: ResumeParts): Promise<Restored> {
  const { stats, contentIndex, nearDuplicateMarks } = parts;
  let items = 0;
  const replay = workerReplayFilter(parts.scope, parts.partition);
  const rec = await recoverJournal(
    { stateDir: parts.stateDir, itemsPath: parts.itemsPath },
    parts.seen,
    (it, line) => {
      items++;
      stats.items++;
      if (countsAsError(it)) stats.errors++;
      if (!it.error) stats.collected++;
      // A body this item stored is the original of any later copy (`ordinal` = its line).
      const sha = it.sha256;
      const data = it.data as Record<string, unknown> | undefined;
      if (typeof sha === 'string' && typeof it.file === 'string' && !data?.duplicateOf) {
        const key = contentKeyFromHex(sha);
        if (key !== null) contentIndex.add(key, line.index);
      }
      // Judged again in file order: the originals it had before (near-duplicate-marks.ts).
      nearDuplicateMarks?.replay(it);
      if (parts.warcEnds !== undefined) noteWarcEnd(parts.warcEnds, it.warc);
    },
    (line) => contentIndex.appendLine(line.bytes),
    replay,
  );
  for (const p of rec.pending) parts.queue(p.url, p.depth, p.meta);
  parts.log.info(
    {
      pending: rec.pending.length,
      done: rec.done,
      repeated: rec.repeated,
      repairedBytes: rec.repairedBytes,
    },
    'resumed',
  );
  reportSkippedLines(replay, path.join(parts.stateDir, FRONTIER_LOG), parts.outDir, parts.log);
  const relinkFrom = await reportLoss(parts, rec.lost);
  return { items, lines: rec.lines, relinkFrom };
}

/** Record the end of the WARC records an item names (`{file, offset, length}`), if it names any. */
function noteWarcEnd(ends: Map<string, number>, warc: unknown): void {
  const w = warc as { file?: unknown; offset?: unknown; length?: unknown } | undefined;
  if (w === undefined || w === null || typeof w.file !== 'string') return;
  const { offset, length } = w;
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length)) return;
  const end = (offset as number) + (length as number);
  if (end > (ends.get(w.file) ?? 0)) ends.set(w.file, end);
}

/**
 * URLs this worker handed to its siblings before it stopped: seen here, not fetched here. Lines
 * that are damaged, out of scope or not owned by the sibling they were handed to are skipped and
 * reported in one warning.
 */
export async function restoreHandedOff(
  parts: Pick<ResumeParts, 'stateDir' | 'outDir' | 'scope' | 'seen' | 'log'>,
  partition: ReplayPartition,
): Promise<void> {
  const replay = workerReplayFilter(parts.scope, partition);
  for (let o = 0; o < partition.count; o++) {
    if (o !== partition.index) await readHandoffs(parts.stateDir, o, (url) => parts.seen.add(url), replay);
  }
  reportSkippedLines(replay, path.join(parts.stateDir, 'handoff-*.log'), parts.outDir, parts.log);
}

/**
 * Settle the pending items file of a worker of a shared crawl (`pending-items.ts`), before its
 * state is read back: items whose acknowledgement the shared store recorded are written, the
 * others dropped (their URLs are fetched again by the crawl). Said in the log; a torn last line
 * and damaged lines are said on stderr too, naming the file (and the lines). Without a shared
 * store (a shared crawl resumed on its own) a file holding lines is left as it is, said once.
 * @throws on I/O errors, or when the store cannot answer (the file is kept for the next try).
 */
export async function settleAcknowledged(
  parts: Pick<ResumeParts, 'stateDir' | 'itemsPath' | 'outDir' | 'log'>,
  store: AckRecords | undefined,
): Promise<void> {
  const file = path.join(parts.stateDir, PENDING_ITEMS);
  const name = path.relative(parts.outDir, file);
  if (store === undefined) {
    const bytes = await stat(file).then(
      (st) => st.size,
      () => 0,
    );
    if (bytes === 0) return;
    parts.log.warn({ file }, 'pending items of a shared crawl left: resumed without its backend');
    process.stderr.write(
      `collector: ${name} holds items acknowledged in a shared crawl: resume with its --backend to ` +
        'write them (this run fetches their pages again)\n',
    );
    return;
  }
  const s = await settlePendingItems(parts.stateDir, parts.itemsPath, store);
  if (s.tornBytes > 0) {
    parts.log.warn({ file, bytes: s.tornBytes }, 'torn last line of the pending items ignored');
    process.stderr.write(
      `collector: ${name}: a torn last line (${s.tornBytes} bytes, cut by a crash mid-write) ignored\n`,
    );
  }
  if (s.damaged.length > 0) {
    const lines = s.damaged.slice(0, 10).join(', ') + (s.damaged.length > 10 ? ', …' : '');
    parts.log.warn({ file, lines: s.damaged }, 'damaged pending item lines skipped');
    process.stderr.write(
      `collector: ${name}: damaged line${s.damaged.length === 1 ? '' : 's'} ${lines} skipped ` +
        '(no item written for them)\n',
    );
  }
  if (s.promoted + s.dropped + s.written > 0) {
    parts.log.info(
      { promoted: s.promoted, dropped: s.dropped, alreadyWritten: s.written },
      'items acknowledged before a stop written; the others dropped (fetched again by the crawl)',
    );
  }
}
