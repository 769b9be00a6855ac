/**
 * Which {@link PageProcessor} a crawler gets: a page thread when the options, the source and the
 * build allow it, else the inline one.
 */
import { existsSync } from 'node:fs';
import type { RunningSource } from '../sources/source-runner.js';
import { InlinePageProcessor } from './inline-page-processor.js';
import { PagePool } from './page-pool.js';
import type { PageProcessor, PageProcessorOptions, PageThreadSource } from './page-processor.js';
import { PAGE_THREAD_FILES } from './page-threads.js';
import type { SourceLogLine } from './page-work.js';
import { ThreadedPageProcessor } from './threaded-page-processor.js';

/**
 * The page processor for a crawler: a page thread (a pool of `opts.threads`) when `opts.thread`, the source is thread-safe
 * and loadable by reference (`threadSource`), and the compiled worker file exists (the built CLI;
 * tests running the TypeScript sources get the inline one), else inline.
 * @param writeLog where the lines a source logs in the page thread go.
 */
export function openPageProcessor(
  source: RunningSource,
  threadSource: PageThreadSource | null,
  opts: PageProcessorOptions,
  writeLog: (lines: SourceLogLine[]) => void,
): PageProcessor {
  const files = PAGE_THREAD_FILES;
  if (
    opts.thread &&
    threadSource !== null &&
    import.meta.url.endsWith('.js') &&
    existsSync(files.pageWorker)
  ) {
    const member = () =>
      new ThreadedPageProcessor(
        files,
        threadSource,
        opts.storeBodies ? opts.outDir : null,
        opts.maxBytes,
        writeLog,
        undefined,
        opts.versions,
      );
    const n = opts.threads ?? 1;
    return n > 1 ? new PagePool(Array.from({ length: n }, member)) : member();
  }
  return new InlinePageProcessor(source, opts);
}
