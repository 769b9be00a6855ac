/**
 * Page-thread side of {@link ThreadedPageProcessor}: runs {@link workPage} on each response,
 * keeps the decoded bodies until the crawler says store or drop, and passes the ones to store to
 * the body-writer thread (`src/runtime/body-writer.ts`), which answers the crawler directly.
 * Messages are batched per event-loop turn.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createSource } from '../sources/registry.js';
import type { StoreRequest } from './body-writer.js';
import type { PageReply, PageRequest, PageThreadData } from './page-processor.js';
import { workPage } from './page-work.js';

const port = parentPort;
if (port === null) throw new Error('page-worker must run in a worker thread');
const data = workerData as PageThreadData;
const source = createSource(data.source);
const writer = data.writer;
const kept = new Map<number, Buffer>();
// Which job is being worked on, readable by the crawler's thread if this one dies mid-page.
const progress = new Int32Array(data.progress);

let replies: PageReply[] = [];
function flushReplies(): void {
  const r = replies;
  replies = [];
  if (r.length > 0) port?.postMessage(r);
}

let toStore: StoreRequest[] = [];
let transfer: ArrayBuffer[] = [];
function flushStores(): void {
  const s = toStore;
  const t = transfer;
  toStore = [];
  transfer = [];
  if (s.length > 0) writer?.postMessage(s, t);
}

function store(id: number, url: string): void {
  const body = kept.get(id);
  kept.delete(id);
  if (body === undefined || writer === undefined) {
    replies.push({
      op: 'stored',
      id,
      error: body === undefined ? `no body kept for ${url}` : 'no body writer',
    });
    return;
  }
  // Transferred when the Buffer owns its whole ArrayBuffer, else copied (a view into zlib's or
  // the pool's memory must not be detached).
  const own =
    body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : new Uint8Array(body);
  toStore.push({ id, url, body: own });
  transfer.push(own.buffer as ArrayBuffer);
}

port.on('message', (msg: PageRequest[] | 'close') => {
  if (msg === 'close') {
    kept.clear();
    flushStores();
    writer?.postMessage('close');
    flushReplies();
    port.postMessage('closed');
    return;
  }
  for (const req of msg) {
    if (req.op === 'work') {
      // Set until the next job or the end of the batch: a death while replying still names it.
      Atomics.store(progress, 0, req.job.id);
      const { worked, body } = workPage(req.job, source);
      if (body !== null) kept.set(req.job.id, body);
      replies.push({ op: 'worked', worked });
    } else if (req.op === 'store') store(req.id, req.url);
    else kept.delete(req.id);
  }
  // Answers go back once per batch received, not once per page.
  flushStores();
  flushReplies();
  Atomics.store(progress, 0, 0);
});

// Modules are loaded and the source is made: pages sent from now on are handled here.
port.postMessage('ready');
