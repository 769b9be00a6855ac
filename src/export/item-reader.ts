/**
 * Reading a data directory's items for export (DESIGN §4b): one stream over every worker's items
 * file in fetch order (fetch-order.ts), whole lines only — safe while a collector is running —
 * each page once, its newest version (newest-versions.ts: a first pass records each URL's newest
 * line, the second emits it), or every line with `allVersions`; filtered (item-filter.ts), with
 * the content as text when asked (item-text.ts). It never reads the crawl's state.
 */
import path from 'node:path';
import type { Item } from '../engine/item.js';
import { type DamagedLine, inFetchOrder } from './fetch-order.js';
import { type ItemFile, listItemFiles } from './item-files.js';
import { type ItemFilterOptions, itemFilter } from './item-filter.js';
import { isUnchanged, parseItemLine, type ScannedLine, scanItemLine } from './item-line.js';
import { ItemTextError, itemText, itemTextUtf8, StoredFileReader } from './item-text.js';
import { NewestVersions } from './newest-versions.js';

/** A guess at the fewest bytes of an item line, to size the newest-version table. */
const LINE_BYTES_LEAST = 500;

/** What to read. */
export interface ReadOptions extends ItemFilterOptions {
  /** Read each item's content as text (`text`; see item-text.ts). Default false. */
  withContent?: boolean;
  /**
   * With `withContent`, give a text that is stored as UTF-8 as its bytes (`text` a Uint8Array,
   * valid until the next record is taken: item-text.ts, itemTextUtf8), for a writer that writes
   * bytes. Default false: `text` is always a string.
   */
  utf8Text?: boolean;
  /** Every line of a page (each fetch), not only its newest version. Default false. */
  allVersions?: boolean;
  /** Told of each line skipped as damaged and each content file that could not be read. */
  onWarning?: (message: string) => void;
}

/** An item read for export. */
export interface ExportRecord {
  item: Item;
  /** `fetchedAt` in ms since the epoch. */
  at: number;
  /**
   * The content as text (null: none), with `withContent`; else undefined. With `utf8Text`, the
   * UTF-8 bytes of the text instead where they were read as such (valid until the next record).
   */
  text: string | Uint8Array | null | undefined;
}

/** Counts of a read, complete once its records are all taken. */
export interface ReadStats {
  /** Item files read. */
  files: number;
  /** Item lines read (damaged ones not counted). */
  lines: number;
  /** Lines skipped as damaged. */
  damaged: number;
  /** Items left out by the filters. */
  filteredOut: number;
  /** Older versions of pages left out (0 with `allVersions`). */
  olderVersions: number;
  /** Items whose content file could not be read (their text is null). */
  missingContent: number;
  /** Records given. */
  records: number;
}

/**
 * The items of a data directory (see the module comment). The files are listed when reading
 * starts; lines appended after that are not read.
 */
export class ItemReader {
  readonly stats: ReadStats = {
    files: 0,
    lines: 0,
    damaged: 0,
    filteredOut: 0,
    olderVersions: 0,
    missingContent: 0,
    records: 0,
  };

  /** @param dataDir the data directory (`--out` of a crawl, `data:` of a config). */
  constructor(
    private readonly dataDir: string,
    private readonly options: ReadOptions = {},
  ) {
    this.dataDir = path.resolve(dataDir);
  }

  /**
   * The records, in fetch order.
   * @throws on I/O errors reading the items files (an unreadable file; not a damaged line).
   */
  async *records(): AsyncGenerator<ExportRecord> {
    const { withContent = false, allVersions = false, utf8Text = false } = this.options;
    const files = utf8Text ? new StoredFileReader() : null;
    const warn = this.options.onWarning ?? (() => {});
    const itemFiles = await listItemFiles(this.dataDir);
    this.stats.files = itemFiles.length;
    const accept = itemFilter(this.options);
    const newest = allVersions ? null : await this.newestVersions(itemFiles, accept);
    const onDamaged: DamagedLine = (file, lineNo, why) => {
      this.stats.damaged++;
      warn(`${file.name} line ${lineNo}: ${why}: skipped`);
    };
    for await (const { parsed, file, lineNo, id } of inFetchOrder(itemFiles, parseItemLine, onDamaged)) {
      this.stats.lines++;
      if (accept !== null && !accept(parsed)) {
        this.stats.filteredOut++;
        continue;
      }
      if (newest !== null && !newest.isNewest(parsed.item.url, id)) {
        this.stats.olderVersions++;
        continue;
      }
      let text: string | Uint8Array | null | undefined;
      if (withContent) {
        try {
          text =
            files === null
              ? itemText(this.dataDir, parsed.item)
              : itemTextUtf8(this.dataDir, parsed.item, files);
        } catch (e) {
          if (!(e instanceof ItemTextError)) throw e;
          this.stats.missingContent++;
          warn(`${file.name} line ${lineNo}: content ${e.file}: ${e.message}`);
          text = null;
        }
      }
      this.stats.records++;
      yield { item: parsed.item, at: parsed.at, text };
    }
  }

  /**
   * The first pass: each URL's newest line among those `accept` takes. Without filters a line is
   * only scanned for its url, time and `unchanged` mark; with them it is parsed.
   */
  private async newestVersions(
    files: ItemFile[],
    accept: ReturnType<typeof itemFilter>,
  ): Promise<NewestVersions> {
    const scan =
      accept === null
        ? scanItemLine
        : (line: string): (ScannedLine & { accepted?: boolean }) | string => {
            const parsed = parseItemLine(line);
            if (typeof parsed === 'string') return parsed;
            const { item, at } = parsed;
            return { url: item.url, at, unchanged: isUnchanged(item), accepted: accept(parsed) };
          };
    // Item lines are rarely under 500 bytes: room for that many URLs, so the table seldom grows.
    const newest = new NewestVersions(files.reduce((n, f) => n + f.end, 0) / LINE_BYTES_LEAST);
    for await (const { parsed, id } of inFetchOrder(files, scan, () => {})) {
      if ('accepted' in parsed && !parsed.accepted) continue;
      newest.record(parsed.url, id, parsed.unchanged);
    }
    return newest;
  }
}
