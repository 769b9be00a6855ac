/**
 * Worker-thread side of {@link ThreadedFileSink}: receives bodies and stores them with a
 * {@link FileSink}, so file creation (50–1,100 µs each on a slow disk) never runs on the
 * crawler's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FileSink } from './file-sink.js';

/** A request from the crawler thread. */
export interface WriteRequest {
  id: number;
  url: string;
  body: Uint8Array;
}

/** The answer: the stored path, or the error message. */
export type WriteReply = { id: number; file: string } | { id: number; error: string };

const sink = new FileSink({ outDir: workerData.outDir, maxConcurrentWrites: workerData.maxConcurrentWrites });
const port = parentPort;
if (port === null) throw new Error('file-writer-worker must run in a worker thread');
// Replies are batched per event-loop turn too.
let replies: WriteReply[] = [];
function flushReplies(): void {
  const r = replies;
  replies = [];
  port?.postMessage(r);
}
function reply(r: WriteReply): void {
  replies.push(r);
  if (replies.length === 1) setImmediate(flushReplies);
}

port.on('message', (msg: WriteRequest[] | 'close') => {
  if (msg === 'close') {
    void sink.close().then(() => {
      flushReplies();
      port.postMessage('closed');
    });
    return;
  }
  for (const req of msg) {
    const body = Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength);
    sink.write(req.url, body).then(
      (file) => reply({ id: req.id, file }),
      (e: Error) => reply({ id: req.id, error: e.message }),
    );
  }
});
