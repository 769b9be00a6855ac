/**
 * Revisits in continuous collection (`interval`): what is known of each page this worker fetched
 * (validators, body hash, version, adaptive interval: `frontier/revisit-policy.ts`), which known
 * pages a round fetches again (due by `revisit`, or changed by a source's `lastmod`), with which
 * conditional headers, and what each item then says (`data.version`, `data.round`,
 * `data.unchanged`). Hubs (round requests: seeds, feeds, sitemaps) are asked for conditionally
 * too: each hub's record keeps the every-round requests it led to, so that a 304 leads to them
 * again as an unchanged body does. Each hub's dates are judged (see {@link DATE_TRUST}): a hub
 * whose `lastmod`s say "changed" for pages found unchanged is no longer believed. Records are kept in `state/<worker>/revisits.log`, append-only, replayed at
 * `--resume` keeping each URL's last valid line. Each round appends a line per page fetched, so
 * the log is compacted (one line per known page, replaced atomically) when it holds more than
 * twice as many lines as pages known: at resume, and as it grows.
 */
import path from 'node:path';
import type { Logger } from 'pino';
import { AppendFile } from '../frontier/append-file.js';
import { readLines, repairTornTail } from '../frontier/log-lines.js';
import { parseRequestMeta, type RequestMeta } from '../frontier/request-meta.js';
import {
  CLOCK_SKEW_MS,
  decodeRecord,
  encodeRecord,
  type PageRecord,
  type RevisitPolicy,
} from '../frontier/revisit-policy.js';
import { writeLinesAtomic } from '../sinks/atomic-file.js';
import type { EngineRequest } from '../sources/request.js';
import { isUnchangedSince } from '../sources/sitemap-round.js';
import { canonicalize } from '../url/canonicalize.js';
import type { Item } from './item.js';

/** Record lines buffered before they are appended (they are also appended every `flushMs`). */
const FLUSH_LINES = 50;

/** Longest wait of a record line in memory, ms. */
const FLUSH_MS = 500;

/** Fewest lines in the log before it is compacted (default of `RevisitParts.compactMinLines`). */
export const COMPACT_MIN_LINES = 10_000;

/**
 * When a hub's dates are no longer believed: after {@link DATE_TRUST}.lies pages it dated as
 * changed since our last fetch were found unchanged (a 304 or the same body hash), and more than
 * `ratio` times as many as it dated truly. Its pages' `lastmod`s are then ignored: they are
 * fetched again by `revisit` alone.
 */
export const DATE_TRUST = { lies: 3, ratio: 2 } as const;

/** How a hub's dates have held up: pages it dated as changed, found unchanged (`lies`) or changed. */
export interface DateTrust {
  lies: number;
  truths: number;
  /** Its dates are ignored (said once in the log). */
  untrusted: boolean;
}

/** A page known to this worker: its record, and how to ask for it again. */
interface Known {
  record: PageRecord;
  depth: number;
  meta: RequestMeta | undefined;
  /**
   * A hub: the every-round requests its current version led to (re-used on a 304). Absent for
   * other pages, and for a hub known from before these were kept (it is then read whole once).
   */
  links?: EngineRequest[];
  /** A hub whose pages carried dates: how they held up. */
  dates?: DateTrust;
  /** The canonical URL the page stated, when another (its claim: `canonicals.ts`). */
  canonical?: string;
}

/** What the revisits work with. */
export interface RevisitParts {
  policy: RevisitPolicy;
  /** `<out>/state/<worker>`. */
  stateDir: string;
  log: Logger;
  /**
   * The log is compacted when it holds more lines than this and than twice the pages known
   * (default {@link COMPACT_MIN_LINES}).
   */
  compactMinLines?: number;
  /** Told once when a hub's dates stop being believed (the log and the status say so). */
  untrustedDates?(hub: string, trust: DateTrust): void;
}

/** The revisits of one worker (see the module comment). Made with the crawler, opened at start. */
export class Revisits {
  /** The round in progress (set by the crawler when a round starts). */
  round = 0;
  private readonly known = new Map<string, Known>();
  /** URLs queued as revisits: their next request carries the conditional headers. */
  private readonly conditional = new Set<string>();
  /** Validators of the responses whose item is not written yet. */
  private readonly validators = new WeakMap<
    Item,
    { etag: string | null; lastModified: string | null; date: string | null }
  >();
  private lines: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private file: AppendFile | null = null;
  /** The log's path while open. */
  private path: string | null = null;
  private writeFailed: (e: Error) => void = () => {};
  /** Hub links of the responses whose item is not written yet. */
  private readonly hubLinks = new WeakMap<Item, EngineRequest[]>();
  /** Pages queued because a hub dated them as changed: URL → that hub. */
  private readonly datedBy = new Map<string, string>();
  /** Lines in the log file (read back, appended, or written by a compaction). */
  private fileLines = 0;
  /** The log is not compacted before it holds this many lines (raised after a failed try). */
  private compactFloor: number;

