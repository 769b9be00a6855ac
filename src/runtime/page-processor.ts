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
import { type PageDone, type PageJob, workPage } from './page-work.js';

/** The compiled thread entry points, next to this module in dist/. */
export const PAGE_THREAD_FILES = {
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
  work(job: PageJob): Promise<PageDone>;
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

  work(job: PageJob): Promise<PageDone> {
    const { done, body } = workPage(job, this.source);
    if (body !== null) this.kept.set(job.id, body);
    return Promise.resolve(done);
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
  | { op: 'done'; done: PageDone }
  | { op: 'stored'; id: number; file: string }
  | { op: 'stored'; id: number; error: string };

/** What the page thread is started with (`workerData`). */
export interface PageThreadData {
  /** Registered source name (created again in the thread). */
  source: string;
  /** The body-writer thread's request port; absent when bodies are not stored. */
  writer?: MessagePort;
}

type Waiter<T> = { resolve: (v: T) => void; reject: (e: Error) => void };

/**
 * {@link PageProcessor} running in worker threads: the page thread decodes, hashes and parses;
 * the body-writer thread (`src/runtime/body-writer.ts`, when bodies are stored) writes files with
 * blocking syscalls and answers stores directly.
 */
export class ThreadedPageProcessor implements PageProcessor {
  private readonly worker: Worker;
  private readonly writer: Worker | null = null;
  private readonly working = new Map<number, Waiter<PageDone>>();
  private readonly storing = new Map<number, Waiter<string>>();
  private batch: PageRequest[] = [];
  private transfer: ArrayBuffer[] = [];
  private dead: Error | null = null;
  private readonly exited = new WeakSet<Worker>();
  private closing: Promise<void> | null = null;
  private readonly postBatch = (): void => {
    const batch = this.batch;
    const transfer = this.transfer;
    this.batch = [];
    this.transfer = [];
    if (batch.length > 0 && this.dead === null) this.worker.postMessage(batch, transfer);
  };

  /**
   * @param files the compiled `page-worker.js`, and `body-writer.js` (used when `outDir` is set).
   * @param source registered name of the source run in the page thread.
   * @param outDir `<out>` when bodies are stored, else null.
   * @param maxBytes largest decoded body, bytes: the page thread's heap cap is sized from it.
   */
  constructor(
    files: { pageWorker: string; bodyWriter: string },
    source: string,
    outDir: string | null,
    maxBytes: number,
  ) {
    const data: PageThreadData = { source };
    const transferList: MessagePort[] = [];
    if (outDir !== null) {
      const { port1, port2 } = new MessageChannel();
      this.writer = new Worker(files.bodyWriter, {
        workerData: { outDir, port: port2 },
        transferList: [port2],
        // Bodies are transferred, outside its heap: a small heap is enough.
        resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 },
      });
      this.writer.unref();
      this.writer.on('message', (msgs: StoreReply[] | 'closed') => {
        if (msgs !== 'closed') for (const m of msgs) this.stored(m);
      });
      data.writer = port1;
      transferList.push(port1);
    }
    // A page is decoded to a string (up to 2 bytes per byte) and tokenized: a few times maxBytes.
    const heapMb = Math.max(64, Math.ceil((maxBytes * 6) / (1024 * 1024)));
    this.worker = new Worker(files.pageWorker, {
      workerData: data,
      transferList,
      resourceLimits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: heapMb },
    });
    this.worker.unref();
    this.worker.on('message', (msgs: PageReply[] | 'closed') => {
      if (msgs === 'closed') return;
      for (const m of msgs) {
        if (m.op === 'done') {
          const w = this.working.get(m.done.id);
          this.working.delete(m.done.id);
          w?.resolve(m.done);
        } else this.stored(m);
      }
    });
    const fail = (e: Error): void => {
      if (this.dead === null) this.dead = e;
      for (const w of this.working.values()) w.reject(this.dead);
      for (const w of this.storing.values()) w.reject(this.dead);
      this.working.clear();
      this.storing.clear();
    };
    // (The writer also ends by itself once the page thread is gone: its request port closes.)
    for (const w of [this.worker, this.writer]) w?.once('exit', () => this.exited.add(w));
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`page thread exited with code ${code}`)));
    this.writer?.on('error', (e) => this.failStores(e));
    this.writer?.on('exit', (code) =>
      this.failStores(new Error(`body-writer thread exited with code ${code}`)),
    );
  }

  private stored(m: StoreReply): void {
    const w = this.storing.get(m.id);
    this.storing.delete(m.id);
    if ('file' in m) w?.resolve(m.file);
    else w?.reject(new Error(m.error));
  }

  private failStores(e: Error): void {
    for (const w of this.storing.values()) w.reject(e);
    this.storing.clear();
  }

  private send(req: PageRequest, transfer?: ArrayBuffer): void {
    this.batch.push(req);
    if (transfer) this.transfer.push(transfer);
    if (this.batch.length === 1) setImmediate(this.postBatch);
  }

  work(job: PageJob): Promise<PageDone> {
    if (this.dead) return Promise.reject(this.dead);
    return new Promise<PageDone>((resolve, reject) => {
      this.working.set(job.id, { resolve, reject });
      // Copied into an ArrayBuffer of its own, then transferred: undici's chunks can be views of a
      // shared pool, which must be neither detached nor cloned whole.
      const own = new Uint8Array(job.body);
      this.send({ op: 'work', job: { ...job, body: own } }, own.buffer as ArrayBuffer);
    });
  }

  store(id: number, url: string): Promise<string> {
    if (this.dead) return Promise.reject(this.dead);
    if (this.closing) return Promise.reject(new Error(`page processor is closed; cannot store ${url}`));
    return new Promise<string>((resolve, reject) => {
      this.storing.set(id, { resolve, reject });
      this.send({ op: 'store', id, url });
    });
  }

  drop(id: number): void {
    if (this.dead === null) this.send({ op: 'drop', id });
  }

  /**
   * The page thread passes its last stores and `'close'` to the writer (one ordered channel),
   * so the writer's `'closed'` comes after every store; then both threads end.
   */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    const ended = (w: Worker): Promise<void> =>
      new Promise<void>((resolve) => {
        if (this.exited.has(w)) {
          resolve();
          return;
        }
        const onClosed = (m: unknown): void => {
          if (m !== 'closed') return;
          w.off('message', onClosed);
          void w.terminate().then(() => resolve());
        };
        w.on('message', onClosed);
        w.once('exit', () => resolve());
      });
    const page = this.dead ? Promise.resolve() : ended(this.worker);
    const writer = this.writer ? ended(this.writer) : Promise.resolve();
    if (this.dead) void this.writer?.terminate();
    else {
      this.postBatch();
      this.worker.postMessage('close');
    }
    this.closing = Promise.all([page, writer]).then(() => {});
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
