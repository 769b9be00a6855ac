/**
 * The CPU-heavy part of handling one response, written once and run either in a page thread
 * ({@link ThreadedPageProcessor}) or inline: Content-Encoding removal, the body's SHA-256 and the
 * source's `handle` (charset decoding, parsing, link resolution), its result checked. The
 * crawler's thread keeps the network, the frontier, the seen-set and content dedup.
 */
import { createHash } from 'node:crypto';
import { type AppShellRule, appShellRule } from '../extract/app-shell.js';
import { DecodeError, decodeContent, TooLargeError } from '../http/decompress.js';
import { isHtml } from '../sources/html-page.js';
import { ResponsePage } from '../sources/page.js';
import type { Page } from '../sources/source.js';
import { checkResult, type SourceOutput } from '../sources/source-result.js';
import type { RunningSource, SourceLogLevel } from '../sources/source-runner.js';

/** One response to work on. `body` is as received (still Content-Encoded). */
export interface PageJob {
  /** Chosen by the caller; names the body kept for a later store or drop. */
  id: number;
  url: string;
  finalUrl: string;
  status: number;
  contentType: string | null;
  /** Content-Encoding header value, or null. */
  contentEncoding: string | null;
  headers: Page['headers'];
  depth: number;
  /** The request's label and userData, when it has them. */
  label?: string;
  userData?: unknown;
  /** Largest decoded size accepted, bytes. */
  maxBytes: number;
  /** Hand the decoded body to the source (2xx responses); otherwise only decode and hash. */
  extract: boolean;
  /**
   * `--render auto`: first test whether an HTML body is a client-side app's shell
   * (`extract/app-shell.ts`); a shell is not handed to the source (it is rendered instead).
   */
  appShellCheck?: boolean;
  body: Uint8Array;
}

/** A line a source logged while its page was worked on (in a page thread: sent with the page). */
export interface SourceLogLine {
  level: SourceLogLevel;
  message: string;
  fields?: Record<string, unknown>;
}

/** What came of a {@link PageJob}. The decoded body stays with the processor until store/drop. */
export interface WorkedPage {
  id: number;
  /** Size of the body kept (decoded, or the bytes the source chose), bytes. */
  bytes: number;
  /** SHA-256 of the body kept, hex. */
  sha256: string;
  /** Set when Content-Encoding was unknown/nested, or claimed but absent (raw bytes kept). */
  flag?: 'unknown-encoding' | 'not-encoded';
  /** Decompression failed: past `maxBytes`, or a corrupt stream. No body is kept. */
  error?: { kind: 'too-large' | 'decode'; message: string };
  /** The source's checked result, when asked for and the body was decoded. */
  result?: SourceOutput;
  /** The source threw (or returned something wrong): its message. */
  sourceError?: string;
  /**
   * The source gave Markdown of the page (an article's main content): kept beside the body under
   * the id {@link markdownId}, stored as `.md` next to it or dropped with it.
   */
  markdown?: true;
  /** Lines the source logged meanwhile (page threads only; inline, they are logged at once). */
  logs?: SourceLogLine[];
  /**
   * With `appShellCheck`, for an HTML page: the rule by which it is an app shell (the source did
   * not read it), or `none` (read as usual).
   */
  appShell?: AppShellRule | 'none';
}

/** A worked page and the body kept for it (null after a decompression error). */
export interface Worked {
  worked: WorkedPage;
  body: Buffer | null;
  /** The Markdown the source gave, UTF-8 (kept under {@link markdownId}). */
  markdown?: Buffer;
}

/** The id the Markdown of page `id` is kept under: `-id` (page ids are positive). */
export function markdownId(id: number): number {
  return -id;
}

/**
 * Decode, hash and (when `job.extract`, and the encoding was understood) run the source's
 * `handle`. Never throws and never rejects: failures are in the returned `worked`. Synchronous
 * unless `handle` returns a promise.
 */
export function workPage(job: PageJob, source: RunningSource): Worked | Promise<Worked> {
  const raw = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  let body: Buffer;
  let flag: WorkedPage['flag'];
  try {
    const d = decodeContent(raw, job.contentEncoding, job.maxBytes, job.contentType);
    body = d.body;
    flag = d.flag;
  } catch (e) {
    const kind = e instanceof TooLargeError ? 'too-large' : 'decode';
    const message = e instanceof TooLargeError || e instanceof DecodeError ? e.message : String(e);
    return { worked: { id: job.id, bytes: 0, sha256: '', error: { kind, message } }, body: null };
  }
  const worked: WorkedPage = { id: job.id, bytes: body.length, sha256: sha256(body) };
  if (flag) worked.flag = flag;
  if (!job.extract || flag === 'unknown-encoding') return { worked, body };
  if (job.appShellCheck === true && isHtml(job.contentType, body)) {
    // The markup is ASCII in every charset a page can declare itself in; latin1 maps bytes 1:1.
    const rule = appShellRule(body.toString('latin1'));
    worked.appShell = rule ?? 'none';
    if (rule !== null) return { worked, body };
  }
  let returned: unknown;
  try {
    returned = source.def.handle(
      new ResponsePage({
        url: job.url,
        finalUrl: job.finalUrl,
        status: job.status,
        contentType: job.contentType,
        headers: job.headers,
        body,
        depth: job.depth,
        label: job.label,
        userData: job.userData,
      }),
      source.ctx,
    );
  } catch (e) {
    worked.sourceError = messageOf(e);
    return { worked, body };
  }
  if (isThenable(returned)) {
    return Promise.resolve(returned).then(
      (r) => withResult(worked, body, r, job.finalUrl, source.builtin),
      (e) => {
        worked.sourceError = messageOf(e);
        return { worked, body };
      },
    );
  }
  return withResult(worked, body, returned, job.finalUrl, source.builtin);
}

/** Check the source's result; bytes it chose to store replace the body (size and hash too). */
function withResult(
  worked: WorkedPage,
  body: Buffer,
  returned: unknown,
  finalUrl: string,
  trusted: boolean,
): Worked {
  try {
    const result = checkResult(returned, finalUrl, trusted);
    worked.result = result;
    let markdown: Buffer | undefined;
    if (result.markdown !== undefined) {
      markdown = Buffer.from(result.markdown, 'utf8');
      delete result.markdown;
      worked.markdown = true;
    }
    if (result.fileBody !== undefined) {
      const chosen = result.fileBody;
      delete result.fileBody;
      worked.bytes = chosen.length;
      worked.sha256 = sha256(chosen);
      return { worked, body: chosen, markdown };
    }
    return { worked, body, markdown };
  } catch (e) {
    worked.sourceError = messageOf(e);
  }
  return { worked, body };
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function';
}

/** One line from whatever a source threw. */
function messageOf(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0] || (e instanceof Error ? e.name : 'error');
}
