/**
 * A {@link FileSink} running in a worker thread: the crawler's thread only copies each body into
 * a message, and the disk's latency and syscalls stay off the fetch path.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { FileSink } from './file-sink.js';
import type { WriteReply, WriteRequest } from './file-writer-worker.js';

/** What the crawler needs of a body store. */
export interface BodyStore {
  /** Store `body` for `url`; resolves to the path relative to `<out>` (e.g. `files/host/a.html`). */
  write(url: string, body: Buffer): Promise<string>;
  /** Wait for pending writes and release resources. */
  close(): Promise<void>;
}

/** Body store whose writes happen in a worker thread. */
export class ThreadedFileSink implements BodyStore {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (f: string) => void; reject: (e: Error) => void }>();
  private closing: Promise<void> | null = null;
  private batch: WriteRequest[] = [];
  private transfer: ArrayBuffer[] = [];
  private readonly postBatch = (): void => {
    const batch = this.batch;
    const transfer = this.transfer;
    this.batch = [];
    this.transfer = [];
    if (batch.length > 0) this.worker.postMessage(batch, transfer);
  };

  constructor(workerFile: string, opts: { outDir: string; maxConcurrentWrites?: number }) {
    this.worker = new Worker(workerFile, {
      workerData: { outDir: opts.outDir, maxConcurrentWrites: opts.maxConcurrentWrites ?? 16 },
      // The thread only moves bytes (bodies are transferred, outside its heap): a small heap is enough.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 48 },
    });
    this.worker.unref();
    this.worker.on('message', (msgs: WriteReply[] | 'closed') => {
      if (msgs === 'closed') return;
      for (const msg of msgs) {
        const p = this.pending.get(msg.id);
        if (p === undefined) continue;
        this.pending.delete(msg.id);
        if ('file' in msg) p.resolve(msg.file);
        else p.reject(new Error(msg.error));
      }
    });
    this.worker.on('error', (e) => {
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    });
  }

  write(url: string, body: Buffer): Promise<string> {
    if (this.closing) return Promise.reject(new Error(`body store is closed; cannot write ${url}`));
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Batched: one message per event-loop turn, not one per body (postMessage costs ~50 µs).
      // Copy the bytes into an ArrayBuffer of their own and transfer it: cloning a Buffer would
      // serialize its whole backing store (often a shared pool or a larger zlib buffer).
      const own = new Uint8Array(body).buffer as ArrayBuffer;
      this.batch.push({ id, url, body: new Uint8Array(own) });
      this.transfer.push(own);
      if (this.batch.length === 1) setImmediate(this.postBatch);
    });
  }

  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = new Promise<void>((resolve) => {
      const onClosed = (m: unknown) => {
        if (m !== 'closed') return;
        this.worker.off('message', onClosed);
        void this.worker.terminate().then(() => resolve());
      };
      this.worker.on('message', onClosed);
      this.worker.once('exit', () => resolve());
      this.postBatch();
      this.worker.postMessage('close');
    });
    return this.closing;
  }
}

/**
 * The body store for a crawl: a worker thread when asked for and the compiled worker file is
 * available (the built CLI), else an in-process FileSink (async fs on libuv's thread pool).
 */
export function openBodyStore(outDir: string, thread = true): BodyStore {
  const workerFile = fileURLToPath(new URL('./file-writer-worker.js', import.meta.url));
  if (thread && import.meta.url.endsWith('.js') && existsSync(workerFile)) {
    return new ThreadedFileSink(workerFile, { outDir });
  }
  return new FileSink({ outDir });
}
