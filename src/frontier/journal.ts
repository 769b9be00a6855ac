/**
 * The crash-safe record of a crawl: an append-only frontier log (`state/<worker>/frontier.log`,
 * one `depth<TAB>url` line per URL enqueued, `depth<TAB>url<TAB>metadata` for a request a source
 * gave metadata: label, headers, priority, userData, flags, as JSON) and the items JSONL (one line per URL attempted —
 * the acknowledgement). Both are buffered and flushed together, frontier log first, every N
 * items or T ms after the first unwritten line, and at close, so the log always holds the links
 * of every acknowledged page.
 * Saving is O(change): only new lines are written, never the whole set. After each write the
 * journal's mark (`journal.json`, journal-mark.ts) records how long both files are, so that
 * resume can tell a file that lost lines. In a shared crawl (Redis) the URLs are also
 * acknowledged in the shared store before their item lines are written: the lines go to the
 * pending items file first (`pending-items.ts`, see {@link ItemsAck}); one box writes them
 * straight to the items file, as before.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppendFile } from './append-file.js';
import {
  type JournalMark,
  type LogLoss,
  type LogSize,
  lostFrom,
  readJournalMark,
  writeJournalMark,
} from './journal-mark.js';
import { type ItemsLine, readLines, readLinesWithPositions, repairTornTail } from './log-lines.js';
import { type AckRecords, PENDING_ITEMS, PendingItems } from './pending-items.js';
import { ReplayFilter } from './replay-filter.js';
import { encodeRequestMeta, type RequestMeta } from './request-meta.js';

/** Journal settings. */
export interface JournalOptions {
  /** `<out>/state/<worker-id>` */
  stateDir: string;
  /** `<out>/items/<worker-id>.jsonl` */
  itemsPath: string;
  /** Flush after this many items. */
  saveEveryItems: number;
  /** Longest time a line waits in memory before it is written, ms. */
  saveIntervalMs: number;
  /** Told of every failed write (a full disk...); the lines stay buffered for the next flush. */
  onError?: (e: Error) => void;
  /**
   * A shared backend's acknowledgement, made before item lines reach the items file (see
   * {@link ItemsAck}); absent (one box): item lines go straight to the items file.
   */
  ack?: ItemsAck;
  /**
   * Awaited just before item lines are appended: what must be on disk before an item (the
   * revisit records of continuous collection, so that a page with its item on disk is never
   * unknown after a `kill -9`). Must not reject.
   */
  beforeItems?: () => Promise<void>;
  /**
   * Complete lines the two files hold at open, as the recovery that read them counted
   * ({@link RecoveredState.lines}); absent: counted at open.
   */
  lines?: { frontier: number; items: number };
}

/**
 * A shared backend's acknowledgement of item lines (Redis): an item line is the acknowledgement
 * of its URL on one box, but in a shared crawl the URL must also be acknowledged in the shared
 * store, atomically and only while this machine still holds it, before its line is written (an
 * item on disk whose acknowledgement is not made would be fetched again by another machine). The
 * journal records the lines in the pending items file (`pending-items.ts`) first, asks, then
 * writes the acknowledged lines and drops the others; a crash in between is settled at resume
 * from the pending file and the store's record of the acknowledgements made.
 */
export interface ItemsAck extends AckRecords {
  /**
   * Names this process's acknowledgements in the pending file (its machine id: no tab or
   * newline), the same for the life of the journal.
   */
  readonly tag: string;
  /**
   * The next `count` item lines of the journal (in the order they were recorded) are in the
   * pending file as batch `batch` (1, 2, ... for this tag): acknowledge their URLs. Called in
   * batch order; the answers may be awaited together (pipelined).
   * @returns per line, whether it was acknowledged (it goes to the items file) or not (dropped:
   *   its URL is another machine's now). Rejects when no answer can be had (a refused write, a
   *   stop while the store is unavailable): the lines then stay in the pending file for resume.
   */
  acknowledge(count: number, batch: number): Promise<boolean[]>;
  /**
   * Every line acknowledged so far is in the items file or dropped, and the pending file is
   * empty: the store's records of those acknowledgements may go (lazily).
   */
  settled(): void;
  /** The journal is closing: answers still awaited are given up after a bound. */
  closing(): void;
}

export { type ItemsLine, readLines, readLinesWithPositions, repairTornTail } from './log-lines.js';

/** Name of the frontier log inside the state dir. */
export const FRONTIER_LOG = 'frontier.log';

