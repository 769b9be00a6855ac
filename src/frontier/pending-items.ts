/**
 * The pending items file of a shared crawl (`state/<worker>/items-pending.log`): the item lines a
 * machine is acknowledging in the shared store, recorded before the acknowledgement is sent, so
 * that a crash between the acknowledgement and the items file never loses an item. One line per
 * item, `<tag>\t<batch>\t<itemsBytes>\t<item JSON>`: the tag names the acknowledgements (the
 * machine id they were made under: a restarted process is a new machine), the batch the
 * acknowledgement it went in, and `itemsBytes` how long the items file was when it was recorded
 * (the line, if written, is after that). Append-only; emptied (truncated to 0, one atomic step)
 * once every line in it is in the items file or dropped. At resume a line is written to the items
 * file when the shared store says its acknowledgement was made, and dropped otherwise; each line
 * is validated (a torn last line cut, a damaged one named by file and line and skipped).
 */
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { AppendFile } from './append-file.js';
import { readLinesWithPositions, repairTornTail } from './log-lines.js';

/** Name of the pending items file inside a worker's state dir. */
export const PENDING_ITEMS = 'items-pending.log';

/** One line of the pending items file, as read back. */
export interface PendingLine {
  /** The tag of the acknowledgement (the machine id). */
  tag: string;
  /** The batch the acknowledgement went in (a positive integer, per tag). */
  batch: number;
  /** Bytes of the items file when the line was recorded. */
  itemsBytes: number;
  /** The URL of the item. */
  url: string;
  /** The item line, without its newline, exactly as it goes to the items file. */
  json: string;
}

/** What {@link readPendingItems} found. */
export interface PendingRead {
  lines: PendingLine[];
  /** Bytes of a torn last line cut off (a kill during its write); 0 when none. */
  tornBytes: number;
  /** 1-based numbers of the complete lines that are damaged (skipped). */
  damaged: number[];
}

const NUMBER = /^\d{1,15}$/;

/**
 * Parse one line (without its newline). @returns null when it is damaged: not four tab-separated
 * fields, a batch or size that is not a number, or an item that is not a JSON object with a `url`.
 */
export function parsePendingLine(line: string): PendingLine | null {
  const t1 = line.indexOf('\t');
  const t2 = t1 < 0 ? -1 : line.indexOf('\t', t1 + 1);
  const t3 = t2 < 0 ? -1 : line.indexOf('\t', t2 + 1);
  if (t1 <= 0 || t3 < 0) return null;
  const batch = line.slice(t1 + 1, t2);
  const bytes = line.slice(t2 + 1, t3);
  if (!NUMBER.test(batch) || !NUMBER.test(bytes) || Number(batch) === 0) return null;
  const json = line.slice(t3 + 1);
  let item: unknown;
  try {
    item = JSON.parse(json);
  } catch {
    return null;
  }
  const url = (item as { url?: unknown } | null)?.url;
  if (typeof item !== 'object' || Array.isArray(item) || typeof url !== 'string') return null;
  return { tag: line.slice(0, t1), batch: Number(batch), itemsBytes: Number(bytes), url, json };
}

/**
 * Read back the pending items file, after cutting a torn last line. A missing file has no lines.
 * @throws on I/O errors (SymlinkRefused when the file is a symbolic link).
 */
export async function readPendingItems(file: string): Promise<PendingRead> {
  const tornBytes = await repairTornTail(file);
  const lines: PendingLine[] = [];
  const damaged: number[] = [];
  let n = 0;
  await readLinesWithPositions(file, (text) => {
    n++;
    if (text.length === 0) return;
    const line = parsePendingLine(text);
    if (line === null) damaged.push(n);
    else lines.push(line);
  });
  return { lines, tornBytes, damaged };
}

/** The pending items file, open for appending (one writer: the journal, which chains its writes). */
export class PendingItems {
  private constructor(private readonly file: AppendFile) {}

  /**
   * Open (creating) `file` for appending, after cutting a torn last line.
   * @throws SymlinkRefused when `file` is a link; fs errors.
   */
  static async open(file: string): Promise<PendingItems> {
    await repairTornTail(file);
    return new PendingItems(await AppendFile.open(file));
  }

  /** Bytes in the file. */
  get bytes(): number {
    return this.file.bytes;
  }

