/**
 * Where responses are decoded, hashed, parsed and stored: a page thread (a worker_threads
 * Worker) when the machine has a core for it, else inline on the crawler's thread. Either way
 * the crawler sees the same {@link PageProcessor}: `work` a response, then `store` or `drop` the
 * decoded body it keeps.
 *
 * With the thread, the crawler's event loop only moves bytes and runs the frontier: a page's
 * decompression, SHA-256, charset decoding and HTML tokenizing (about 40% of its CPU on the
 * PostgreSQL docs) run on the other core; files are written by a third, body-writer thread, so
 * file creation (50–1,100 µs on a slow disk) stalls neither. Messages are batched per event-loop
 * turn in both directions.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import type { StoreReply } from './body-writer.js';
import { FileSink } from '../sinks/file-sink.js';
import type { Source } from '../sources/source.js';
import { type WorkedPage, type PageJob, workPage } from './page-work.js';

/** The compiled thread entry points, next to this module in dist/. */
export const PAGE_THREAD_FILES: PageThreadFiles = {
  pageWorker: fileURLToPath(new URL('./page-worker.js', import.meta.url)),
  bodyWriter: fileURLToPath(new URL('./body-writer.js', import.meta.url)),
};

/** Handles responses for the crawler (see the module comment). */
export interface PageProcessor {
  /**
   * Decode, hash and (when `job.extract`) parse one response. The decoded body is kept under
   * `job.id` until {@link store} or {@link drop}. `job.body` may be detached afterwards.
   * @throws when the page thread died (the job's body is lost with it).
   */
  work(job: PageJob): Promise<WorkedPage>;
  /**
   * Store the body kept under `id` for `url` and release it.
   * @returns the path relative to `<out>`, e.g. `files/host/a.html`.
   * @throws when storing fails or there is no body store (`storeBodies` off).
   */
  store(id: number, url: string): Promise<string>;
  /** Release the body kept under `id` without storing it. */
  drop(id: number): void;
  /** Wait for pending stores, then release everything (the thread ends). */
  close(): Promise<void>;
}

/** Settings of {@link openPageProcessor}. */
export interface PageProcessorOptions {
  /** `<out>`; bodies go to `<out>/files`. */
  outDir: string;
  /** Whether bodies are stored at all (`--no-store` turns it off). */
  storeBodies: boolean;
  /** Use a page thread (when the source allows it and the compiled worker file exists). */
  thread: boolean;
  /** Largest decoded body, bytes (sizes the thread's heap). */
  maxBytes: number;
}

/** Same-thread {@link PageProcessor}: `work` runs synchronously, stores use async fs. */
export class InlinePageProcessor implements PageProcessor {
  private readonly kept = new Map<number, Buffer>();
  private readonly sink: FileSink | null;

  constructor(
    private readonly source: Source,
    opts: { outDir: string; storeBodies: boolean },
  ) {
    this.sink = opts.storeBodies ? new FileSink({ outDir: opts.outDir }) : null;
  }

  work(job: PageJob): Promise<WorkedPage> {
    const { worked, body } = workPage(job, this.source);
    if (body !== null) this.kept.set(job.id, body);
    return Promise.resolve(worked);
  }

  store(id: number, url: string): Promise<string> {
    const body = this.kept.get(id);
    this.kept.delete(id);
    if (body === undefined) return Promise.reject(new Error(`no body kept for ${url}`));
    if (this.sink === null) return Promise.reject(new Error('bodies are not stored (--no-store)'));
    return this.sink.write(url, body);
  }

  drop(id: number): void {
    this.kept.delete(id);
  }

  async close(): Promise<void> {
    this.kept.clear();
    await this.sink?.close();
  }
}

/** A message to the page thread. */
export type PageRequest =
  | { op: 'work'; job: PageJob }
  | { op: 'store'; id: number; url: string }
  | { op: 'drop'; id: number };

/** A message from the page thread. */
export type PageReply =
  | { op: 'worked'; worked: WorkedPage }
  | { op: 'stored'; id: number; file: string }
  | { op: 'stored'; id: number; error: string };

/** What the page thread is started with (`workerData`). */
export interface PageThreadData {
  /** Registered source name (created again in the thread). */
  source: string;
  /** The body-writer thread's request port; absent when bodies are not stored. */
  writer?: MessagePort;
  /** One Int32: the id of the job the thread is working on, 0 between jobs. */
  progress: SharedArrayBuffer;
}

/**
 * Rejection of the pages (and stores) a dead page thread held. `innocent` is true for all but
 * the page it was working on when it died: those are fetched again without counting a try.
 */