/** Lines taken together for one write. */
interface Batch {
  frontier: string[];
  handoffs: Map<number, string[]>;
  items: string[];
}

function mergeBatches(older: Batch, newer: Batch): Batch {
  const handoffs = new Map(older.handoffs);
  for (const [owner, lines] of newer.handoffs) handoffs.set(owner, (handoffs.get(owner) ?? []).concat(lines));
  return {
    frontier: older.frontier.concat(newer.frontier),
    handoffs,
    items: older.items.concat(newer.items),
  };
}

/** Buffered, ordered appends to the frontier log and the items file. */
export class Journal {
  private frontierBuf: string[] = [];
  private itemsBuf: string[] = [];
  private handoffBuf = new Map<number, string[]>();
  private readonly handoffFiles = new Map<number, AppendFile>();
  private chain: Promise<void> = Promise.resolve();
  /** Armed by the first line buffered after a flush: no line waits longer than saveIntervalMs. */
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** What a failed write could not write (its file left as it was), retried first. */
  private unwritten: Batch | null = null;
  /** Items written to disk so far (this session). */
  itemsFlushed = 0;
  /** Complete lines in the frontier log and the items file (for the mark). */
  private frontierLines: number;
  private itemsLines: number;
  /** The mark write in progress; `markAgain`: the files grew meanwhile (one more write after it). */
  private marking: Promise<void> | null = null;
  private markAgain = false;
  /** Acknowledgement batches recorded so far (numbers them, from 1). */
  private batches = 0;
  /** Batches recorded in the pending file whose lines are not yet written or dropped. */
  private awaiting = 0;
  /** Acknowledged lines a failed write of the items file left: written first next time. */
  private acked: string[] = [];
  /** An acknowledgement went unanswered: its lines stay in the pending file for resume. */
  private keepPending = false;
  /** Acknowledged lines go to the items file one batch at a time, in order, behind the chain. */
  private itemsChain: Promise<void> = Promise.resolve();
  /** Item lines dropped at their acknowledgement (their URLs were other machines' by then). */
  itemsDropped = 0;

  private constructor(
    private readonly opts: JournalOptions,
    private readonly frontierFile: AppendFile,
    private readonly itemsFile: AppendFile,
    lines: { frontier: number; items: number },
    /** The pending items file, with a shared backend's acknowledgement ({@link ItemsAck}). */
    private readonly pending: PendingItems | null,
  ) {
    this.frontierLines = lines.frontier;
    this.itemsLines = lines.items;
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
    const lines = opts.lines ?? {
      frontier: await countLines(logPath),
      items: await countLines(opts.itemsPath),
    };
    const f = await AppendFile.open(logPath);
    const i = await AppendFile.open(opts.itemsPath).catch(async (e) => {
      await f.close();
      throw e;
    });
    const p =
      opts.ack === undefined
        ? null
        : await PendingItems.open(path.join(opts.stateDir, PENDING_ITEMS)).catch(async (e) => {
            await f.close();
            await i.close();
            throw e;
          });
    return new Journal(opts, f, i, lines, p);
  }

  /** Record that `url` entered the frontier at `depth`, with the request's metadata if it has some. */
  enqueued(url: string, depth: number, meta?: RequestMeta): void {
    this.frontierBuf.push(logLine(url, depth, meta));
    this.arm();
  }

  /**
   * Record that `url`, owned by worker number `owner` of this worker type, was handed to it.
   * Written (to `handoff-<owner>.log`) before the items that discovered it, so a handoff lost
   * in a crash of the owner can be sent again from this log (see {@link readHandoffs}).
   */
  handedOff(owner: number, url: string, depth: number, meta?: RequestMeta): void {
    let buf = this.handoffBuf.get(owner);
    if (buf === undefined) {
      buf = [];
      this.handoffBuf.set(owner, buf);
    }
    buf.push(logLine(url, depth, meta));
    this.arm();
  }

  /**
   * Record an item (one JSON object, no newline): the acknowledgement of its URL. It is on disk
   * after `saveEveryItems` items or `saveIntervalMs`, whichever comes first: at a low item rate
   * every item is written on its own within that delay, at a high one they go in batches.
   */
  item(json: string): void {
    this.itemsBuf.push(`${json}\n`);
    if (this.itemsBuf.length >= this.opts.saveEveryItems) void this.flush().catch(() => {});
    else this.arm();
  }

