/**
 * The body-writer thread: stores bodies sent by the page thread with blocking syscalls
 * ({@link FileSink.storeSync}), so a slow disk (50–1,100 µs per file created) stalls neither the
 * fetch loop nor parsing, and no write takes a round trip through libuv's thread pool.
 *
 * Requests arrive on `workerData.port` (from the page thread), in order, then `'close'`; each
 * answer goes to the crawler's thread (`parentPort`), batched per event-loop turn, and
 * `'closed'` once every request before `'close'` is answered.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { FileSink, type VersionOptions } from '../sinks/file-sink.js';

/** A body to store, from the page thread. */
export interface StoreRequest {
  id: number;
  url: string;
  body: Uint8Array;
  /** The file's extension chosen by the source, without the dot. */
  extension?: string;
}

/** The answer to the crawler: the stored path, or the error message. */
export type StoreReply = { id: number; file: string } | { id: number; error: string };

/** `workerData` of the thread. */
export interface BodyWriterData {
  outDir: string;
  /** Store pages as versions (see `page-versions.ts`); absent: one body per page. */
  versions?: VersionOptions;
  /** Where requests come from (the page thread holds the other end). */
  port: MessagePort;
}

const main = parentPort;
if (main === null) throw new Error('body-writer must run in a worker thread');
const data = workerData as BodyWriterData;
const sink = new FileSink({ outDir: data.outDir, versions: data.versions });

let replies: StoreReply[] = [];
function flush(): void {
  const r = replies;
  replies = [];
  if (r.length > 0) main?.postMessage(r);
}

data.port.on('message', (msg: StoreRequest[] | 'close') => {
  if (msg === 'close') {
    flush();
    main.postMessage('closed');
    data.port.close();
    return;
  }
  for (const req of msg) {
    const body = Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength);
    try {
      replies.push({ id: req.id, file: sink.storeSync(req.url, body, req.extension) });
    } catch (e) {
      replies.push({ id: req.id, error: (e as Error).message });
    }
  }
  // One answer per batch received: the crawler hears of each body as soon as its batch is done.
  flush();
});
