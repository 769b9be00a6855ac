/**
 * One page thread and its body-writer thread, from start to end: started with their heap caps,
 * watched for an exit nobody asked for (which loses the pages they held), and ended gracefully so
 * every store sent before the end is answered.
 */
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { MessageChannel, type MessagePort, type ResourceLimits, Worker } from 'node:worker_threads';
import type { VersionOptions } from '../sinks/file-sink.js';
import type { BodyWriterData, StoreReply } from './body-writer.js';
import type { PageReply, PageRequest, PageThreadData, PageThreadSource } from './page-processor.js';
import { takePrestartedPageThread } from './page-thread-prestart.js';

/** The compiled thread entry points, next to this module in dist/. */
export const PAGE_THREAD_FILES: PageThreadFiles = {
  pageWorker: fileURLToPath(new URL('./page-worker.js', import.meta.url)),
  bodyWriter: fileURLToPath(new URL('./body-writer.js', import.meta.url)),
};

/** The compiled thread entry points. */
export interface PageThreadFiles {
  pageWorker: string;
  bodyWriter: string;
}

/** What {@link PageThreads} tells its owner. */
export interface PageThreadEvents {
  reply(m: PageReply): void;
  /** The page thread has loaded its modules and takes pages. */
  ready(): void;
  stored(m: StoreReply): void;
  /**
   * The page thread ended without being asked to.
   * @param working id of the job it was working on (0: none).
   */
  pageLost(e: Error, working: number): void;
  /** The writer ended without being asked to. */
  writerLost(e: Error, working: number): void;
}

/**
 * The page thread's young generation, MB. A page reader that only parses (links, title, metadata)
 * allocates little that lives beyond its page: 4 MB (what the `collector` command's
 * `--max-semi-space-size=2` gave every thread until {@link threadsSizeTheirYoungGeneration}; 8 MB
 * had lowered the crawl's peak RSS by 10–17 MB from 16 at the same CPU). Main-content extraction
 * (Readability and Markdown: `markdown: all`, or article patterns) keeps a page's DOM alive
 * longer, and small scavenges promote it: 16 MB there, and for a source of the user's, whose
 * work is unknown (bench/RESULTS.md, 2026-12-03 17:37 and 21:40: a `--markdown all` crawl of the
 * PostgreSQL docs took ~25% more CPU with 4 MB).
 */
export function youngGenerationMb(source: PageThreadSource): number {
  const o = source.options;
  const patterns = o.articlePatterns;
  const extracts =
    o.markdown === 'all' || (o.markdown !== 'none' && Array.isArray(patterns) && patterns.length > 0);
  const builtinReader = source.ref.kind === 'builtin' && source.ref.name === 'crawl';
  return builtinReader && !extracts ? 4 : 16;
}

/**
 * The page thread's heap limits: the young generation of {@link youngGenerationMb}, and an old
 * generation sized from the largest body (a cap, not a reservation: a page is decoded to a string,
 * up to 2 bytes per byte, and each link becomes an absolute URL string, so a 4 MB page of 250,000
 * short relative links needs ~100 MB while it is parsed; past the cap the thread dies and its
 * pages are fetched again).
 * @param maxBytes largest decoded body, bytes.
 */
export function pageThreadLimits(source: PageThreadSource, maxBytes: number): ResourceLimits {
  const heapMb = Math.max(256, Math.ceil((maxBytes * 24) / (1024 * 1024)));
  return { maxYoungGenerationSizeMb: youngGenerationMb(source), maxOldGenerationSizeMb: heapMb };
}

/**
 * Lets each thread started from now on have the young generation its `resourceLimits` ask for.
 * V8 reads `--max-semi-space-size` before an isolate's resource limits, so with the flag the
 * `collector` command gives its processes (`supervision/v8-flags.ts`, for the fetch loop) every
 * thread's new space would be the flag's 2 × 2 MB whatever it asks. The flag set to 0 (V8's
 * "unset") once the process's own heap is made leaves the main thread's young generation as it
 * is (V8 sizes a heap when it makes it) and lets the threads' limits decide. Every thread the
 * collector starts sets its limits (the page thread, the body writer).
 */
export function threadsSizeTheirYoungGeneration(): void {
  setFlagsFromString('--max-semi-space-size=0');
}

/** The page thread's first message: what it would otherwise get as `workerData`. */
export interface PageSetup {
  op: 'setup';
  data: PageThreadData;
}

