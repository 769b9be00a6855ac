/**
 * A page thread started with the process, while the command's own modules load: a one-shot crawl
 * spends ~200 ms loading before its first request, then waited ~150 ms more after its first page
 * for a page thread to load its modules before any link was known. Started first, the thread
 * loads on the other core meanwhile (a 2-core machine has one free at start). The crawl's page
 * processor takes it when it starts its threads with the same entry file and heap limits; it is
 * ended when taken by nobody within {@link PRESTART_UNUSED_MS} (a crawl still waiting for its
 * first answer, or one whose options need other limits), so a waiting process holds no thread.
 */
import { type ResourceLimits, Worker } from 'node:worker_threads';

/** How long a prestarted page thread waits to be taken before it is ended, ms. */
export const PRESTART_UNUSED_MS = 1000;

interface Prestarted {
  worker: Worker;
  file: string;
  limits: ResourceLimits;
  exited: boolean;
  timer: NodeJS.Timeout;
}

let prestarted: Prestarted | null = null;

function sameLimits(a: ResourceLimits, b: ResourceLimits): boolean {
  return (
    a.maxYoungGenerationSizeMb === b.maxYoungGenerationSizeMb &&
    a.maxOldGenerationSizeMb === b.maxOldGenerationSizeMb &&
    a.codeRangeSizeMb === b.codeRangeSizeMb &&
    a.stackSizeMb === b.stackSizeMb
  );
}

function discard(p: Prestarted): void {
  clearTimeout(p.timer);
  if (prestarted === p) prestarted = null;
  if (!p.exited) void p.worker.terminate();
}

/**
 * Start a page thread now, to be taken by {@link takePrestartedPageThread}. It loads its modules
 * and waits for its setup message (`page-worker.ts`); it never keeps the process alive. Does
 * nothing when one is already waiting.
 * @returns the thread started (or already waiting): to watch, not to set up.
 * @param file the page thread's entry file (`PAGE_THREAD_FILES.pageWorker`).
 * @param limits its heap limits (`pageThreadLimits`), which a thread cannot change once started.
 * @param unusedMs end it when nobody took it within this long, ms.
 */
export function prestartPageThread(
  file: string,
  limits: ResourceLimits,
  unusedMs = PRESTART_UNUSED_MS,
): Worker {
  if (prestarted !== null) return prestarted.worker;
  const worker = new Worker(file, { resourceLimits: limits });
  worker.unref();
  const p: Prestarted = {
    worker,
    file,
    limits,
    exited: false,
    timer: setTimeout(() => discard(p), unusedMs),
  };
  p.timer.unref();
  worker.once('exit', () => {
    p.exited = true;
    discard(p);
  });
  // A thread that fails to load is discarded; the crawl's own start of one reports the error.
  worker.on('error', () => {});
  prestarted = p;
  return worker;
}

/**
 * The prestarted page thread, when there is one still running for this entry file and these
 * limits (it is then the caller's: set it up and listen to it at once); else null, and a
 * prestarted thread that does not fit is ended.
 */
export function takePrestartedPageThread(file: string, limits: ResourceLimits): Worker | null {
  const p = prestarted;
  if (p === null) return null;
  prestarted = null;
  clearTimeout(p.timer);
  if (p.exited || p.file !== file || !sameLimits(p.limits, limits)) {
    discard(p);
    return null;
  }
  p.worker.removeAllListeners();
  return p.worker;
}
