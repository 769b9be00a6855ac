/**
 * The live progress line on a TTY's stderr: pages, pages/s, queued, errors, bytes — redrawn in
 * place once a second and cleared at the end.
 */

/** Counters the progress line shows. */
export interface ProgressCounters {
  items: number;
  errors: number;
  bytes: number;
  queued: number;
  stopping: boolean;
}

function mb(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

/** Redraws one status line every second while a crawl runs. */
export class ProgressLine {
  private timer: NodeJS.Timeout | null = null;
  private lastItems = 0;
  private lastAt = 0;

  constructor(
    private readonly read: () => ProgressCounters,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  start(): void {
    this.lastAt = performance.now();
    this.lastItems = this.read().items;
    this.timer = setInterval(() => this.draw(), 1000);
    this.timer.unref();
  }

  private draw(): void {
    const s = this.read();
    const now = performance.now();
    const rate = ((s.items - this.lastItems) * 1000) / Math.max(1, now - this.lastAt);
    this.lastItems = s.items;
    this.lastAt = now;
    this.out.write(
      `\r\x1b[Kpages ${s.items}  ${rate.toFixed(0)}/s  queued ${s.queued}  ` +
        `errors ${s.errors}  ${mb(s.bytes)}${s.stopping ? '  stopping…' : ''}`,
    );
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.out.write('\r\x1b[K');
  }

  /** Write a whole line above the progress line (which is cleared, and redrawn at the next tick). */
  printAbove(line: string): void {
    this.out.write(`\r\x1b[K${line}\n`);
  }
}

/**
 * A line for a person on stderr (`collector: ` first), above the progress line when there is one.
 * @param progress the progress line being drawn, or null.
 */
export function printLine(progress: ProgressLine | null, line: string): void {
  const text = `collector: ${line}`;
  if (progress) progress.printAbove(text);
  else process.stderr.write(`${text}\n`);
}