export class PageThreadLost extends Error {
  constructor(
    message: string,
    readonly innocent: boolean,
  ) {
    super(message);
  }
}

type Waiter<T> = { resolve: (v: T) => void; reject: (e: Error) => void };

/** The compiled thread entry points. */
export interface PageThreadFiles {
  pageWorker: string;
  bodyWriter: string;
}

/** What {@link PageThreads} tells its owner. */
interface PageThreadEvents {
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

/** One page thread and its body-writer thread, from start to end. */
class PageThreads {
  private readonly page: Worker;
  private readonly progress = new Int32Array(new SharedArrayBuffer(4));
  private readonly writer: Worker | null = null;
  private readonly exited = new WeakSet<Worker>();
  private ending: Promise<void> | null = null;

  constructor(
    files: PageThreadFiles,
    source: string,
    outDir: string | null,
    maxBytes: number,
    on: PageThreadEvents,
  ) {
    const data: PageThreadData = { source, progress: this.progress.buffer as SharedArrayBuffer };
    const transferList: MessagePort[] = [];
    if (outDir !== null) {
      const { port1, port2 } = new MessageChannel();
      const writer = new Worker(files.bodyWriter, {
        workerData: { outDir, port: port2 },
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
    // A cap, not a reservation: a page is decoded to a string (up to 2 bytes per byte) and each
    // link becomes an absolute URL string, so a 4 MB page of 250,000 short relative links needs
    // ~100 MB while it is parsed. Past the cap the thread dies and its pages are fetched again.
    const heapMb = Math.max(256, Math.ceil((maxBytes * 24) / (1024 * 1024)));
    const page = new Worker(files.pageWorker, {
      workerData: data,
      transferList,
      resourceLimits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: heapMb },
    });
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

/**
 * {@link PageProcessor} running in worker threads: the page thread decodes, hashes and parses;
 * the body-writer thread (`src/runtime/body-writer.ts`, when bodies are stored) writes files with
 * blocking syscalls and answers stores directly.
 *
 * The threads start with the first page (a worker that is only waiting costs no thread memory)
 * and end after `idleMs` with nothing to do (between the rounds of a `run`). A thread that dies
 * fails the pages it held; the next page starts new threads.
 */
export class ThreadedPageProcessor implements PageProcessor {
  private threads: PageThreads | null = null;
  /** Whether the current page thread said it is ready (its modules are loaded). */
  private threadReady = false;
  private readonly readyWaiters: Array<() => void> = [];
  private readonly working = new Map<number, Waiter<WorkedPage>>();
  private readonly storing = new Map<number, Waiter<string>>();
  /** Ids whose body went with a dead page thread (their store rejects with PageThreadLost). */
  private readonly lost = new Set<number>();
  /** Ids whose decoded body the page thread keeps (until store or drop). */
  private readonly held = new Set<number>();
  private batch: PageRequest[] = [];
  private transfer: ArrayBuffer[] = [];
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly ending = new Set<Promise<void>>();
  private closing: Promise<void> | null = null;
  private readonly postBatch = (): void => {
    const batch = this.batch;
    const transfer = this.transfer;
    this.batch = [];
    this.transfer = [];
    if (batch.length > 0) this.threads?.post(batch, transfer);
    this.idleCheck();
  };
  private readonly events: PageThreadEvents = {
    ready: () => {
      this.threadReady = true;
      for (const w of this.readyWaiters.splice(0)) w();
    },
    reply: (m) => {
      if (m.op === 'worked') {
        const w = this.working.get(m.worked.id);
        // A reply for a page already failed (its thread was replaced) is stale: ignore it.
        if (w === undefined) return;
        this.working.delete(m.worked.id);
        if (m.worked.error === undefined) this.held.add(m.worked.id);
        w.resolve(m.worked);
      } else this.events.stored(m);
      this.idleCheck();
    },
    stored: (m) => {
      const w = this.storing.get(m.id);
      this.storing.delete(m.id);
      if ('file' in m) w?.resolve(m.file);
      else w?.reject(new Error(m.error));
      this.idleCheck();
    },
    pageLost: (e, working) => {
      // Whatever it held is gone: fail it, and let the next page start new threads. Only the
      // page it was working on can have killed it.
      for (const [id, w] of this.working) w.reject(new PageThreadLost(e.message, id !== working));
      for (const w of this.storing.values()) w.reject(new PageThreadLost(e.message, true));
      this.working.clear();
      this.storing.clear();
      for (const id of this.held) this.lost.add(id);
      this.held.clear();
      this.retire();
    },
    // Without its writer the page thread's stores would go nowhere: both are replaced, and
    // everything they held is fetched again.
    writerLost: (e, working) => this.events.pageLost(e, working),
  };

  /**
   * @param files the compiled `page-worker.js` and `body-writer.js` (the latter used when
   *   `outDir` is set).
   * @param source registered name of the source run in the page thread.
   * @param outDir `<out>` when bodies are stored, else null.
   * @param maxBytes largest decoded body, bytes: the page thread's heap cap is sized from it.
   * @param idleMs end the threads after this long with no page, store or kept body (ms).
   */
  constructor(
    private readonly files: PageThreadFiles,
    private readonly source: string,
    private readonly outDir: string | null,
    private readonly maxBytes: number,
    private readonly idleMs = 10_000,
  ) {}

  /** Whether threads are running (tests; the memory of an idle worker). */
  get running(): boolean {
    return this.threads !== null;
  }

  /** The current threads, started (or restarted) on demand; cancels a pending idle end. */
  private ensureThreads(): PageThreads {
    if (this.idleTimer !== null) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    if (this.threads === null) {
      this.threadReady = false;
      this.threads = new PageThreads(this.files, this.source, this.outDir, this.maxBytes, this.events);
    }
    this.threads.keepAlive(true);
    return this.threads;
  }

  /** Start the threads now (they otherwise start with the first page); resolves once ready. */
  whenReady(): Promise<void> {
    this.ensureThreads();
    this.idleCheck();
    if (this.threadReady) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  private send(req: PageRequest, transfer?: ArrayBuffer): void {
    this.ensureThreads();
    this.batch.push(req);
    if (transfer) this.transfer.push(transfer);
    if (this.batch.length === 1) setImmediate(this.postBatch);
  }

  /** Whether the threads owe an answer or keep a body. */
  private get owing(): boolean {
    return this.working.size > 0 || this.storing.size > 0 || this.held.size > 0;
  }

  /** Nothing in flight and nothing kept: end the threads after `idleMs` unless work comes. */
  private idleCheck(): void {
    if (this.owing || this.batch.length > 0) return;
    if (this.idleTimer !== null || this.threads === null || this.closing) return;
    this.threads.keepAlive(false);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (!this.owing) this.retire();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  /** End the current threads (gracefully if they are alive); the next page starts new ones. */
  private retire(): void {
    const t = this.threads;
    if (t === null) return;
    this.threads = null;
    this.threadReady = false;
    this.batch = [];
    this.transfer = [];
    const p = t.end();
    this.ending.add(p);
    void p.then(() => this.ending.delete(p));
  }

  work(job: PageJob): Promise<WorkedPage> {
    if (this.closing) return Promise.reject(new Error(`page processor is closed; cannot work on ${job.url}`));
    return new Promise<WorkedPage>((resolve, reject) => {
      this.working.set(job.id, { resolve, reject });
      // Copied into an ArrayBuffer of its own, then transferred: undici's chunks can be views of a
      // shared pool, which must be neither detached nor cloned whole.
      const own = new Uint8Array(job.body);
      this.send({ op: 'work', job: { ...job, body: own } }, own.buffer as ArrayBuffer);
    });
  }

  store(id: number, url: string): Promise<string> {
    if (this.closing) return Promise.reject(new Error(`page processor is closed; cannot store ${url}`));
    if (this.lost.delete(id)) return Promise.reject(new PageThreadLost('page thread exited', true));
    if (!this.held.delete(id)) return Promise.reject(new Error(`no body kept for ${url}`));
    return new Promise<string>((resolve, reject) => {
      this.storing.set(id, { resolve, reject });
      this.send({ op: 'store', id, url });
    });
  }

  drop(id: number): void {
    this.lost.delete(id);
    if (this.held.delete(id)) this.send({ op: 'drop', id });
  }

  /** Let pending stores finish, then end the threads. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.postBatch();
    this.retire();
    this.closing = Promise.all(this.ending).then(() => {});
    return this.closing;
  }
}

/**
 * The page processor for a crawler: a page thread when `opts.thread`, the source allows it
 * (`source.offThread`) and the compiled worker file exists (the built CLI; tests running the
 * TypeScript sources get the inline one), else inline.
 */
export function openPageProcessor(source: Source, opts: PageProcessorOptions): PageProcessor {
  const files = PAGE_THREAD_FILES;
  if (
    opts.thread &&
    source.offThread === true &&
    import.meta.url.endsWith('.js') &&
    existsSync(files.pageWorker)
  ) {
    return new ThreadedPageProcessor(
      files,
      source.name,
      opts.storeBodies ? opts.outDir : null,
      opts.maxBytes,
    );
  }
  return new InlinePageProcessor(source, opts);
}