  constructor(private readonly parts: RevisitParts) {
    this.compactFloor = parts.compactMinLines ?? COMPACT_MIN_LINES;
  }

  /**
   * Open the record log; on resume, read it back first (a torn last line is cut, a damaged line
   * is skipped and counted in one warning).
   * @param writeFailed told when a record cannot be written (a full disk...).
   * @throws on I/O errors.
   */
  async open(resume: boolean, writeFailed: (e: Error) => void): Promise<void> {
    const file = path.join(this.parts.stateDir, 'revisits.log');
    this.writeFailed = writeFailed;
    if (resume) {
      let damaged = 0;
      await repairTornTail(file);
      await readLines(file, (line) => {
        this.fileLines++;
        const k = decodeKnown(line);
        if (k === null) damaged++;
        else this.known.set(k.record.url, k);
      });
      if (damaged > 0) this.parts.log.warn({ file, damaged }, 'damaged revisit records skipped');
      if (this.wantsCompaction()) await this.compact(file);
    }
    this.file = await AppendFile.open(file);
    this.path = file;
  }

  /** Pages known. */
  get size(): number {
    return this.known.size;
  }

  /**
   * Whether a page a source says changed at `lastmod` (epoch ms) changed since our last fetch:
   * true or false when it was fetched here, undefined when it never was.
   */
  changedSince(url: string, lastmod: number): boolean | undefined {
    const k = this.known.get(url);
    if (k === undefined) return undefined;
    // The version we have is as new as its fetch, or as its own Last-Modified when that is later:
    // a page fetched within the second it was published (lastmod and Last-Modified are whole
    // seconds) is not new again when a sitemap gives that second.
    // A Last-Modified far in the future (a lie, a wrong clock) says nothing of when it changed.
    const lastModified = k.record.lastModified === null ? Number.NaN : Date.parse(k.record.lastModified);
    const asOf =
      Number.isNaN(lastModified) || lastModified > k.record.fetchedAt + CLOCK_SKEW_MS
        ? k.record.fetchedAt
        : Math.max(k.record.fetchedAt, lastModified);
    return !isUnchangedSince(lastmod, asOf);
  }

  /** `url` is queued again as a revisit: its next request is conditional. */
  markConditional(url: string): void {
    if (this.known.get(url)?.record.sha256 != null) this.conditional.add(url);
  }

  /**
   * The conditional headers (`If-None-Match`, or `If-Modified-Since`: `RevisitPolicy`) of a
   * request of `url` queued as a revisit, or of a hub whose links are known (a 304 leads to them
   * again: {@link linksOf}); undefined for any other request.
   */
  headersFor(url: string): Record<string, string> | undefined {
    const k = this.known.get(url);
    if (!this.conditional.has(url) && k?.links === undefined) return undefined;
    const headers = this.parts.policy.conditionalHeaders(k?.record);
    return Object.keys(headers).length > 0 ? headers : undefined;
  }

  /** Whether `url` was fetched and its body stored here (a version is held). */
  collected(url: string): boolean {
    return (this.known.get(url)?.record.sha256 ?? null) !== null;
  }

  /** The canonical URLs pages stated (when another URL than their own), in the order first known. */
  *canonicalClaims(): Generator<[url: string, canonical: string]> {
    for (const [url, k] of this.known) if (k.canonical !== undefined) yield [url, k.canonical];
  }

  /** The every-round requests hub `url` led to when it was last read (for its 304), or undefined. */
  linksOf(url: string): EngineRequest[] | undefined {
    return this.known.get(url)?.links;
  }

  /**
   * The response of hub `item` (a 2xx round request) led to these every-round requests: kept
   * with its record when the item is written.
   */
  noteHubLinks(item: Item, links: EngineRequest[]): void {
    this.hubLinks.set(item, links);
  }

