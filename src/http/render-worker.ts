/**
 * The render thread: drives the headless browser ({@link Renderer}) for the crawler's thread, so
 * that loading puppeteer-core (250–350 ms) and handling the DevTools messages of every page (~8 ms
 * a render) never hold the fetch loop. The thread lowers its own CPU priority first: the browser
 * it starts inherits it from the start, and where they compete for a core, the crawl comes first.
 *
 * Requests arrive on `parentPort` ({@link RenderRequest}); answers go back one per request
 * ({@link RenderReply}), browser events as they happen, and `closed` after `close`.
 */
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { BROWSER_NICE } from './chromium.js';
import {
  BrowserLost,
  type RenderedPage,
  Renderer,
  type RendererOptions,
  type RenderJob,
} from './renderer.js';

/** `workerData` of the thread: the renderer's settings (no callbacks). */
export type RenderWorkerData = Omit<RendererOptions, 'onBrowser'>;

/** A request to the render thread. */
export type RenderRequest =
  | { t: 'render'; id: number; job: Omit<RenderJob, 'signal'> }
  | { t: 'abort'; id: number }
  | { t: 'close' };

/** What the render thread says. */
export type RenderReply =
  | { t: 'done'; id: number; page: RenderedPage; rendered: number }
  | { t: 'failed'; id: number; lost: boolean; message: string; rendered: number }
  | { t: 'browser'; event: 'started' | 'lost' | 'closed'; fields: Record<string, unknown> }
  | { t: 'closed' };

/**
 * Lower the calling thread's CPU priority to `nice` (Linux: nice is per thread, and
 * `/proc/thread-self` names the thread). Elsewhere, or when it fails, nothing changes.
 */
export function lowerThisThread(nice: number): void {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && os.getPriority(tid) < nice) os.setPriority(tid, nice);
  } catch {
    // not Linux, or not permitted: the thread keeps the crawl's priority
  }
}

const main = parentPort;
if (main === null) throw new Error('render-worker must run in a worker thread');
const send = (m: RenderReply) => main.postMessage(m);

lowerThisThread(BROWSER_NICE);
const renderer = new Renderer({
  ...(workerData as RenderWorkerData),
  onBrowser: (event, fields) => send({ t: 'browser', event, fields }),
});
const aborts = new Map<number, AbortController>();

main.on('message', (m: RenderRequest) => {
  if (m.t === 'render') {
    const abort = new AbortController();
    aborts.set(m.id, abort);
    const b = m.job.body; // a Uint8Array after the clone
    const job: RenderJob = {
      ...m.job,
      body: Buffer.from(b.buffer, b.byteOffset, b.byteLength),
      signal: abort.signal,
    };
    void renderer
      .render(job)
      .then(
        (page) => send({ t: 'done', id: m.id, page, rendered: renderer.rendered }),
        (e: unknown) =>
          send({
            t: 'failed',
            id: m.id,
            lost: e instanceof BrowserLost,
            message: e instanceof Error ? e.message : String(e),
            rendered: renderer.rendered,
          }),
      )
      .finally(() => aborts.delete(m.id));
  } else if (m.t === 'abort') {
    aborts.get(m.id)?.abort();
    aborts.delete(m.id);
  } else {
    void renderer.close().finally(() => send({ t: 'closed' }));
  }
});
