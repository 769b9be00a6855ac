/**
 * A worker's counters: items, errors, bytes, retries and links skipped by reason. Reported to the
 * supervisor (status.json), on the progress line and in the summary line.
 */
import type { ScopeVerdict } from '../url/scope.js';

/** Why a link was not followed: a scope or trap verdict, or deeper than `--max-depth`. */
export type SkipReason = Exclude<ScopeVerdict, 'ok'> | 'depth';

/** Counters of one worker, reported in status and the progress line. */
export interface CrawlStats {
  /** Items written (URLs attempted to the end), including those from before a resume. */
  items: number;
  /** Items that count as errors (see `countsAsError`). */
  errors: number;
  /** This session's errors by `error.kind` (`store` for a body that could not be written). */
  errorsByKind: Record<string, number>;
  /** Body bytes received this session (after decompression). */
  bytes: number;
  /** Retries scheduled. */
  retries: number;
  /** Links not followed, by reason. */
  skipped: Record<SkipReason, number>;
  /** Items written this session (excludes resumed ones). */
  itemsThisRun: number;
  /** Items without an error (a page collected), including those from before a resume. */
  collected: number;
  /** The first seeds that failed this session (at most {@link FAILED_SEEDS_KEPT}), for the summary. */
  failedSeeds: FailedSeed[];
  /** Warning lines the source logged (`ctx.log.warn`) this session. */
  sourceWarnings: number;
  /** Error lines the source logged (`ctx.log.error`), or its `seeds()` failures, this session. */
  sourceErrors: number;
}

/** A seed whose item is an error. */
export interface FailedSeed {
  url: string;
  kind: string;
  message: string;
}

/** Failed seeds kept for the summary line. */
export const FAILED_SEEDS_KEPT = 3;

/** Count an item written now: collected or, for a seed, failed. (Resume counts `collected` alone.) */
export function countCollected(
  stats: CrawlStats,
  item: { url: string; depth: number; error?: { kind: string; message: string } },
): void {
  if (!item.error) stats.collected++;
  else if (item.depth === 0 && stats.failedSeeds.length < FAILED_SEEDS_KEPT) {
    stats.failedSeeds.push({ url: item.url, kind: item.error.kind, message: item.error.message });
  }
}

/** All counters at zero. */
export function newCrawlStats(): CrawlStats {
  return {
    items: 0,
    errors: 0,
    errorsByKind: {},
    bytes: 0,
    retries: 0,
    skipped: {
      'out-of-scope': 0,
      excluded: 0,
      'trap-length': 0,
      'trap-repeat': 0,
      'trap-query': 0,
      'trap-shape': 0,
      depth: 0,
    },
    itemsThisRun: 0,
    collected: 0,
    failedSeeds: [],
    sourceWarnings: 0,
    sourceErrors: 0,
  };
}