  /**
   * The requests a hub's response (`hub`, its URL) leads to, as its dates deserve: with their
   * `lastmod` dropped when the hub's dates are not believed (see {@link DATE_TRUST}); otherwise
   * as they are, each page a `lastmod` says changed since our fetch being noted, to judge the
   * hub's dates by what that fetch finds.
   */
  readDates(hub: string, links: EngineRequest[]): EngineRequest[] {
    if (this.known.get(hub)?.dates?.untrusted === true) {
      return links.map((l) => {
        if (typeof l === 'string' || l.meta.lastmod === undefined) return l;
        const { lastmod: _, ...meta } = l.meta;
        return Object.keys(meta).length > 0 ? { url: l.url, meta } : l.url;
      });
    }
    for (const l of links) {
      if (typeof l === 'string' || l.meta.lastmod === undefined) continue;
      if (this.changedSince(l.url, l.meta.lastmod) === true) this.datedBy.set(l.url, hub);
    }
    return links;
  }

  /**
   * A round starts: the known pages due for a revisit at `now` (epoch ms) are offered to `queue`
   * with their depth and metadata; those it takes are asked for conditionally.
   */
  startRound(
    round: number,
    queue: (url: string, depth: number, meta: RequestMeta | undefined) => boolean,
    now = Date.now(),
  ): void {
    this.round = round;
    for (const [url, k] of this.known) {
      // Hubs go every round anyway, read whole; pages due are asked for conditionally.
      if (k.meta?.everyRound === true || !this.parts.policy.isDue(k.record, now)) continue;
      if (queue(url, k.depth, k.meta)) this.markConditional(url);
    }
  }

  /** The response of `item` had these headers (its validators are kept until the item is written). */
  noteResponse(item: Item, headers: Record<string, string | string[] | undefined>): void {
    this.validators.set(item, {
      etag: firstHeader(headers.etag),
      lastModified: firstHeader(headers['last-modified']),
      date: firstHeader(headers.date),
    });
  }

  /**
   * Just before `item` is written: its page's record is updated (and appended to the log), and
   * the item says its round, and for a page answered (2xx, 304) its version, `unchanged: true`
   * when it did not change (a 304 or the same body).
   * @param meta the request's metadata (kept to ask for the page again).
   * @param round the round the item belongs to (default: the round in progress).
   */
  observe(item: Item, meta: RequestMeta | undefined, round = this.round): void {
    item.data = { ...item.data, round };
    const status = item.error === undefined ? (item.status ?? 0) : 0;
    this.conditional.delete(item.url);
    const v = this.validators.get(item);
    this.validators.delete(item);
    const before = this.known.get(item.url);
    const { record, outcome } = this.parts.policy.observe(before?.record, item.url, {
      status,
      etag: v?.etag ?? null,
      lastModified: v?.lastModified ?? null,
      date: v?.date ?? null,
      sha256: item.sha256,
      at: Date.now(),
    });
    if (record === undefined) return;
    const known: Known = { record, depth: before?.depth ?? item.depth, meta: before?.meta ?? plain(meta) };
    const links = this.hubLinks.get(item);
    this.hubLinks.delete(item);
    if (links !== undefined && outcome !== 'failed' && status !== 304) known.links = links;
    else if (before?.links !== undefined) known.links = before.links;
    if (before?.dates !== undefined) known.dates = before.dates;
    const stated = item.data.canonical;
    if (typeof stated === 'string' && stated !== item.url && item.data.duplicateOf === undefined) {
      known.canonical = stated;
    } else if (before?.canonical !== undefined) known.canonical = before.canonical;
    this.known.set(item.url, known);
    if (outcome === 'failed') return;
    item.data.version = record.version;
    if (outcome === 'unchanged') item.data.unchanged = true;
    this.append(encodeKnown(known));
    const hub = this.datedBy.get(item.url);
    if (hub !== undefined) {
      this.datedBy.delete(item.url);
      this.judgeDates(hub, outcome === 'unchanged');
    }
  }

  /** A page hub `hub` dated as changed was fetched: it had not changed (`lie`), or it had. */
  private judgeDates(hub: string, lie: boolean): void {
    const k = this.known.get(hub);
    if (k === undefined) return;
    const d: DateTrust = { ...(k.dates ?? { lies: 0, truths: 0, untrusted: false }) };
    if (lie) d.lies++;
    else d.truths++;
    if (!d.untrusted && d.lies >= DATE_TRUST.lies && d.lies > DATE_TRUST.ratio * d.truths) {
      d.untrusted = true;
      this.parts.untrustedDates?.(hub, d);
    }
    k.dates = d;
    this.append(encodeKnown(k));
  }

