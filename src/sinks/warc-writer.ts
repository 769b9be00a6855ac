/**
 * The WARC files of one worker: `<out>/warc/<worker>-<seq>.warc.gz`, records appended whole (each
 * a gzip member) with a CDXJ line per response or revisit in `<worker>-<seq>.cdxj` beside it, a
 * new file once one passes its size limit. The writer follows the item log's rule: a record
 * exists iff its item does. The records of an item are appended (synchronously, in one write)
 * just before its item line, which names where they are; at resume each file is cut back to the
 * end of the last records an item names, so what a killed process appended without an item is
 * gone, and files no item names are removed. A failed write (a full disk) is cut back too; the
 * writer then refuses every later write, so the file never has a torn record in its middle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from './atomic-file.js';
import { APPEND_NO_FOLLOW, NoFollowDirs, refusedLink } from './no-follow.js';
import { type CdxEntry, cdxjLine, gzipRecord, type RecordParts, recordId, warcDate } from './warc-record.js';

/** Where an item's records are: `file` relative to `<out>`, the byte range of its gzip members. */
export interface WarcLocation {
  file: string;
  offset: number;
  length: number;
}

/** One record to append: its gzip member, and what its CDXJ line says (responses and revisits). */
export interface WarcAppend {
  bytes: Buffer;
  cdx?: Omit<CdxEntry, 'offset' | 'length' | 'filename'>;
}

/** Settings of a {@link WarcWriter}. */
export interface WarcWriterOptions {
  /** The `--out` dir; files go to `<outDir>/warc/`. */
  outDir: string;
  /** Worker id: names its files (`<worker>-<seq>.warc.gz`). */
  worker: string;
  /** A file is closed once it holds this many bytes or more (`--warc-max-size`). */
  maxSize: number;
  /** The fields of the `warcinfo` record written first in each file and each session. */
  info: Array<[string, string]>;
}

/** What resume found and did to the WARC files (for the log). */
export interface WarcRepair {
  /** Bytes cut from the ends of files (records without an item). */
  cutBytes: number;
  /** Files removed (no item names a record in them). */
  removedFiles: string[];
  /** Files whose end is short of what an item names (records lost with the machine's cache). */
  shortFiles: string[];
}

/** The WARC folder under `<out>`. */
export const WARC_DIR = 'warc';

const SEQ_DIGITS = 5;

/** File name of sequence `seq`: `<worker>-00000.warc.gz`. */
export function warcFileName(worker: string, seq: number): string {
  return `${worker}-${String(seq).padStart(SEQ_DIGITS, '0')}.warc.gz`;
}

/** The CDXJ index beside a WARC file: `<worker>-00000.cdxj`. */
export function cdxjFileOf(warcFile: string): string {
  return warcFile.replace(/\.warc\.gz$/, '.cdxj');
}

/** The open file: its path, descriptors and size. */
interface OpenFile {
  seq: number;
  name: string;
  fd: number;
  cdxFd: number;
  size: number;
  cdxSize: number;
}

/** The WARC files of one worker (see the module comment). */
export class WarcWriter {
  private current: OpenFile | null = null;
  /** The id of the warcinfo record the next records point to (written before them when pending). */
  private info = recordId();
  private infoPending = true;
  private broken: Error | null = null;
  private readonly dir: string;

  private constructor(
    private readonly opts: WarcWriterOptions,
    /** Sequence number of the file the next records go to. */
    private seq: number,
  ) {
    this.dir = path.join(opts.outDir, WARC_DIR);
  }

