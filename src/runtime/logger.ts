/**
 * Per-process JSON logs (pino) at `<out>/logs/<worker-id>.log`, rotated by size: `x.log` → `x.log.1` → … →
 * `x.log.<keep>`, so one process's logs never take more than `maxBytes × (keep + 1)`.
 */
import fs from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';

/** Rotation settings. */
export interface LogRotation {
  /** Rotate when the current file passes this size, bytes. Default 10 MiB. */
  maxBytes: number;
  /** Rotated files kept. Default 3. */
  keep: number;
}

/** Defaults: 10 MiB × (3 + 1) = at most 40 MiB of logs per process. */
export const LOG_ROTATION_DEFAULTS: LogRotation = { maxBytes: 10 * 1024 * 1024, keep: 3 };

/**
 * Open the log of one worker.
 * @param outDir the crawl's output directory.
 * @param workerId e.g. `crawl-0`.
 * @returns a pino logger and a function that flushes and closes it (resolves once written).
 */
export function openWorkerLog(
  outDir: string,
  workerId: string,
  rotation: LogRotation = LOG_ROTATION_DEFAULTS,
): { log: Logger; close: () => Promise<void> } {
  const dir = path.join(outDir, 'logs');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${workerId}.log`);
  // One stream by path, written synchronously: workers log events (start, stop, errors), not
  // every item, so this costs nothing measurable, and reopen() rotates with no line lost or reordered.
  const dest = pino.destination({ dest: file, sync: true, mkdir: true });
  let size = 0;
  try {
    size = fs.statSync(file).size;
  } catch {
    // new file
  }
  const rotate = () => {
    try {
      for (let i = rotation.keep; i >= 1; i--) {
        const from = i === 1 ? file : `${file}.${i - 1}`;
        if (fs.existsSync(from)) fs.renameSync(from, `${file}.${i}`);
      }
      dest.reopen();
    } catch {
      // rotation is best effort: logging must never stop the crawl
    }
    size = 0;
  };
  const stream = {
    write(line: string): void {
      size += line.length;
      dest.write(line);
      if (size >= rotation.maxBytes) rotate();
    },
  };
  const log = pino({ base: { worker: workerId, pid: process.pid } }, stream);
  return {
    log,
    close: () =>
      new Promise<void>((resolve) => {
        try {
          dest.flushSync();
        } catch {
          // a write is in progress: end() below still flushes everything
        }
        dest.once('close', () => resolve());
        dest.end();
      }),
  };
}