  /** Write the buffered record lines. */
  async flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.lines.length > 0) {
      const count = this.lines.length;
      const text = `${this.lines.join('\n')}\n`;
      this.lines = [];
      this.writing = this.writing
        .then(async () => {
          if (this.path === null) return; // closed
          this.file ??= await AppendFile.open(this.path);
          await this.file.append(text);
          this.fileLines += count;
          if (!this.wantsCompaction()) return;
          // Writes are chained: nothing is appended while the log is replaced. Lines recorded
          // meanwhile are buffered and go to the new log (reopened by the next write).
          const old = this.file;
          this.file = null;
          await old.close();
          await this.compact(this.path);
          this.file = await AppendFile.open(this.path);
        })
        .catch((e: Error) => this.writeFailed(e));
    }
    await this.writing;
  }

  private wantsCompaction(): boolean {
    return this.fileLines > this.compactFloor && this.fileLines > 2 * this.known.size;
  }

  /**
   * Replace the log at `file` with one line per known page. When that fails (a full disk...), the
   * log stays as it was, and is tried again when it has doubled.
   */
  private async compact(file: string): Promise<void> {
    const before = this.fileLines;
    try {
      this.fileLines = await writeLinesAtomic(file, this.knownLines());
      this.parts.log.debug({ file, before, after: this.fileLines }, 'revisit log compacted');
    } catch (e) {
      this.compactFloor = 2 * before;
      this.parts.log.warn({ file, err: e }, 'revisit log not compacted; it is kept as it was');
    }
  }

  private *knownLines(): Generator<string> {
    for (const k of this.known.values()) yield encodeKnown(k);
  }

  /** Flush and close the log. */
  async close(): Promise<void> {
    await this.flush();
    this.path = null;
    await this.file?.close();
    this.file = null;
  }

  private append(line: string): void {
    this.lines.push(line);
    if (this.lines.length >= FLUSH_LINES) void this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }
}

/** The metadata worth keeping to ask for a page again (not a `lastmod` of the past). */
function plain(meta: RequestMeta | undefined): RequestMeta | undefined {
  if (meta === undefined || meta.lastmod === undefined) return meta;
  const { lastmod: _, ...rest } = meta;
  return Object.keys(rest).length > 0 ? rest : undefined;
}

function firstHeader(v: string | string[] | undefined): string | null {
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined || first === '' ? null : first;
}

/**
 * One log line: the policy's record with the depth and metadata of the page, and a hub's links
 * and date trust.
 */
function encodeKnown(k: Known): string {
  const o = JSON.parse(encodeRecord(k.record)) as Record<string, unknown>;
  o.depth = k.depth;
  if (k.meta !== undefined) o.meta = k.meta;
  if (k.links !== undefined) o.links = k.links;
  if (k.dates !== undefined) o.dates = k.dates;
  if (k.canonical !== undefined) o.canonical = k.canonical;
  return JSON.stringify(o);
}

/** A log line read back, every field validated; null when damaged. */
export function decodeKnown(line: string): Known | null {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (o === null || typeof o !== 'object') return null;
  const { depth, meta, links, dates, canonical, ...rest } = o;
  if (!Number.isSafeInteger(depth) || (depth as number) < 0) return null;
  let m: RequestMeta | undefined;
  if (meta !== undefined) {
    const parsed = parseRequestMeta(JSON.stringify(meta));
    if (parsed === null) return null;
    m = parsed;
  }
  const record = decodeRecord(JSON.stringify(rest));
  if (record === null) return null;
  const known: Known = { record, depth: depth as number, meta: m };
  if (links !== undefined) {
    const l = decodeLinks(links);
    if (l === null) return null;
    known.links = l;
  }
  if (dates !== undefined) {
    const d = dates as Record<string, unknown> | null;
    const count = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
    if (d === null || typeof d !== 'object' || !count(d.lies) || !count(d.truths)) return null;
    if (typeof d.untrusted !== 'boolean') return null;
    known.dates = { lies: d.lies as number, truths: d.truths as number, untrusted: d.untrusted };
  }
  if (canonical !== undefined) {
    if (typeof canonical !== 'string' || !/^https?:\/\//.test(canonical)) return null;
    known.canonical = canonical;
  }
  return known;
}

/** A hub's links read back: each a canonical http(s) URL, with valid metadata; null when damaged. */
function decodeLinks(v: unknown): EngineRequest[] | null {
  if (!Array.isArray(v)) return null;
  const out: EngineRequest[] = [];
  for (const l of v) {
    const url = typeof l === 'string' ? l : (l as { url?: unknown } | null)?.url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url) || canonicalize(url) !== url) return null;
    if (typeof l === 'string') {
      out.push(url);
      continue;
    }
    const meta = parseRequestMeta(JSON.stringify((l as { meta?: unknown }).meta ?? null));
    if (meta === null) return null;
    out.push({ url, meta });
  }
  return out;
}