  /**
   * Open the writer. On resume, the worker's files are repaired first: each cut back to the end
   * of the records its items name (`ends`: file relative to `<out>` → end offset), its CDXJ lines
   * past that dropped; files no item names removed. Records then go on at the end of the last file
   * (after a new warcinfo record) while it is under the size limit.
   * @param ends null for a fresh crawl.
   * @throws on I/O errors.
   */
  static open(
    opts: WarcWriterOptions,
    ends: ReadonlyMap<string, number> | null,
  ): { writer: WarcWriter; repair: WarcRepair } {
    const dir = path.join(opts.outDir, WARC_DIR);
    // never through a link below <out> (no-follow.ts)
    new NoFollowDirs(opts.outDir).ensureSync(path.resolve(dir));
    const repair: WarcRepair = { cutBytes: 0, removedFiles: [], shortFiles: [] };
    let last = -1;
    const pattern = new RegExp(`^${escapeRegExp(opts.worker)}-(\\d{${SEQ_DIGITS}})\\.warc\\.gz$`);
    for (const name of fs.readdirSync(dir).sort()) {
      const m = pattern.exec(name);
      if (m === null) continue;
      const seq = Number(m[1]);
      const file = path.join(dir, name);
      const end = ends?.get(`${WARC_DIR}/${name}`);
      if (end === undefined) {
        if (ends === null) {
          last = Math.max(last, seq); // a fresh crawl into a dir with files: never overwrite them
          continue;
        }
        fs.rmSync(file, { force: true });
        fs.rmSync(cdxjFileOf(file), { force: true });
        repair.removedFiles.push(`${WARC_DIR}/${name}`);
        continue;
      }
      last = Math.max(last, seq);
      const size = fs.statSync(file).size;
      if (size > end) {
        fs.truncateSync(file, end);
        repair.cutBytes += size - end;
      } else if (size < end) repair.shortFiles.push(`${WARC_DIR}/${name}`);
      trimIndex(cdxjFileOf(file), end);
    }
    const writer = new WarcWriter(opts, Math.max(0, last));
    if (last >= 0 && ends !== null) {
      const size = fileSize(path.join(dir, warcFileName(opts.worker, last)));
      // The last file goes on (after a warcinfo of this session) while under the limit.
      if (size >= opts.maxSize) writer.seq = last + 1;
    } else if (last >= 0) writer.seq = last + 1;
    return { writer, repair };
  }

  /** The `WARC-Warcinfo-ID` the next records are to carry. */
  get warcinfoId(): string {
    return this.info;
  }

  /**
   * Append the records of one item in one write (after a warcinfo record when this file or
   * session has none yet), then their CDXJ lines.
   * @returns where the item's records are (the warcinfo record is not part of it).
   * @throws the write's error (ENOSPC...) after cutting the files back; every later call throws
   *   it too.
   */
  append(records: WarcAppend[]): WarcLocation {
    if (this.broken) throw this.broken;
    const f = this.current ?? this.openFile();
    const parts: Buffer[] = [];
    let offset = f.size;
    if (this.infoPending) {
      const info = this.warcinfo(f.name);
      parts.push(info);
      offset += info.length;
    }
    const start = offset;
    let cdx = '';
    for (const r of records) {
      parts.push(r.bytes);
      if (r.cdx !== undefined) {
        cdx += `${cdxjLine({ ...r.cdx, offset, length: r.bytes.length, filename: f.name })}\n`;
      }
      offset += r.bytes.length;
    }
    const data = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    try {
      writeAll(f.fd, data);
      if (cdx !== '') writeAll(f.cdxFd, Buffer.from(cdx, 'utf8'));
    } catch (e) {
      this.fail(f, e as NodeJS.ErrnoException);
    }
    f.size += data.length;
    f.cdxSize += Buffer.byteLength(cdx);
    this.infoPending = false;
    const location = { file: `${WARC_DIR}/${f.name}`, offset: start, length: offset - start };
    if (f.size >= this.opts.maxSize) this.closeFile();
    return location;
  }

  /**
   * Close the open file: its CDXJ index is sorted (SURT key, then timestamp), as replay tools
   * need, and replaced atomically.
   */
  close(): void {
    this.closeFile();
  }

