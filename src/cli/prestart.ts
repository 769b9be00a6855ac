/**
 * What the `collector` command starts before its modules load (~200 ms of a process start), to run
 * on another core meanwhile: for `crawl`, the page thread a plain crawl with the default options
 * uses (`page-thread-prestart.ts`). Kept small: its imports load before it runs.
 */
import { availableParallelism } from 'node:os';
import { CRAWL_DEFAULTS, defaultProcesses, pageThreadByDefault } from '../config/crawl-defaults.js';
import { prestartPageThread } from '../engine/page-thread-prestart.js';
import {
  PAGE_THREAD_FILES,
  pageThreadLimits,
  threadsSizeTheirYoungGeneration,
} from '../engine/page-threads.js';

/**
 * Whether the command given by `argv` (`process.argv`) is a crawl that will most likely work its
 * pages in a page thread of this process: `crawl` (not its help) in one process (`--processes 1`,
 * or the default on a machine of fewer than 4 CPUs) on a machine of 2 CPUs or more (with one, pages
 * are worked on the fetch loop). A config or flag that says otherwise later (`--no-page-thread`,
 * `--markdown all`) only makes the prestarted thread unused: it ends by itself.
 * @param cpus the machine's CPUs (`os.availableParallelism()`).
 */
export function prestartsPageThread(argv: readonly string[], cpus: number = availableParallelism()): boolean {
  if (argv[2] !== 'crawl' || argv.includes('--help') || argv.includes('-h')) return false;
  return processesOf(argv, cpus) === 1 && pageThreadByDefault(1, cpus);
}

/** The `--processes` of a crawl's argv (`--processes N` or `--processes=N`), else the default. */
function processesOf(argv: readonly string[], cpus: number): number {
  let n: string | undefined;
  for (let i = 3; i < argv.length; i++) {
    if (argv[i] === '--processes') n = argv[i + 1];
    else if (argv[i].startsWith('--processes=')) n = argv[i].slice('--processes='.length);
  }
  return n === undefined ? defaultProcesses(cpus) : Number(n);
}

/**
 * Start what the command given by `argv` (`process.argv`) will most likely need: for a crawl
 * that {@link prestartsPageThread}, a page thread with the heap limits of the built-in crawl
 * source's pages at the default `--max-bytes`. A crawl whose options need other limits does not
 * take it, and it ends unused (`PRESTART_UNUSED_MS`).
 */
export function prestart(argv: readonly string[]): void {
  if (!prestartsPageThread(argv)) return;
  threadsSizeTheirYoungGeneration();
  const plainCrawl = {
    ref: { kind: 'builtin' as const, name: 'crawl' },
    options: {},
    seeds: [],
    worker: { id: 'crawl-0', index: 0, count: 1 },
  };
  prestartPageThread(PAGE_THREAD_FILES.pageWorker, pageThreadLimits(plainCrawl, CRAWL_DEFAULTS.maxBytes));
}
