/**
 * What the `collector` command starts before its modules load (~200 ms of a process start), to run
 * on another core meanwhile: for `crawl`, the page thread a plain crawl with the default options
 * uses (`page-thread-prestart.ts`). Kept small: its imports load before it runs.
 */
import { CRAWL_DEFAULTS } from '../config/crawl-defaults.js';
import { prestartPageThread } from '../engine/page-thread-prestart.js';
import {
  PAGE_THREAD_FILES,
  pageThreadLimits,
  threadsSizeTheirYoungGeneration,
} from '../engine/page-threads.js';

/**
 * Start what the command given by `argv` (`process.argv`) will most likely need: for `crawl`
 * (not its help), a page thread with the heap limits of the built-in crawl source's pages at the
 * default `--max-bytes`. A crawl whose options need other limits, or that runs its pages in
 * other processes, does not take it, and it ends unused (`PRESTART_UNUSED_MS`).
 */
export function prestart(argv: readonly string[]): void {
  if (argv[2] !== 'crawl' || argv.includes('--help') || argv.includes('-h')) return;
  threadsSizeTheirYoungGeneration();
  const plainCrawl = {
    ref: { kind: 'builtin' as const, name: 'crawl' },
    options: {},
    seeds: [],
    worker: { id: 'crawl-0', index: 0, count: 1 },
  };
  prestartPageThread(PAGE_THREAD_FILES.pageWorker, pageThreadLimits(plainCrawl, CRAWL_DEFAULTS.maxBytes));
}
