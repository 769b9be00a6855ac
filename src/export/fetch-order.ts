/**
 * The items of every worker as one stream in fetch order: each worker's file in its own order
 * (the order its items were acknowledged), the files interleaved by `fetchedAt` — a k-way merge
 * that takes, each time, the next line of the file whose next line was fetched first (ties: the
 * file listed first, i.e. the lower worker id). The same files give the same order every time,
 * which the newest-version choice relies on (a line is known by its position in this order).
 */
import { type ItemFile, readLineBatches } from './item-files.js';
import { type ItemLine, parseItemLine } from './item-line.js';

/** A line in fetch order. */
export interface OrderedLine extends ItemLine {
  /** 0-based place of this item in the order (damaged lines take none). */
  position: number;
  file: ItemFile;
  /** 1-based line number in its file. */
  lineNo: number;
}

/** Told of each line that is not an item: its file, 1-based line number and why. */
export type DamagedLine = (file: ItemFile, lineNo: number, why: string) => void;

/** A file being read: its next item line (the head) and what is left of its current batch. */
interface Cursor {
  file: ItemFile;
  batches: AsyncGenerator<{ first: number; lines: string[] }>;
  lines: string[];
  first: number;
  next: number;
  head: ItemLine | null;
  headNo: number;
}

/**
 * The item lines of `files` in fetch order (see the module comment). Damaged lines are skipped
 * and told to `onDamaged`; lines past each file's listed end are not read.
 * @throws on I/O errors reading the files.
 */
export async function* inFetchOrder(
  files: readonly ItemFile[],
  onDamaged: DamagedLine,
): AsyncGenerator<OrderedLine> {
  const cursors: Cursor[] = files.map((file) => ({
    file,
    batches: readLineBatches(file),
    lines: [],
    first: 1,
    next: 0,
    head: null,
    headNo: 0,
  }));
  try {
    for (const c of cursors) await advance(c, onDamaged);
    let live = cursors.filter((c) => c.head !== null);
    let position = 0;
    while (live.length > 0) {
      let c = live[0];
      for (let i = 1; i < live.length; i++) if (live[i].head!.at < c.head!.at) c = live[i];
      const { item, at } = c.head!;
      yield { item, at, position: position++, file: c.file, lineNo: c.headNo };
      await advance(c, onDamaged);
      if (c.head === null) live = live.filter((x) => x !== c);
    }
  } finally {
    for (const c of cursors) await c.batches.return(undefined);
  }
}

/** Move `c` to its file's next item line (head null at the end), telling of damaged ones. */
async function advance(c: Cursor, onDamaged: DamagedLine): Promise<void> {
  for (;;) {
    while (c.next < c.lines.length) {
      const lineNo = c.first + c.next;
      const parsed = parseItemLine(c.lines[c.next++]);
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
