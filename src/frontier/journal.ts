/**
 * The crash-safe record of a crawl: an append-only frontier log (`state/<worker>/frontier.log`,
 * one `depth<TAB>url` line per URL enqueued) and the items JSONL (one line per URL attempted —
 * the acknowledgement). Both are buffered and flushed together, frontier log first, every N
 * items or T ms and at close, so the log always holds the links of every acknowledged page.
 * Saving is O(change): only new lines are written, never the whole set.
 */
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';

/** Journal settings. */
export interface JournalOptions {
  /** `<out>/state/<worker-id>` */
  stateDir: string;
  /** `<out>/items/<worker-id>.jsonl` */
  itemsPath: string;
  /** Flush after this many items. */
  saveEveryItems: number;
  /** Flush at least this often, ms. */
  saveIntervalMs: number;
}

/** Name of the frontier log inside the state dir. */
export const FRONTIER_LOG = 'frontier.log';

/**
 * Truncate a torn last line (a line without its newline, left by a kill during a write).
 * @returns bytes removed (0 when the file ends cleanly or does not exist).
 */
export async function repairTornTail(file: string): Promise<number> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, 'r+');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
  try {
    const { size } = await fh.stat();
    if (size === 0) return 0;
    const buf = Buffer.alloc(Math.min(size, 64 * 1024));
    let end = size;
    // Scan backwards for the last newline.
    while (end > 0) {
      const start = Math.max(0, end - buf.length);
      const n = end - start;
      await fh.read(buf, 0, n, start);
      if (end === size && buf[n - 1] === 0x0a) return 0;
      const i = buf.subarray(0, n).lastIndexOf(0x0a);
      if (i >= 0) {
        const keep = start + i + 1;
        await fh.truncate(keep);
        return size - keep;
      }
      end = start;
    }
    await fh.truncate(0);
    return size;
  } finally {
    await fh.close();
  }
}

/** Call `onLine` for every complete line of a file (missing file = no lines). */
export async function readLines(file: string, onLine: (line: string) => void): Promise<void> {
  try {
    await fs.access(file);
  } catch {
    return;
  }
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of rl) if (line.length > 0) onLine(line);
}

/** Where one line of the items file is (see {@link recoverJournal}). */
export interface ItemsLine {
  /** 0-based line number; every line counts, also those skipped as unreadable. */
  index: number;
  /** Byte offset of the line's first byte in the file. */
  offset: number;
  /** Length of the line in bytes, its newline included. */
  bytes: number;
}

/**
 * Call `onLine` for every complete line of a file with its exact position: lines are split at
 * LF bytes (a last line without one is not reported) and decoded as UTF-8 (a trailing CR is
 * kept). A missing file has no lines.
 * @throws on I/O errors other than a missing file.
 */
export async function readLinesWithPositions(
  file: string,
  onLine: (line: string, at: ItemsLine) => void,
): Promise<void> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    let carry: Buffer[] = [];
    let carryBytes = 0;
    let offset = 0;
    let index = 0;
    for (;;) {
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      let start = 0;
      for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
        let line: string;
        if (carryBytes > 0) {
          carry.push(data.subarray(start, nl));
          line = Buffer.concat(carry).toString('utf8');
        } else line = data.toString('utf8', start, nl);
        const bytes = carryBytes + nl - start + 1;
        onLine(line, { index: index++, offset, bytes });
        offset += bytes;
        carry = [];
        carryBytes = 0;
        start = nl + 1;
      }
      if (start < bytesRead) {
        carry.push(Buffer.from(data.subarray(start)));
        carryBytes += bytesRead - start;
      }
    }
  } finally {
    await fh.close();
  }
}

/** Buffered, ordered appends to the frontier log and the items file. */
export class Journal {
  private frontierBuf: string[] = [];
  private itemsBuf: string[] = [];
  private handoffBuf = new Map<number, string[]>();
  private readonly handoffFhs = new Map<number, fs.FileHandle>();
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout;
  private closed = false;
  /** Items written to disk so far (this session). */
  itemsFlushed = 0;

  private constructor(
    private readonly opts: JournalOptions,
    private readonly frontierFh: fs.FileHandle,
    private readonly itemsFh: fs.FileHandle,
  ) {
    this.timer = setInterval(() => {
      if (this.frontierBuf.length > 0 || this.itemsBuf.length > 0) void this.flush().catch(() => {});
    }, opts.saveIntervalMs);
    this.timer.unref();
  }

  /**
   * Open (creating) both files for appending, after repairing torn tails.
   * @throws on I/O errors (unwritable directory).
   */
  static async open(opts: JournalOptions): Promise<Journal> {
    await fs.mkdir(opts.stateDir, { recursive: true });
    await fs.mkdir(path.dirname(opts.itemsPath), { recursive: true });
    const logPath = path.join(opts.stateDir, FRONTIER_LOG);
    await repairTornTail(logPath);
    await repairTornTail(opts.itemsPath);
    const f = await fs.open(logPath, 'a');
    const i = await fs.open(opts.itemsPath, 'a');
    return new Journal(opts, f, i);
  }

  /** Record that `url` entered the frontier at `depth`. */
  enqueued(url: string, depth: number): void {
    this.frontierBuf.push(`${depth}\t${url}\n`);
  }

