/**
 * The {@link PageProcessor} in worker threads (see `page-processor.ts` for why): pages go to the
 * page thread in batches, answers come back per batch; a thread that dies fails the pages it held
 * ({@link PageThreadLost}) and the next page starts new threads.
 */
import type { VersionOptions } from '../sinks/file-sink.js';
import {
  type PageProcessor,
  type PageRequest,
  PageThreadLost,
  type PageThreadSource,
} from './page-processor.js';
import { type PageThreadEvents, type PageThreadFiles, PageThreads } from './page-threads.js';
import { markdownId, type PageJob, type SourceLogLine, type WorkedPage } from './page-work.js';

type Waiter<T> = { resolve: (v: T) => void; reject: (e: Error) => void };

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
        if (m.worked.logs !== undefined) {
          this.onSourceLog(m.worked.logs);
          delete m.worked.logs;
        }
        if (m.worked.error === undefined) this.held.add(m.worked.id);
        if (m.worked.markdown) this.held.add(markdownId(m.worked.id));
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
   * @param source the source the page thread loads, with its context.
   * @param outDir `<out>` when bodies are stored, else null.
   * @param maxBytes largest decoded body, bytes: the page thread's heap cap is sized from it.
   * @param onSourceLog receives the lines the source logged in the thread.
   * @param idleMs end the threads after this long with no page, store or kept body (ms).
   * @param versions store pages as versions (`page-versions.ts`); absent: one body per page.
   */
  constructor(
    private readonly files: PageThreadFiles,
    private readonly source: PageThreadSource,
    private readonly outDir: string | null,
    private readonly maxBytes: number,
    private readonly onSourceLog: (lines: SourceLogLine[]) => void = () => {},
    private readonly idleMs = 10_000,
    private readonly versions?: VersionOptions,
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
      this.threads = new PageThreads(
        this.files,
        this.source,
        this.outDir,
        this.maxBytes,
        this.events,
        this.versions,
      );
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

  store(id: number, url: string, extension?: string): Promise<string> {
    if (this.closing) return Promise.reject(new Error(`page processor is closed; cannot store ${url}`));
    if (this.lost.delete(id)) return Promise.reject(new PageThreadLost('page thread exited', true));
    if (!this.held.delete(id)) return Promise.reject(new Error(`no body kept for ${url}`));
    return new Promise<string>((resolve, reject) => {
      this.storing.set(id, { resolve, reject });
      this.send(extension === undefined ? { op: 'store', id, url } : { op: 'store', id, url, extension });
    });
  }

  drop(id: number): void {
    this.lost.delete(id);
    if (this.held.delete(id)) this.send({ op: 'drop', id });
    const md = markdownId(id);
    if (this.held.delete(md)) this.send({ op: 'drop', id: md });
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
