/**
 * The items of every worker as one stream in fetch order: each worker's file in its own order
 * (the order its items were acknowledged), the files interleaved by `fetchedAt` — a k-way merge
 * that takes, each time, the next line of the file whose next line was fetched first (ties: the
 * file listed first, i.e. the lower worker id). The same files give the same order every time.
 */
import { type ItemFile, type LineBatch, readLineBatches } from './item-files.js';

/** A line in fetch order, as `parse` read it. */
export interface OrderedLine<T> {
  parsed: T;
  file: ItemFile;
  /** 1-based line number in its file. */
  lineNo: number;
  /**
   * The line's id among all the files' lines: `lineNo × files + index of its file`, the same
   * whichever lines around it are damaged.
   */
  id: number;
}

/** Reads a line: what the merge orders by (`at`, ms) and the caller wants, or why it is damaged. */
export type LineParser<T extends { at: number }> = (line: string) => T | string;

/** Told of each line that is not an item: its file, 1-based line number and why. */
export type DamagedLine = (file: ItemFile, lineNo: number, why: string) => void;

/** A file being read: its next item line (the head) and what is left of its current batch. */
interface Cursor<T> {
  file: ItemFile;
  index: number;
  batches: AsyncGenerator<LineBatch>;
  lines: string[];
  first: number;
  next: number;
  head: T | null;
  headNo: number;
}

/**
 * The lines of `files` in fetch order (see the module comment), read by `parse`. Damaged lines
 * are skipped and told to `onDamaged`; lines past each file's listed end are not read.
 * @throws on I/O errors reading the files.
 */
export async function* inFetchOrder<T extends { at: number }>(
  files: readonly ItemFile[],
  parse: LineParser<T>,
  onDamaged: DamagedLine,
): AsyncGenerator<OrderedLine<T>> {
  const cursors: Cursor<T>[] = files.map((file, index) => ({
    file,
    index,
    batches: readLineBatches(file),
    lines: [],
    first: 1,
    next: 0,
    head: null,
    headNo: 0,
  }));
  const count = files.length;
  try {
    for (const c of cursors) await advance(c, parse, onDamaged);
    let live = cursors.filter((c) => c.head !== null);
    while (live.length > 0) {
      let c = live[0];
      for (let i = 1; i < live.length; i++) if (live[i].head!.at < c.head!.at) c = live[i];
      yield { parsed: c.head!, file: c.file, lineNo: c.headNo, id: c.headNo * count + c.index };
      await advance(c, parse, onDamaged);
      if (c.head === null) live = live.filter((x) => x !== c);
    }
  } finally {
    for (const c of cursors) await c.batches.return(undefined);
  }
}

/** Move `c` to its file's next item line (head null at the end), telling of damaged ones. */
async function advance<T extends { at: number }>(
  c: Cursor<T>,
  parse: LineParser<T>,
  onDamaged: DamagedLine,
): Promise<void> {
  for (;;) {
    while (c.next < c.lines.length) {
      const lineNo = c.first + c.next;
      const parsed = parse(c.lines[c.next++]);
      if (typeof parsed === 'string') {
        onDamaged(c.file, lineNo, parsed);
        continue;
      }
      c.head = parsed;
      c.headNo = lineNo;
      return;
    }
    const batch = await c.batches.next();
    if (batch.done) {
      c.head = null;
      c.lines = [];
      return;
    }
    c.lines = batch.value.lines;
    c.first = batch.value.first;
    c.next = 0;
  }
}
