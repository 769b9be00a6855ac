/**
 * Page-thread side of {@link ThreadedPageProcessor}: runs {@link workPage} on each response,
 * keeps the decoded bodies until the crawler says store or drop, and stores them with a
 * {@link FileSink}. Replies are batched per event-loop turn.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FileSink } from '../sinks/file-sink.js';
import type { PageReply, PageRequest, PageThreadData } from './page-processor.js';
import { workPage } from './page-work.js';
import { createSource } from './source-registry.js';

const port = parentPort;
if (port === null) throw new Error('page-worker must run in a worker thread');
const data = workerData as PageThreadData;
const source = createSource(data.source);
const sink = data.storeBodies ? new FileSink({ outDir: data.outDir }) : null;
const kept = new Map<number, Buffer>();

let replies: PageReply[] = [];
function flushReplies(): void {
  const r = replies;
  replies = [];
  if (r.length > 0) port?.postMessage(r);
}
function reply(r: PageReply): void {
  replies.push(r);
  if (replies.length === 1) setImmediate(flushReplies);
}

function store(id: number, url: string): void {
  const body = kept.get(id);
  kept.delete(id);
  if (body === undefined) {
    reply({ op: 'stored', id, error: `no body kept for ${url}` });
    return;
  }
  if (sink === null) {
    reply({ op: 'stored', id, error: 'bodies are not stored (--no-store)' });
    return;
  }
  sink.write(url, body).then(
    (file) => reply({ op: 'stored', id, file }),
    (e: Error) => reply({ op: 'stored', id, error: e.message }),
  );
}

port.on('message', (msg: PageRequest[] | 'close') => {
  if (msg === 'close') {
    kept.clear();
    void (sink?.close() ?? Promise.resolve()).then(() => {
      flushReplies();
      port.postMessage('closed');
    });
    return;
  }
  for (const req of msg) {
    if (req.op === 'work') {
      const { done, body } = workPage(req.job, source);
      if (body !== null) kept.set(req.job.id, body);
      reply({ op: 'done', done });
    } else if (req.op === 'store') store(req.id, req.url);
    else kept.delete(req.id);
  }
});