  /**
   * Record that `url`, owned by worker number `owner` of this worker type, was handed to it.
   * Written (to `handoff-<owner>.log`) before the items that discovered it, so a handoff lost
   * in a crash of the owner can be sent again from this log (see {@link readHandoffs}).
   */
  handedOff(owner: number, url: string, depth: number): void {
    let buf = this.handoffBuf.get(owner);
    if (buf === undefined) {
      buf = [];
      this.handoffBuf.set(owner, buf);
    }
    buf.push(`${depth}\t${url}\n`);
  }

  /** Record an item (one JSON object, no newline). Triggers a flush every `saveEveryItems`. */
  item(json: string): void {
    this.itemsBuf.push(`${json}\n`);
    if (this.itemsBuf.length >= this.opts.saveEveryItems) void this.flush().catch(() => {});
  }

  /** Items waiting in memory. */
  get pendingItems(): number {
    return this.itemsBuf.length;
  }

  /** Write what is buffered: frontier log first, then items. Flushes run one at a time. */
  flush(): Promise<void> {
    // Take both buffers at the same instant: every item taken has its links among the
    // frontier lines taken with it or before, and the frontier lines are written first.
    const frontier = this.frontierBuf;
    const items = this.itemsBuf;
    const handoffs = this.handoffBuf;
    this.frontierBuf = [];
    this.itemsBuf = [];
    if (handoffs.size > 0) this.handoffBuf = new Map();
    const next = this.chain.then(async () => {
      if (frontier.length > 0) await this.frontierFh.write(frontier.join(''));
      for (const [owner, lines] of handoffs) await (await this.handoffFile(owner)).write(lines.join(''));
      if (items.length > 0) {
        await this.itemsFh.write(items.join(''));
        this.itemsFlushed += items.length;
      }
    });
    this.chain = next.catch(() => {});
    return next;
  }

  private async handoffFile(owner: number): Promise<fs.FileHandle> {
    let fh = this.handoffFhs.get(owner);
    if (fh === undefined) {
      const file = handoffLogPath(this.opts.stateDir, owner);
      await repairTornTail(file);
      fh = await fs.open(file, 'a');
      this.handoffFhs.set(owner, fh);
    }
    return fh;
  }

  /** Flush and close. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.flush();
    await this.frontierFh.close();
    await this.itemsFh.close();
    for (const fh of this.handoffFhs.values()) await fh.close();
  }
}

/** Path of the log of URLs this worker handed to worker number `owner`. */
export function handoffLogPath(stateDir: string, owner: number): string {
  return path.join(stateDir, `handoff-${owner}.log`);
}

/**
 * Read back the URLs handed to `owner` (to send them again after the owner restarted; the
 * owner's seen-set drops those it already has).
 */
export async function readHandoffs(
  stateDir: string,
  owner: number,
  onEntry: (url: string, depth: number) => void,
): Promise<void> {
  let text: string;
  try {
    text = await fs.readFile(handoffLogPath(stateDir, owner), 'utf8');
  } catch {
    return;
  }
  // The log may be being appended to: only complete lines count.
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; start = nl + 1, nl = text.indexOf('\n', start)) {
    const tab = text.indexOf('\t', start);
    if (tab > start && tab < nl) onEntry(text.slice(tab + 1, nl), Number(text.slice(start, tab)));
  }
}

/** What {@link recoverJournal} rebuilt. */
export interface RecoveredState {
  /** URLs enqueued but not acknowledged, in enqueue order: the frontier to restore. */
  pending: Array<{ url: string; depth: number }>;
  /** Items already written. */
  done: number;
  /** Bytes removed from torn tails. */
  repairedBytes: number;
}

/**
 * Rebuild a worker's state after a stop or crash: frontier = enqueued minus done. Every URL in
 * the frontier log, and every `url` and `finalUrl` of an item, is added to `seen`.
 * @param onItem called with each parsed item and its line (for counters and the content index).
 * @param onLine called first for every complete line of the items file, in order, also for lines
 *   skipped as unreadable (so line numbers and byte offsets can be tracked exactly).
 * @throws on I/O errors; a line of the items file that is not a JSON object with a `url` is skipped.
 */
export async function recoverJournal(
  opts: Pick<JournalOptions, 'stateDir' | 'itemsPath'>,
  seen: { add(s: string): boolean },
  onItem: (item: Record<string, unknown>, line: ItemsLine) => void,
  onLine?: (line: ItemsLine) => void,
): Promise<RecoveredState> {
  const logPath = path.join(opts.stateDir, FRONTIER_LOG);
  const repairedBytes = (await repairTornTail(logPath)) + (await repairTornTail(opts.itemsPath));
  const doneUrls = new Set<string>();
  let done = 0;
  await readLinesWithPositions(opts.itemsPath, (line, at) => {
    onLine?.(at);
    if (line.length === 0) return;
    let item: Record<string, unknown>;
    try {
      item = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof item?.url !== 'string') return; // `null` is JSON too
    done++;
    doneUrls.add(item.url);
    seen.add(item.url);
    if (typeof item.finalUrl === 'string') seen.add(item.finalUrl);
    onItem(item, at);
  });
  const pending: RecoveredState['pending'] = [];
  await readLines(logPath, (line) => {
    const tab = line.indexOf('\t');
    if (tab < 0) return;
    const url = line.slice(tab + 1);
    seen.add(url);
    if (!doneUrls.has(url)) pending.push({ url, depth: Number(line.slice(0, tab)) });
  });
  return { pending, done, repairedBytes };
}
