/**
 * `--resume`: a worker's state rebuilt from its files. The frontier is what was enqueued minus
 * what has an item; the seen-set holds every URL of both; the counters and the content index
 * count the items already written; links already handed to sibling processes count as seen here.
 */
import type { Logger } from 'pino';
import type { ContentDedup } from '../dedup/content-dedup.js';
import { contentKeyFromHex } from '../dedup/content-index.js';
import type { SeenSet } from '../dedup/seen-set.js';
import { readHandoffs, recoverJournal } from '../frontier/journal.js';
import type { CrawlStats } from './crawl-stats.js';
import { countsAsError } from './item.js';

/** Where a worker's state is, and what is rebuilt from it. */
export interface ResumeParts {
  stateDir: string;
  itemsPath: string;
  seen: SeenSet;
  contentIndex: ContentDedup;
  stats: CrawlStats;
  log: Logger;
  /** Queue a pending URL (already in the seen-set and the frontier log). */
  queue(url: string, depth: number): void;
}

/**
 * Rebuild the frontier, seen-set, counters and content index from the frontier log and the items
 * file (repairing a torn last line of either).
 * @returns items found in the items file.
 * @throws on I/O errors.
 */
export async function restoreState(parts: ResumeParts): Promise<number> {
  const { stats, contentIndex } = parts;
  let items = 0;
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
    },
    (line) => contentIndex.appendLine(line.bytes),
  );
  for (const p of rec.pending) parts.queue(p.url, p.depth);
  parts.log.info(
    { pending: rec.pending.length, done: rec.done, repairedBytes: rec.repairedBytes },
    'resumed',
  );
  return items;
}

/** URLs this worker handed to its siblings before it stopped: seen here, not fetched here. */
export async function restoreHandedOff(
  stateDir: string,
  partition: { index: number; count: number },
  seen: SeenSet,
): Promise<void> {
  for (let o = 0; o < partition.count; o++) {
    if (o !== partition.index) await readHandoffs(stateDir, o, (url) => seen.add(url));
  }
}
