/**
 * `--warc`: the fetches of each URL, kept until its item is written, then appended to the
 * worker's WARC file as records just before the item line (which names where they are): a
 * record exists iff its item does. Every hop is a fetch: each redirect, each try, and the
 * robots.txt fetches a try waited for get a `request` and a `response` record, linked by
 * `WARC-Concurrent-To`. A 304 is a `revisit` (server-not-modified); in continuous collection a
 * body whose payload digest is that of the URL's last recorded response is a `revisit`
 * (identical-payload-digest) pointing at it. The links followed from a page go in a `metadata`
 * record (`outlink:` fields).
 */
import type { CrawlOptions } from '../config/crawl-options.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../config/package-info.js';
import type { Exchange } from '../http/exchange.js';
import {
  exchangeHeader,
  gzipRecord,
  PROFILE_IDENTICAL,
  PROFILE_NOT_MODIFIED,
  type RecordParts,
  recordId,
  requestHead,
  responseHead,
  sha1Digest,
  warcDate,
} from '../sinks/warc-record.js';
import type { WarcAppend, WarcLocation, WarcWriter } from '../sinks/warc-writer.js';
import { type EngineRequest, urlOf } from '../sources/request.js';

/** The last response recorded for a URL (continuous collection: what a revisit points at). */
interface Recorded {
  digest: string;
  date: string;
  id: string;
}

/** Request header fields never written to a record: the cookie jar's (never written anywhere). */
const ALWAYS_HIDDEN = ['cookie'];

/** One fetch waiting for its item, with the request headers it must not show. */
interface Pending {
  ex: Exchange;
  hidden: ReadonlySet<string>;
}

const NONE_HIDDEN: ReadonlySet<string> = new Set(ALWAYS_HIDDEN);

/** The WARC side of one worker (see the module comment). */
export class WarcRecorder {
  private writer: WarcWriter | null = null;
  /** Fetches by the URL whose item they go with. */
  private readonly pending = new Map<string, Pending[]>();
  private readonly outlinks = new Map<string, EngineRequest[]>();
  /** robots.txt fetches not yet claimed by a try that waited for them. */
  private robots: Pending[] = [];
  /** Continuous collection only: the last response recorded per URL. */
  private readonly last: Map<string, Recorded> | null;

  /** @param revisits keep what identical-payload revisits need (continuous collection). */
  constructor(revisits: boolean) {
    this.last = revisits ? new Map() : null;
  }

  /** The writer, once the state is open (and repaired at resume). */
  attach(writer: WarcWriter): void {
    this.writer = writer;
  }

  /**
   * A fetch of a try of `url` (any hop). `secret` names request headers (lowercase) that must not
   * be written (a source's `authorize()` credentials).
   */
  fetched(url: string, ex: Exchange, secret?: readonly string[]): void {
    const hidden =
      secret === undefined || secret.length === 0 ? NONE_HIDDEN : new Set([...ALWAYS_HIDDEN, ...secret]);
    const list = this.pending.get(url);
    if (list === undefined) this.pending.set(url, [{ ex, hidden }]);
    else list.push({ ex, hidden });
  }

  /** A robots.txt fetch (a hop of it); claimed by the next try that passes its robots.txt check. */
  robotsFetched(ex: Exchange): void {
    this.robots.push({ ex, hidden: NONE_HIDDEN });
  }

  /** A try of `url` passed its robots.txt check: the robots.txt fetches not yet claimed go with it. */
  claimRobots(url: string): void {
    if (this.robots.length === 0) return;
    const list = this.pending.get(url) ?? [];
    list.push(...this.robots);
    this.robots = [];
    this.pending.set(url, list);
  }

  /** The links followed from the page of `url` (its metadata record). */
  links(url: string, links: EngineRequest[]): void {
    if (links.length > 0) this.outlinks.set(url, links);
  }

  /**
   * Append the records of the item of `url` (its fetches, then the metadata of its links).
   * @returns where they are, or undefined when the URL made no fetch (nothing is written).
   * @throws the writer's error (a full disk...): nothing of the item is then in the file.
   */
  write(url: string): WarcLocation | undefined {
    const fetches = this.pending.get(url);
    const links = this.outlinks.get(url);
    this.pending.delete(url);
    this.outlinks.delete(url);
    const writer = this.writer;
    if (fetches === undefined || writer === null) return undefined;
    const info = writer.warcinfoId;
    const records: WarcAppend[] = [];
    const seen: Array<[string, Recorded]> = [];
    let lastResponse: { id: string; ex: Exchange } | null = null;
    for (const { ex, hidden } of fetches) {
      const responseId = recordId();
      const date = warcDate(ex.startedAt);
      const common: Array<[string, string]> = [
        ['WARC-Target-URI', ex.url],
        ['WARC-Date', date],
        ['WARC-Warcinfo-ID', info],
      ];
      if (ex.ip !== null) common.push(['WARC-IP-Address', ex.ip]);
      const reqHead = requestHead(ex, hidden);
      records.push({
        bytes: gzipRecord({
          fields: [
            ['WARC-Type', 'request'],
            ['WARC-Record-ID', recordId()],
            ...common,
            ['WARC-Concurrent-To', responseId],
            ['Content-Type', 'application/http;msgtype=request'],
            ['WARC-Block-Digest', sha1Digest(reqHead)],
          ],
          block: [reqHead],
        }),
      });
      const response = this.response(ex, responseId, common, date);
      records.push(response.record);
      if (response.recorded !== undefined) seen.push([ex.url, response.recorded]);
      lastResponse = { id: responseId, ex };
    }
    if (links !== undefined && lastResponse !== null) {
      let block = '';
      for (const l of links) block += `outlink: ${urlOf(l)}\r\n`;
      const data = Buffer.from(block, 'utf8');
      records.push({
        bytes: gzipRecord({
          fields: [
            ['WARC-Type', 'metadata'],
            ['WARC-Record-ID', recordId()],
            ['WARC-Target-URI', lastResponse.ex.url],
            ['WARC-Date', warcDate(lastResponse.ex.startedAt)],
            ['WARC-Warcinfo-ID', info],
            ['WARC-Concurrent-To', lastResponse.id],
            ['Content-Type', 'application/warc-fields'],
            ['WARC-Block-Digest', sha1Digest(data)],
          ],
          block: [data],
        }),
      });
    }
    const location = writer.append(records);
    // Only once written: a revisit never points at a record that is not in a file.
    for (const [u, r] of seen) this.last?.set(u, r);
    return location;
  }