  /** Items waiting in memory (also those a failed write left). */
  get pendingItems(): number {
    return this.itemsBuf.length + (this.unwritten?.items.length ?? 0);
  }

  private arm(): void {
    if (this.timer !== null || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush().catch(() => {});
    }, this.opts.saveIntervalMs);
    this.timer.unref();
  }

  /**
   * Write what is buffered: frontier log first, then handoff logs, then items. Writes run one at
   * a time, each taking what is buffered when it starts. A write that fails (e.g. ENOSPC) leaves
   * its file as it was and its lines buffered, in order, for the next flush. With a shared
   * backend's acknowledgement ({@link ItemsAck}) the item lines go to the pending file, their
   * URLs are acknowledged, and the lines acknowledged are written once the answer is in; the next
   * write does not wait for that answer (acknowledgements are pipelined), the returned promise
   * does.
   * @throws the write's error (also reported to `opts.onError`).
   */
  flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    // Take all buffers at the same instant: every item taken has its links among the frontier
    // lines taken with it or before, and the frontier lines are written first.
    const batch: Batch = { frontier: this.frontierBuf, handoffs: this.handoffBuf, items: this.itemsBuf };
    this.frontierBuf = [];
    this.itemsBuf = [];
    if (batch.handoffs.size > 0) this.handoffBuf = new Map();
    const next = this.chain.then(() => this.write(batch));
    this.chain = next.then(
      () => {},
      () => {},
    );
    return next.then((acked) => acked?.written);
  }

  private async write(taken: Batch): Promise<{ written: Promise<void> } | undefined> {
    // Lines a failed write left come first: files keep the order lines were recorded in.
    const b = this.unwritten === null ? taken : mergeBatches(this.unwritten, taken);
    this.unwritten = null;
    const grew = b.frontier.length > 0 || (this.pending === null && b.items.length > 0);
    let acked: { written: Promise<void> } | undefined;
    try {
      if (b.frontier.length > 0) {
        await this.frontierFile.append(b.frontier.join(''));
        this.frontierLines += b.frontier.length;
      }
      b.frontier = [];
      for (const [owner, lines] of b.handoffs) {
        await (await this.handoffFile(owner)).append(lines.join(''));
        b.handoffs.delete(owner);
      }
      if (this.pending !== null) {
        acked = await this.acknowledge(this.pending, b.items);
      } else if (b.items.length > 0) {
        await this.opts.beforeItems?.();
        await this.itemsFile.append(b.items.join(''));
        this.itemsLines += b.items.length;
        this.itemsFlushed += b.items.length;
      }
    } catch (e) {
      this.unwritten = b;
      if (grew) this.mark(); // what did get written (a frontier chunk before a failed items one)
      this.opts.onError?.(e as Error);
      throw e;
    }
    if (grew) this.mark();
    return acked;
  }

  /**
   * Record `items` in the pending file and send their acknowledgement (see {@link ItemsAck});
   * the lines acknowledged are written behind the chain.
   * @returns the write of the acknowledged lines (also of lines a failed write left), if any.
   * @throws the pending file's write error (nothing sent then).
   */
  private async acknowledge(
    pending: PendingItems,
    items: string[],
  ): Promise<{ written: Promise<void> } | undefined> {
    const ack = this.opts.ack as ItemsAck;
    await this.settle();
    if (items.length === 0) {
      return this.acked.length > 0 ? { written: this.writeAcked(Promise.resolve([]), []) } : undefined;
    }
    const batch = this.batches + 1;
    await pending.append(ack.tag, batch, this.itemsFile.bytes, items);
    this.batches = batch;
    this.awaiting++;
    // Recorded and sent: taken out of the write's batch (never recorded twice).
    const lines = items.splice(0);
    return { written: this.writeAcked(ack.acknowledge(lines.length, batch), lines) };
  }

  /** Write the lines of `items` the `answer` says were acknowledged, after those before them. */
  private writeAcked(answer: Promise<boolean[]>, items: string[]): Promise<void> {
    const written = this.itemsChain.then(async () => {
      let may: boolean[];
      try {
        may = await answer;
      } catch {
        // No answer (a refused write, a stop with the store away): resume settles these lines.
        this.keepPending = true;
        if (items.length > 0) this.awaiting--;
        return;
      }
      if (items.length > 0) this.awaiting--;
      const kept = items.filter((_l, i) => may[i] === true);
      this.itemsDropped += items.length - kept.length;
      this.acked = this.acked.concat(kept);
      if (this.acked.length > 0) {
        const lines = this.acked;
        try {
          await this.opts.beforeItems?.();
          await this.itemsFile.append(lines.join(''));
        } catch (e) {
          this.opts.onError?.(e as Error);
          throw e;
        }
        this.acked = [];
        this.itemsLines += lines.length;
        this.itemsFlushed += lines.length;
        this.mark();
      }
      // Every line recorded is written or dropped: the pending file is emptied (in the chain,
      // where the next batch is recorded).
      if (this.awaiting === 0) this.chain = this.chain.then(() => this.settle());
    });
    this.itemsChain = written.catch(() => {});
    return written;
  }

  /**
   * Empty the pending file once every line in it is in the items file or dropped, then tell the
   * backend (its records of those acknowledgements may go). A failure leaves the file as it is:
   * its lines are all written or dropped, which resume sees.
   */
  private async settle(): Promise<void> {
    const pending = this.pending;
    if (pending === null || pending.bytes === 0) return;
    if (this.awaiting > 0 || this.acked.length > 0 || this.keepPending) return;
    try {
      await pending.clear();
    } catch {
      return;
    }
    this.opts.ack?.settled();
  }

  /** What the files hold now, as the mark records it. */
  private sizes(): JournalMark {
    return {
      frontier: { bytes: this.frontierFile.bytes, lines: this.frontierLines },
      items: { bytes: this.itemsFile.bytes, lines: this.itemsLines },
    };
  }

  /**
   * Record the files' sizes in the mark, after the write that made them: one mark write at a
   * time, the latest sizes written once it is done (a mark never leads the files).
   */
  private mark(): void {
    if (this.marking !== null) {
      this.markAgain = true;
      return;
    }
    this.marking = writeJournalMark(this.opts.stateDir, this.sizes())
      .catch((e) => this.opts.onError?.(e as Error))
      .finally(() => {
        this.marking = null;
        if (this.markAgain) {
          this.markAgain = false;
          this.mark();
        }
      });
  }

  private async handoffFile(owner: number): Promise<AppendFile> {
    let f = this.handoffFiles.get(owner);
    if (f === undefined) {
      const file = handoffLogPath(this.opts.stateDir, owner);
      await repairTornTail(file);
      f = await AppendFile.open(file);
      this.handoffFiles.set(owner, f);
    }
    return f;
  }

  /**
   * Flush and close. Safe to call twice.
   * @throws the last flush's error (the files are closed all the same).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.opts.ack?.closing();
    try {
      await this.flush();
    } finally {
      // The acknowledged lines' writes, and the pending file emptied after them.
      await this.itemsChain;
      await this.chain;
      while (this.marking !== null) await this.marking;
      await this.frontierFile.close();
      await this.itemsFile.close();
      await this.pending?.close();
      for (const f of this.handoffFiles.values()) await f.close();
    }
  }
}

/** One line of the frontier or a handoff log (see the module comment). */
function logLine(url: string, depth: number, meta: RequestMeta | undefined): string {
  return meta === undefined ? `${depth}\t${url}\n` : `${depth}\t${url}\t${encodeRequestMeta(meta)}\n`;
}

