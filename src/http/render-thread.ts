/**
 * The crawler's side of the render thread (`render-worker.ts`): renders pages in a worker thread
 * that runs the {@link Renderer} and its browser at a lower CPU priority, so the fetch loop never
 * waits on puppeteer-core's loading or on the browser's DevTools messages. The same surface as
 * {@link Renderer} ({@link PageRenderer}); the thread is started on the first page to render, and
 * one that ends unasked fails its pages with {@link BrowserLost} (its browser killed by PID) and is
 * started again for the next page.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { killTree } from './chromium.js';
import type { RenderReply, RenderRequest, RenderWorkerData } from './render-worker.js';
import {
  BrowserLost,
  type PageRenderer,
  type RenderedPage,
  type RendererOptions,
  type RenderJob,
} from './renderer.js';

/** The compiled thread entry point, next to this module in dist/. */
export const RENDER_WORKER_FILE = fileURLToPath(new URL('./render-worker.js', import.meta.url));

/** Longest wait for the thread to close its browser, ms; past it the thread is ended and the browser killed by PID. */
const CLOSE_WAIT_MS = 5000;

interface Pending {
  resolve(page: RenderedPage): void;
  reject(e: Error): void;
}

/** A {@link PageRenderer} whose renderer runs in a worker thread (see the module comment). */
export class RenderThread implements PageRenderer {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closing: Promise<void> | null = null;
  /** Pages rendered by the threads that ended, and by the running one. */
  private renderedBefore = 0;
  private renderedNow = 0;
  private browserPid: number | null = null;
  /** Browsers lost (crashed, killed as hung, or with their thread). */
  lost = 0;

  /**
   * @param opts the renderer's settings; `onBrowser` is called on this thread.
   * @param file the thread's entry point (tests give the compiled one).
   */
  constructor(
    private readonly opts: RendererOptions,
    private readonly file: string = RENDER_WORKER_FILE,
  ) {}

  get pid(): number | null {
    return this.browserPid;
  }

  get rendered(): number {
    return this.renderedBefore + this.renderedNow;
  }

  /**
   * Render one page in the thread (see {@link Renderer.render}).
   * @throws BrowserLost when the browser, or its thread, was lost meanwhile; the launch error;
   *   Error `render aborted` at once when `job.signal` fires; Error `renderer closed` after close.
   */
  render(job: RenderJob): Promise<RenderedPage> {
    if (this.closing !== null) return Promise.reject(new Error('renderer closed'));
    if (job.signal?.aborted) return Promise.reject(new Error('render aborted'));
    const worker = this.thread();
    const id = this.nextId++;
    const { signal, ...rest } = job;
    return new Promise<RenderedPage>((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.has(id)) return;
        this.settled(id);
        worker.postMessage({ t: 'abort', id } satisfies RenderRequest);
        reject(new Error('render aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        resolve: (p) => {
          done();
          resolve(p);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      worker.ref(); // a page is owed: the thread keeps the process alive
      worker.postMessage({ t: 'render', id, job: rest } satisfies RenderRequest);
    });
  }

  /** Close the browser and end the thread; pages still owed fail with `renderer closed`. */
  close(): Promise<void> {
    if (this.closing !== null) return this.closing;
    const worker = this.worker;
    this.closing =
      worker === null
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const end = () => {
              clearTimeout(timer);
              this.browserPid = null;
              this.failAll(new Error('renderer closed'));
              void worker.terminate().finally(resolve);
            };
            const timer = setTimeout(() => {
              if (this.browserPid !== null) killTree(this.browserPid);
              end();
            }, CLOSE_WAIT_MS);
            worker.on('message', (m: RenderReply) => {
              if (m.t === 'closed') end();
            });
            worker.ref();
            worker.postMessage({ t: 'close' } satisfies RenderRequest);
          });
    return this.closing;
  }

  /** The running thread, started when none runs. */
  private thread(): Worker {
    if (this.worker !== null) return this.worker;
    const { onBrowser: _callback, ...settings } = this.opts;
    const worker = new Worker(this.file, {
      workerData: settings satisfies RenderWorkerData,
      // Short-lived DevTools messages: a small young generation keeps the thread's RSS down.
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    worker.on('message', (m: RenderReply) => this.onReply(worker, m));
    worker.on('error', (e) => this.threadLost(worker, e.message));
    worker.on('exit', (code) => this.threadLost(worker, `render thread exited with code ${code}`));
    this.worker = worker;
    return worker;
  }

  private onReply(worker: Worker, m: RenderReply): void {
    if (worker !== this.worker) return;
    if (m.t === 'done' || m.t === 'failed') {
      this.renderedNow = m.rendered;
      const p = this.settled(m.id);
      if (m.t === 'done') p?.resolve(m.page);
      else p?.reject(m.lost ? new BrowserLost(m.message) : new Error(m.message));
    } else if (m.t === 'browser') {
      const pid = typeof m.fields.pid === 'number' ? m.fields.pid : null;
      if (m.event === 'started') this.browserPid = pid;
      else if (pid === this.browserPid) this.browserPid = null;
      if (m.event === 'lost') this.lost++;
      this.opts.onBrowser?.(m.event, m.fields);
    }
  }

  /** Forget page `id` (answered or abandoned); with none owed, the thread no longer keeps the process alive. */
  private settled(id: number): Pending | undefined {
    const p = this.pending.get(id);
    this.pending.delete(id);
    if (this.pending.size === 0 && this.closing === null) this.worker?.unref();
    return p;
  }

  /** The thread ended unasked: its pages fail as lost, its browser is killed by PID, the next page starts another. */
  private threadLost(worker: Worker, why: string): void {
    if (worker !== this.worker || this.closing !== null) return;
    this.worker = null;
    this.renderedBefore += this.renderedNow;
    this.renderedNow = 0;
    const pid = this.browserPid;
    this.browserPid = null;
    if (pid !== null) {
      killTree(pid);
      this.lost++;
      this.opts.onBrowser?.('lost', { pid, why: 'thread', error: why });
    }
    this.failAll(new BrowserLost(`browser lost with its thread: ${why}`));
  }

  private failAll(e: Error): void {
    const owed = [...this.pending.values()];
    this.pending.clear();
    for (const p of owed) p.reject(e);
  }
}
