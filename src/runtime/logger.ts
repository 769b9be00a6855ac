/**
 * Per-process JSON logs (pino) at `<out>/logs/<worker-id>.log`, one JSON object per line with an
 * ISO 8601 `time`, rotated by size: `x.log` → `x.log.1` → … → `x.log.<keep>`, so one process's
 * logs never take more than `maxBytes × (keep + 1)`.
 */
import fs from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { APPEND_NO_FOLLOW } from '../sinks/no-follow.js';

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
  const dest = new LogFile(file, rotation);
  // ISO 8601 times (`"time":"2026-05-01T12:00:00.000Z"`), readable as they are; `npx pino-pretty`
  // renders the lines for a person (docs/output.md, Logs).
  const log = pino(
    { base: { worker: workerId, pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
    dest,
  );
  return {
    log,
    close: async () => dest.close(),
  };
}

/**
 * The log file, written synchronously line by line: workers log events (start, stop, errors),
 * not every item, so this costs nothing measurable, and rotation loses or reorders no line.
 * A line that cannot be written (a full disk, a removed directory) is dropped: logging never
 * stops or crashes the crawl. (pino's own file stream emits such errors as an `'error'` event,
 * fatal without a listener, and then never closes while it holds unwritten data.)
 */
class LogFile {
  private fd: number | null = null;
  private size = 0;

  constructor(
    private readonly file: string,
    private readonly rotation: LogRotation,
  ) {
    this.open();
  }

  private open(): void {
    try {
      // a link is refused (the run checked logs/ at start): no line is written through it
      this.fd = fs.openSync(this.file, APPEND_NO_FOLLOW);
      this.size = fs.fstatSync(this.fd).size;
    } catch {
      this.fd = null; // retried at the next rotation; lines meanwhile are dropped
    }
  }

  write(line: string): void {
    if (this.fd === null) return;
    const buf = Buffer.from(line, 'utf8');
    try {
      for (let done = 0; done < buf.length; ) done += fs.writeSync(this.fd, buf, done, buf.length - done);
    } catch {
      return; // dropped (ENOSPC...); a partial line may stay, which only the log reader sees
    }
    this.size += buf.length;
    if (this.size >= this.rotation.maxBytes) this.rotate();
  }

  private rotate(): void {
    this.close();
    try {
      for (let i = this.rotation.keep; i >= 1; i--) {
        const from = i === 1 ? this.file : `${this.file}.${i - 1}`;
        if (fs.existsSync(from)) fs.renameSync(from, `${this.file}.${i}`);
      }
    } catch {
      // rotation is best effort: logging must never stop the crawl
    }
    this.open();
  }

  close(): void {
    if (this.fd === null) return;
    try {
      fs.closeSync(this.fd);
    } catch {
      // already closed
    }
    this.fd = null;
  }
}