/** One page thread and its body-writer thread, from start to end. */
export class PageThreads {
  private readonly page: Worker;
  private readonly progress = new Int32Array(new SharedArrayBuffer(4));
  private readonly writer: Worker | null = null;
  private readonly exited = new WeakSet<Worker>();
  private ending: Promise<void> | null = null;

  constructor(
    files: PageThreadFiles,
    source: PageThreadSource,
    outDir: string | null,
    maxBytes: number,
    on: PageThreadEvents,
    versions?: VersionOptions,
  ) {
    threadsSizeTheirYoungGeneration();
    const data: PageThreadData = { source, progress: this.progress.buffer as SharedArrayBuffer };
    const transferList: MessagePort[] = [];
    if (outDir !== null) {
      const { port1, port2 } = new MessageChannel();
      const writer = new Worker(files.bodyWriter, {
        workerData: { outDir, versions, port: port2 } satisfies BodyWriterData,
        transferList: [port2],
        // Bodies are transferred, outside its heap: a small heap is enough.
        resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 },
      });
      writer.on('message', (msgs: StoreReply[] | 'closed') => {
        if (msgs !== 'closed') for (const m of msgs) on.stored(m);
      });
      // `working` as for the page thread: when the page thread dies, its port closes and the
      // writer may report its own exit first; the slot still names the page that killed it.
      writer.on('error', (e) => {
        if (this.ending === null) on.writerLost(e, Atomics.load(this.progress, 0));
      });
      writer.on('exit', (code) => {
        this.exited.add(writer);
        // It also ends by itself when the page thread is gone (its request port closes).
        if (this.ending === null)
          on.writerLost(
            new Error(`body-writer thread exited with code ${code}`),
            Atomics.load(this.progress, 0),
          );
      });
      this.writer = writer;
      data.writer = port1;
      transferList.push(port1);
    }
    // The prestarted thread when it fits (`page-thread-prestart.ts`), else a new one; either
    // waits for its setup message before it loads the source.
    const limits = pageThreadLimits(source, maxBytes);
    const page =
      takePrestartedPageThread(files.pageWorker, limits) ??
      new Worker(files.pageWorker, { resourceLimits: limits });
    page.postMessage({ op: 'setup', data } satisfies PageSetup, transferList);
    page.on('message', (msgs: PageReply[] | 'closed' | 'ready') => {
      if (msgs === 'ready') on.ready();
      else if (msgs !== 'closed') for (const m of msgs) on.reply(m);
    });
    page.on('error', (e) => {
      if (this.ending === null) on.pageLost(e, Atomics.load(this.progress, 0));
    });
    page.on('exit', (code) => {
      this.exited.add(page);
      if (this.ending === null)
        on.pageLost(new Error(`page thread exited with code ${code}`), Atomics.load(this.progress, 0));
    });
    this.page = page;
  }

  /**
   * Whether the threads keep the process alive: yes while they owe answers (the crawler may be
   * waiting for nothing else), no when idle (the crawler decides when it is done).
   */
  keepAlive(yes: boolean): void {
    for (const w of [this.page, this.writer]) {
      if (yes) w?.ref();
      else w?.unref();
    }
  }

  post(batch: PageRequest[], transfer: ArrayBuffer[]): void {
    if (this.ending === null && !this.exited.has(this.page)) this.page.postMessage(batch, transfer);
  }

  /**
   * End both threads. Gracefully: the page thread passes its last stores and `'close'` to the
   * writer (one ordered channel), so the writer's `'closed'` comes after every store.
   */
  end(): Promise<void> {
    if (this.ending) return this.ending;
    // Ending is awaited: the threads must keep the process alive until they are gone.
    this.keepAlive(true);
    const ended = (w: Worker): Promise<void> =>
      new Promise<void>((resolve) => {
        if (this.exited.has(w)) {
          resolve();
          return;
        }
        w.on('message', (m: unknown) => {
          if (m === 'closed') void w.terminate().then(() => resolve());
        });
        w.once('exit', () => resolve());
      });
    const all = Promise.all([ended(this.page), this.writer ? ended(this.writer) : undefined]);
    if (this.exited.has(this.page)) void this.writer?.terminate();
    else this.page.postMessage('close');
    this.ending = all.then(() => {});
    return this.ending;
  }
}