/** Path of the log of URLs this worker handed to worker number `owner`. */
export function handoffLogPath(stateDir: string, owner: number): string {
  return path.join(stateDir, `handoff-${owner}.log`);
}

/**
 * Read back the URLs handed to `owner` (to send them again after the owner restarted; the
 * owner's seen-set drops those it already has). Lines are checked by `filter` (for owner
 * `owner`); rejected ones are counted there and skipped.
 */
export async function readHandoffs(
  stateDir: string,
  owner: number,
  onEntry: (url: string, depth: number, meta: RequestMeta | undefined) => void,
  filter: ReplayFilter = new ReplayFilter(),
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
    if (nl === start) continue;
    const e = filter.entry(text.slice(start, nl), owner);
    if (e !== null) onEntry(e.url, e.depth, e.meta);
  }
}

/** Complete (non-empty) lines of `file`; 0 when it does not exist. */
async function countLines(file: string): Promise<number> {
  let n = 0;
  await readLines(file, () => {
    n++;
  });
  return n;
}

/** What {@link recoverJournal} rebuilt. */
export interface RecoveredState {
  /**
   * URLs enqueued but not acknowledged, in enqueue order, each once, with their metadata: the
   * frontier to restore.
   */
  pending: Array<{ url: string; depth: number; meta?: RequestMeta }>;
  /** Items already written. */
  done: number;
  /** Bytes removed from torn tails. */
  repairedBytes: number;
  /** Frontier-log lines of URLs already done or listed before (skipped). */
  repeated: number;
  /** Complete lines of both files as read (after their torn tails were cut): for {@link Journal.open}. */
  lines: { frontier: number; items: number };
  /**
   * Files found shorter than the journal's mark says it wrote (journal-mark.ts): lines lost since
   * (truncated, emptied, replaced). Absent for a file that is whole, or without a mark.
   */
  lost: { frontier?: LogLoss; items?: LogLoss };
}

