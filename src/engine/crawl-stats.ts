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
  /** Body bytes received this session (after decompression). */
  bytes: number;
  /** Retries scheduled. */
  retries: number;
  /** Links not followed, by reason. */
  skipped: Record<SkipReason, number>;
  /** Items written this session (excludes resumed ones). */
  itemsThisRun: number;
  /** Warning lines the source logged (`ctx.log.warn`) this session. */
  sourceWarnings: number;
  /** Error lines the source logged (`ctx.log.error`), or its `seeds()` failures, this session. */
  sourceErrors: number;
}

/** All counters at zero. */
export function newCrawlStats(): CrawlStats {
  return {
    items: 0,
    errors: 0,
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
    sourceWarnings: 0,
    sourceErrors: 0,
  };
}
