/**
 * How a worker checks the lines it reads back from its own logs at resume (frontier log,
 * handoff logs) and reports the damaged ones: one warning per file, in its log and on stderr.
 */
import path from 'node:path';
import type { Logger } from 'pino';
import { ReplayFilter } from '../frontier/replay-filter.js';
import { ownerOf } from '../url/ownership.js';

/** A worker's place among the processes of its type, as the replay checks it. */
export interface ReplayPartition {
  index: number;
  count: number;
  by: 'host' | 'url';
}

/**
 * A filter for one worker's logs: canonical URLs, in `scope`, owned by the worker a log is for.
 * @param scope the scope verdict of a URL (`'ok'` or why it is not followed).
 * @param partition this worker's place among the processes of its type (none: it owns all).
 */
export function workerReplayFilter(
  scope: (url: string) => string,
  partition?: ReplayPartition,
): ReplayFilter {
  return new ReplayFilter({
    scope,
    owner: partition ? (url) => ownerOf(url, partition.count, partition.by) : undefined,
    self: partition?.index ?? 0,
  });
}

/** One warning for the lines of `file` (under `outDir`) that `filter` skipped, if any. */
export function reportSkippedLines(filter: ReplayFilter, file: string, outDir: string, log: Logger): void {
  const line = filter.describe(path.relative(outDir, file));
  if (line === null) return;
  log.warn({ file, rejected: Object.fromEntries(filter.rejected) }, 'invalid state lines skipped');
  process.stderr.write(`collector: ${line}\n`);
}
