/**
 * Page-thread side of {@link ThreadedPageProcessor}: loads the worker's source (a built-in, or a
 * user module imported by path), runs {@link workPage} on each response, keeps the decoded bodies
 * until the crawler says store or drop, and passes the ones to store to the body-writer thread
 * (`body-writer.ts`), which answers the crawler directly. Jobs run one at a time, in order (an
 * async `handle` is awaited before the next); messages are batched per event-loop turn.
 */
import { parentPort } from 'node:worker_threads';
import { loadSource } from '../sources/load-source.js';
import { parseSourceOptions } from '../sources/source-options.js';
import { runSource, sourceLog } from '../sources/source-runner.js';
import type { StoreRequest } from './body-writer.js';
import type { PageReply, PageRequest, PageThreadData } from './page-processor.js';
import type { PageSetup } from './page-threads.js';
import { markdownId, type SourceLogLine, type Worked, workPage } from './page-work.js';

const port = parentPort;
if (port === null) throw new Error('page-worker must run in a worker thread');

// The first message is the setup (the thread may have been started before the crawl knew its
// source: page-thread-prestart.ts); requests that come while the source loads wait in `early`.
type Message = PageSetup | PageRequest[] | 'close';
const early: Array<PageRequest[] | 'close'> = [];
let accept: ((msg: PageRequest[] | 'close') => void) | null = null;
let setUp: (d: PageThreadData) => void = () => {};
const setupMessage = new Promise<PageThreadData>((resolve) => {
  setUp = resolve;
});
port.on('message', (msg: Message) => {
  if (typeof msg === 'object' && !Array.isArray(msg)) setUp(msg.data);
  else if (accept === null) early.push(msg);
  else accept(msg);
});

const data = await setupMessage;
const writer = data.writer;
const kept = new Map<number, Buffer>();
// Which job is being worked on, readable by the crawler's thread if this one dies mid-page.
const progress = new Int32Array(data.progress);

// Lines the source logs go back with the next page answered.
let logs: SourceLogLine[] = [];
const setup = data.source;
const loaded = await loadSource(setup.ref);
// Checked in full (unknown keys, clashes) before the crawl started; parsed again here.
const options = parseSourceOptions(loaded.def, setup.options, new Set(), { prefix: '', base: [] });
const source = runSource(
  loaded,
  options,
  setup.seeds,
  setup.worker,
  sourceLog((level, message, fields) => logs.push({ level, message, fields })),
);

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

function store(id: number, url: string, extension: string | undefined): void {
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
  toStore.push(extension === undefined ? { id, url, body: own } : { id, url, body: own, extension });
  transfer.push(own.buffer as ArrayBuffer);
}

function done(r: Worked): void {
  if (r.body !== null) kept.set(r.worked.id, r.body);
  if (r.markdown !== undefined) kept.set(markdownId(r.worked.id), r.markdown);
  if (logs.length > 0) {
    r.worked.logs = logs;
    logs = [];
  }
  replies.push({ op: 'worked', worked: r.worked });
}

/** Requests not yet handled, in order, from `head`; `running` while an async `handle` is awaited. */
let queue: Array<PageRequest | 'close'> = [];
let head = 0;
let running = false;

function close(): void {
  kept.clear();
  flushStores();
  writer?.postMessage('close');
  flushReplies();
  port?.postMessage('closed');
}

/** Handle queued requests in order; returns early while an async page is awaited. */
function pump(): void {
  while (head < queue.length) {
    const req = queue[head++];
    if (req === 'close') {
      close();
      continue;
    }
    if (req.op === 'work') {
      // Set until the next job or the end of the batch: a death while replying still names it.
      Atomics.store(progress, 0, req.job.id);
      const r = workPage(req.job, source);
      if (r instanceof Promise) {
        running = true;
        void r.then((w) => {
          done(w);
          running = false;
          pump();
        });
        // What is answered so far goes now: the async page may take long.
        flushStores();
        flushReplies();
        return;
      }
      done(r);
    } else if (req.op === 'store') store(req.id, req.url, req.extension);
    else kept.delete(req.id);
  }
  queue = [];
  head = 0;
  // Answers go back once per batch received, not once per page.
  flushStores();
  flushReplies();
  Atomics.store(progress, 0, 0);
}

accept = (msg) => {
  if (msg === 'close') queue.push(msg);
  else if (head === queue.length) {
    // Nothing waiting (the usual case): the batch is the queue.
    queue = msg;
    head = 0;
  } else for (const req of msg) queue.push(req);
  if (!running) pump();
};
for (const msg of early.splice(0)) accept(msg);

// Modules are loaded and the source is made: pages sent from now on are handled here.
port.postMessage('ready');