/**
 * Rebuild a worker's state after a stop or crash: frontier = enqueued minus done, each URL once.
 * Every `url` of an item, every accepted URL of the frontier log, and every `finalUrl` of an item
 * is added to `seen`. A frontier-log line whose URL is not already known is checked by `filter`
 * (depth, canonical URL, scope, ownership); rejected lines are counted there and skipped.
 * @param onItem called with each parsed item and its line (for counters and the content index).
 * @param onLine called first for every complete line of the items file, in order, also for lines
 *   skipped as unreadable (so line numbers and byte offsets can be tracked exactly).
 * @param filter checks frontier-log lines (default: structure and URL only).
 * @throws on I/O errors; a line of the items file that is not a JSON object with a `url` is skipped.
 */
export async function recoverJournal(
  opts: Pick<JournalOptions, 'stateDir' | 'itemsPath'>,
  seen: { add(s: string): boolean; has(s: string): boolean },
  onItem: (item: Record<string, unknown>, line: ItemsLine) => void,
  onLine?: (line: ItemsLine) => void,
  filter: ReplayFilter = new ReplayFilter(),
): Promise<RecoveredState> {
  const logPath = path.join(opts.stateDir, FRONTIER_LOG);
  const repairedBytes = (await repairTornTail(logPath)) + (await repairTornTail(opts.itemsPath));
  const mark = await readJournalMark(opts.stateDir);
  let itemsLines = 0;
  let frontierLines = 0;
  // Redirect targets join the seen-set only after the frontier log: a target listed there on its
  // own (the redirect was recorded as `redirectSeen`) is still pending unless it has its own item.
  const finalUrls: string[] = [];
  let done = 0;
  await readLinesWithPositions(opts.itemsPath, (line, at) => {
    itemsLines++;
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
    seen.add(item.url);
    if (typeof item.finalUrl === 'string' && item.finalUrl !== item.url) finalUrls.push(item.finalUrl);
    onItem(item, at);
  });
  const pending: RecoveredState['pending'] = [];
  let repeated = 0;
  // A labelled line for a URL listed before: the label a queued plain request took (a hub it
  // turned out to be, Crawler.label); applied below to the URL's pending entry, if it is one.
  const labels = new Map<string, RequestMeta>();
  await readLines(logPath, (line) => {
    frontierLines++;
    const e = filter.parse(line);
    if (e === null) return;
    // Done or listed before: skipped without the cost of a check (it is never fetched again).
    if (seen.has(e.url)) {
      repeated++;
      if (e.meta?.label !== undefined) labels.set(e.url, e.meta);
      return;
    }
    if (!filter.accept(e)) return;
    seen.add(e.url);
    pending.push(e);
  });
  if (labels.size > 0) {
    for (const p of pending) {
      const meta = p.meta === undefined ? labels.get(p.url) : undefined;
      if (meta !== undefined) p.meta = meta;
    }
  }
  for (const u of finalUrls) seen.add(u);
  const lost: RecoveredState['lost'] = {};
  if (mark !== null) {
    const frontier = lostFrom(mark.frontier, { bytes: await sizeOf(logPath), lines: frontierLines });
    const items = lostFrom(mark.items, { bytes: await sizeOf(opts.itemsPath), lines: itemsLines });
    if (frontier !== null) lost.frontier = frontier;
    if (items !== null) lost.items = items;
  }
  return {
    pending,
    done,
    repairedBytes,
    repeated,
    lines: { frontier: frontierLines, items: itemsLines },
    lost,
  };
}

/** Bytes of `file`; 0 when it does not exist. */
async function sizeOf(file: string): Promise<number> {
  try {
    return (await fs.stat(file)).size;
  } catch {
    return 0;
  }
}

export type { LogLoss, LogSize };
