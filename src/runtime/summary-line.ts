/**
 * The one line a crawl prints on stderr at its end (unless `--quiet`): items this run and in
 * total, errors, what is still queued, links skipped by reason, processes and the output dir.
 */
import type { CrawlOptions } from '../config/crawl-options.js';

/** The counts the summary reports. */
export interface CrawlTotals {
  /** Items written this run. */
  itemsThisRun: number;
  /** Items in the output, this run's and earlier ones. */
  items: number;
  errors: number;
  /** URLs still pending (queued, or abandoned in flight by a stop): `--resume` continues them. */
  queued: number;
  /** Links not followed, by reason. */
  skipped: Record<string, number>;
  /** Warning and error lines the source logged this run (see the logs). */
  sourceWarnings?: number;
  sourceErrors?: number;
}

/**
 * The summary line, newline included, e.g. `collector: 12 items this run (12 total), 1 errors,
 * 0 queued, links skipped: trap-query 3, out ./data`; with URLs pending, `(stopped: …)` says how
 * to continue (`continues`: `--resume continues` for a crawl).
 */
export function summaryLine(
  opts: Pick<CrawlOptions, 'processes' | 'out'>,
  t: CrawlTotals,
  continues = '--resume continues',
): string {
  const left = t.queued > 0 ? ` (stopped: ${continues})` : '';
  const procs = opts.processes > 1 ? `, ${opts.processes} processes` : '';
  return (
    `collector: ${t.itemsThisRun} items this run (${t.items} total), ${t.errors} errors, ${t.queued} queued${left}` +
    `${skippedText(t.skipped)}${sourceText(t)}${procs}, out ${opts.out}\n`
  );
}

/** `, links skipped: trap-length 1, trap-query 3` for the non-zero reasons, or nothing. */
function skippedText(skipped: Record<string, number>): string {
  const skips = Object.entries(skipped)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return skips ? `, links skipped: ${skips}` : '';
}

/** `, source logged 2 errors, 1 warnings (see logs/)` when it logged any, or nothing. */
function sourceText(t: CrawlTotals): string {
  const e = t.sourceErrors ?? 0;
  const w = t.sourceWarnings ?? 0;
  if (e === 0 && w === 0) return '';
  return `, source logged ${e} errors, ${w} warnings (see logs/)`;
}