  private openFile(): OpenFile {
    const name = warcFileName(this.opts.worker, this.seq);
    const file = path.join(this.dir, name);
    // A link there (planted while it ran) is refused, never appended through.
    let fd: number;
    try {
      fd = fs.openSync(file, APPEND_NO_FOLLOW, 0o666);
    } catch (e) {
      throw refusedLink(e, file, this.opts.outDir);
    }
    let cdxFd: number;
    try {
      cdxFd = fs.openSync(cdxjFileOf(file), APPEND_NO_FOLLOW, 0o666);
    } catch (e) {
      fs.closeSync(fd);
      throw refusedLink(e, cdxjFileOf(file), this.opts.outDir);
    }
    this.current = {
      seq: this.seq,
      name,
      fd,
      cdxFd,
      size: fs.fstatSync(fd).size,
      cdxSize: fs.fstatSync(cdxFd).size,
    };
    return this.current;
  }

  private closeFile(): void {
    const f = this.current;
    if (f === null) return;
    this.current = null;
    fs.closeSync(f.fd);
    fs.closeSync(f.cdxFd);
    this.seq = f.seq + 1;
    this.info = recordId();
    this.infoPending = true;
    if (this.broken !== null) return;
    try {
      sortIndex(cdxjFileOf(path.join(this.dir, f.name)));
    } catch {
      // Left in write order (a full disk...): docs/warc.md says how to sort it.
    }
  }

  /** A write failed: cut both files back to before it, refuse every later write, throw. */
  private fail(f: OpenFile, e: NodeJS.ErrnoException): never {
    try {
      fs.ftruncateSync(f.fd, f.size);
      fs.ftruncateSync(f.cdxFd, f.cdxSize);
    } catch {
      // The torn tail stays; resume cuts it (no item names it).
    }
    const error = Object.assign(e, { path: e.path ?? path.join(this.dir, f.name) });
    this.broken = error;
    throw error;
  }

  /** The warcinfo record of this file and session: software, format and the crawl's settings. */
  private warcinfo(filename: string): Buffer {
    let block = '';
    for (const [k, v] of this.opts.info) block += `${k}: ${v.replace(/[\r\n]+/g, ' ')}\r\n`;
    const r: RecordParts = {
      fields: [
        ['WARC-Type', 'warcinfo'],
        ['WARC-Record-ID', this.info],
        ['WARC-Date', warcDate(Date.now())],
        ['WARC-Filename', filename],
        ['Content-Type', 'application/warc-fields'],
      ],
      block: [Buffer.from(block, 'utf8')],
    };
    return gzipRecord(r);
  }
}

function writeAll(fd: number, data: Buffer): void {
  let done = 0;
  while (done < data.length) done += fs.writeSync(fd, data, done, data.length - done);
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The offset a CDXJ line names, or -1 when the line is not a whole, valid one. */
function lineOffset(line: string): number {
  const brace = line.indexOf('{');
  if (brace < 0) return -1;
  try {
    const o = JSON.parse(line.slice(brace)) as { offset?: unknown };
    const n = Number(o.offset);
    return typeof o.offset === 'string' && Number.isSafeInteger(n) ? n : -1;
  } catch {
    return -1;
  }
}

/** Keep the CDXJ lines of records before `end` (whole lines only); replaced atomically if changed. */
function trimIndex(file: string, end: number): void {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return;
  }
  // The last piece is '' after a final newline, or a torn line: dropped either way.
  const kept = text
    .split('\n')
    .slice(0, -1)
    .filter((l) => {
      const o = lineOffset(l);
      return o >= 0 && o < end;
    });
  const out = kept.length === 0 ? '' : `${kept.join('\n')}\n`;
  if (out !== text) writeFileAtomicSync(file, out);
}

/** Sort a CDXJ file by its lines' bytes (SURT key, then timestamp), replaced atomically. */
function sortIndex(file: string): void {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return;
  }
  const lines = text.split('\n').filter((l) => l.length > 0);
  const sorted = lines
    .map((l) => Buffer.from(l, 'utf8'))
    .sort(Buffer.compare)
    .map((b) => b.toString('utf8'));
  const out = sorted.length === 0 ? '' : `${sorted.join('\n')}\n`;
  if (out !== text) writeFileAtomicSync(file, out);
}
