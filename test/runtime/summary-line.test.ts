import { describe, expect, it } from 'vitest';
import type { CrawlEnd } from '../../src/runtime/crawl-end-report.js';
import { continuesText } from '../../src/runtime/crawl-job.js';
import { summaryLine } from '../../src/runtime/summary-line.js';

const end = (stopped: boolean): CrawlEnd => ({
  code: 0,
  failure: null,
  completed: false,
  stopped,
  totals: {
    items: 11,
    itemsThisRun: 11,
    errors: 0,
    queued: 1,
    skipped: {},
    bytes: 0,
    sourceWarnings: 0,
    sourceErrors: 0,
  },
});

describe('the summary says why URLs were left', () => {
  it('a page budget split over processes: each stops at its share, and that is said', () => {
    const text = continuesText({ maxPages: 20, processes: 6 }, end(false));
    expect(text).toBe(
      '--max-pages 20 reached (4 per process over 6 processes: each stops at its share); --resume with a larger --max-pages or none continues',
    );
    expect(summaryLine({ processes: 6, out: './d' }, end(false).totals, text)).toBe(
      `collector: 11 items this run (11 total), 0 errors, 1 queued (stopped: ${text}), 6 processes, out ./d\n`,
    );
    expect(continuesText({ maxPages: 3, processes: 1 }, end(false))).toBe(
      '--max-pages 3 reached; --resume with a larger --max-pages or none continues',
    );
  });

  it('a signal, or no budget: --resume continues', () => {
    expect(continuesText({ maxPages: 20, processes: 6 }, end(true))).toBe('--resume continues');
    expect(continuesText({ maxPages: undefined, processes: 2 }, end(false))).toBe('--resume continues');
  });
});