  /**
   * Record `items` (item lines, each ending in a newline) as batch `batch` of acknowledgements
   * tagged `tag`, the items file being `itemsBytes` long. All or nothing (see AppendFile).
   * @throws the write's error (e.g. ENOSPC), the file left as it was.
   */
  async append(tag: string, batch: number, itemsBytes: number, items: string[]): Promise<void> {
    const head = `${tag}\t${batch}\t${itemsBytes}\t`;
    await this.file.append(head + items.join(head));
  }

  /**
   * Empty the file (one truncate: a crash leaves it whole or empty). Call only when every line in
   * it is in the items file or dropped. @throws fs errors.
   */
  async clear(): Promise<void> {
    await this.file.truncate();
  }

  async close(): Promise<void> {
    await this.file.close();
  }
}

/**
 * Which of the lines `wanted` (texts without newlines) `itemsFile` holds from byte `from` on (from
 * its start when it is shorter than that: it lost lines). Streamed: the file is never held whole.
 */
export async function linesFoundIn(
  itemsFile: string,
  from: number,
  wanted: Set<string>,
): Promise<Set<string>> {
  const found = new Set<string>();
  let size = 0;
  try {
    size = (await fs.stat(itemsFile)).size;
  } catch {
    return found;
  }
  const start = from <= size ? from : 0;
  const input = createReadStream(itemsFile, { encoding: 'utf8', start });
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (wanted.has(line)) found.add(line);
  }
  return found;
}

/** The shared store's record of the acknowledgements made (what resume asks). */
export interface AckRecords {
  /**
   * Per pending line, whether its acknowledgement was made (its item is due).
   * @throws when the store cannot say.
   */
  acknowledged(lines: PendingLine[]): Promise<boolean[]>;
  /** The pending lines of these tags are settled: the records of their acknowledgements may go. */
  forget(tags: string[]): Promise<void>;
}

/** What {@link settlePendingItems} did. */
export interface PendingSettled {
  /** Lines whose acknowledgement was made, written to the items file now. */
  promoted: number;
  /** Lines whose acknowledgement was never made (their URLs are fetched again): dropped. */
  dropped: number;
  /** Lines already in the items file (a crash after their write, before the file was emptied). */
  written: number;
  /** Bytes of a torn last line cut off. */
  tornBytes: number;
  /** 1-based numbers of damaged lines, skipped. */
  damaged: number[];
}

/**
 * At resume, before the items file is read back: settle the pending items file of `stateDir`.
 * A line already in the items file (after the size it records) is left; of the others, those
 * `store` says were acknowledged are appended to `itemsPath` (the item is this machine's: no
 * other machine fetches it again), the rest dropped (never acknowledged: the URL is leased,
 * queued or done elsewhere, and the crawl fetches it). Then the store forgets the records of the
 * file's tags and the file is emptied, in that order: a crash at any point leaves a state that
 * this function settles again the same way.
 * @throws on I/O errors and when the store cannot answer (the file is then left as it was).
 */
export async function settlePendingItems(
  stateDir: string,
  itemsPath: string,
  store: AckRecords,
): Promise<PendingSettled> {
  const file = path.join(stateDir, PENDING_ITEMS);
  const read = await readPendingItems(file);
  const settled: PendingSettled = {
    promoted: 0,
    dropped: 0,
    written: 0,
    tornBytes: read.tornBytes,
    damaged: read.damaged,
  };
  if (read.lines.length === 0 && read.damaged.length === 0) return settled;
  const from = Math.min(...read.lines.map((l) => l.itemsBytes));
  const wanted = new Set(read.lines.map((l) => l.json));
  const there = read.lines.length > 0 ? await linesFoundIn(itemsPath, from, wanted) : new Set<string>();
  const open = read.lines.filter((l) => !there.has(l.json));
  settled.written = read.lines.length - open.length;
  const made = open.length > 0 ? await store.acknowledged(open) : [];
  const due = open.filter((_l, i) => made[i] === true);
  settled.promoted = due.length;
  settled.dropped = open.length - due.length;
  if (due.length > 0) {
    await fs.mkdir(path.dirname(itemsPath), { recursive: true });
    await repairTornTail(itemsPath);
    const items = await AppendFile.open(itemsPath);
    try {
      await items.append(due.map((l) => `${l.json}\n`).join(''));
    } finally {
      await items.close();
    }
  }
  await store.forget([...new Set(read.lines.map((l) => l.tag))]);
  const pending = await PendingItems.open(file);
  try {
    await pending.clear();
  } finally {
    await pending.close();
  }
  return settled;
}
