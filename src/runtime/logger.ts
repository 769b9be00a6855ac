/**
 * Per-process JSON logs (pino) at `<out>/logs/<worker-id>.log`, written asynchronously so
 * logging never blocks the fetch loop.
 */
import fs from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';

/**
 * Open the log of one worker.
 * @param outDir the crawl's output directory.
 * @param workerId e.g. `crawl-0`.
 * @returns a pino logger and a function that flushes and closes it.
 */
export function openWorkerLog(outDir: string, workerId: string): { log: Logger; close: () => void } {
  const dir = path.join(outDir, 'logs');
  fs.mkdirSync(dir, { recursive: true });
  const dest = pino.destination({ dest: path.join(dir, `${workerId}.log`), sync: false, mkdir: true });
  const log = pino({ base: { worker: workerId, pid: process.pid } }, dest);
  return {
    log,
    close: () => {
      try {
        dest.flushSync();
      } catch {
        // not yet open or already closed
      }
      dest.end();
    },
  };
}