  /** Close the writer (its CDXJ index sorted). */
  close(): void {
    this.writer?.close();
  }

  /**
   * The response record of one fetch: a `revisit` for a 304, or for a 2xx body identical to the
   * URL's last recorded one (continuous collection); else a `response`.
   */
  private response(
    ex: Exchange,
    id: string,
    common: Array<[string, string]>,
    date: string,
  ): { record: WarcAppend; recorded?: Recorded } {
    const head = responseHead(ex);
    const digest = sha1Digest(ex.body);
    const before = this.last?.get(ex.url);
    const ok = ex.status >= 200 && ex.status < 300;
    if (ex.status === 304 || (ok && before !== undefined && before.digest === digest)) {
      const fields: Array<[string, string]> = [
        ['WARC-Type', 'revisit'],
        ['WARC-Record-ID', id],
        ...common,
        ['WARC-Profile', ex.status === 304 ? PROFILE_NOT_MODIFIED : PROFILE_IDENTICAL],
        ['WARC-Refers-To-Target-URI', ex.url],
      ];
      if (before !== undefined) {
        fields.push(['WARC-Refers-To-Date', before.date], ['WARC-Refers-To', before.id]);
      }
      const payload = ex.status === 304 ? before?.digest : digest;
      if (payload !== undefined) fields.push(['WARC-Payload-Digest', payload]);
      fields.push(
        ['Content-Type', 'application/http;msgtype=response'],
        ['WARC-Block-Digest', sha1Digest(head)],
      );
      const r: RecordParts = { fields, block: [head] };
      return {
        record: {
          bytes: gzipRecord(r),
          cdx: { url: ex.url, date, mime: 'warc/revisit', status: ex.status, digest: strip(payload) },
        },
      };
    }
    const fields: Array<[string, string]> = [
      ['WARC-Type', 'response'],
      ['WARC-Record-ID', id],
      ...common,
      ['Content-Type', 'application/http;msgtype=response'],
      ['WARC-Block-Digest', sha1Digest(head, ex.body)],
      ['WARC-Payload-Digest', digest],
    ];
    if (ex.truncated === true) fields.push(['WARC-Truncated', 'length']);
    const type = exchangeHeader(ex, 'content-type');
    const mime = type === null ? null : (type.split(';', 1)[0]?.trim() ?? null);
    return {
      record: {
        bytes: gzipRecord({ fields, block: [head, ex.body] }),
        cdx: { url: ex.url, date, mime: mime === '' ? null : mime, status: ex.status, digest: strip(digest) },
      },
      recorded: ok && this.last !== null ? { digest, date, id } : undefined,
    };
  }
}

/** A digest without its `sha1:` prefix (the CDXJ form), or null. */
function strip(digest: string | undefined): string | null {
  return digest === undefined ? null : digest.slice(digest.indexOf(':') + 1);
}

/**
 * The fields of the `warcinfo` record that starts each WARC file (and each session appending to
 * one): the software, the format, and the settings that shaped what was fetched (WARC 1.1 §6.2
 * suggests `software`, `format`, `conformsTo`, `robots`, `http-header-user-agent`). Seeds,
 * credentials and cookies are not written.
 */
export function warcinfoFields(opts: CrawlOptions, worker: string): Array<[string, string]> {
  const fields: Array<[string, string]> = [
    ['software', `${PACKAGE_NAME}/${PACKAGE_VERSION}`],
    ['format', 'WARC File Format 1.1'],
    ['conformsTo', 'http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/'],
    ['isPartOf', worker],
    ['robots', opts.robots ? 'obey' : 'ignore'],
    ['http-header-user-agent', opts.userAgent],
    ['scope', opts.scope],
    ['delay-ms', String(opts.delay)],
    ['max-bytes', String(opts.maxBytes)],
  ];
  if (opts.maxDepth !== undefined) fields.push(['max-depth', String(opts.maxDepth)]);
  for (const re of opts.include) fields.push(['include', re]);
  for (const re of opts.exclude) fields.push(['exclude', re]);
  if (opts.interval !== undefined) fields.push(['interval-ms', String(opts.interval)]);
  return fields;
}
