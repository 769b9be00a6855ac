/**
 * What a source's `handle` returned, checked and made ready for the engine: the title, the `data`
 * fields (JSON), the requests to follow (normalized against the page), and the file choice (bytes
 * and extension). A built-in's result is trusted as it is (its links are already canonical: the
 * plain crawl's hot path does no second pass over them). A wrong shape is the source's error,
 * reported on the page's item.
 */
import { type EngineRequest, normalizeRequest, normalizeRequests, RequestError, urlOf } from './request.js';
import type { HandleResult, Request } from './source.js';

/** Extension of a stored file chosen by a source: letters and digits. */
const EXTENSION = /^[A-Za-z0-9]{1,16}$/;

/** A checked handle result. */
export interface SourceOutput {
  title?: string | null;
  data?: Record<string, unknown>;
  /** Canonical URLs, with their metadata when they have some. */
  follow?: EngineRequest[];
  /** Bytes to store instead of the response body. */
  fileBody?: Buffer;
  /** Extension of the stored file, without the dot. */
  extension?: string;
  /** A refresh redirect: the canonical URL followed as the page's next hop. */
  refresh?: string;
  /** A text sketch (ascending word hashes) for the trap defence. */
  sketch?: number[];
  /** Markdown of the page, stored as `.md` next to its body (`data.markdown` names it). */
  markdown?: string;
  /** A non-2xx page's `missing` message: the item's error is `not-found`. */
  missing?: string;
  /** `false`: the response is not stored. */
  store?: boolean;
  /** The worker type cannot go on: why (one line). */
  stop?: string;
}

/** Longest `missing` message kept, characters. */
const MISSING_MAX_CHARS = 500;

const RESULT_KEYS = [
  'title',
  'data',
  'follow',
  'file',
  'refresh',
  'sketch',
  'markdown',
  'missing',
  'store',
  'stop',
];

/** A request already in the engine's form (`{ url, meta }`), as the built-ins make them. */
function isEngineRequest(f: unknown): boolean {
  return typeof f === 'object' && f !== null && 'meta' in f && 'url' in f;
}

/**
 * Check `result` (from `handle` on the page at `finalUrl`).
 * @param trusted a built-in's result: taken as it is (its requests with metadata normalized).
 * @throws RequestError naming the field that is wrong.
 */
export function checkResult(result: unknown, finalUrl: string, trusted: boolean): SourceOutput {
  if (result === undefined || result === null) return {};
  if (trusted) {
    // Canonical already, and engine requests (`{ url, meta }`) as they are; a public request
    // object (a page requisite's `{ url, label }`) is made an engine one.
    const out = result as SourceOutput & { follow?: unknown[] };
    if (out.follow?.some((f) => typeof f !== 'string' && !isEngineRequest(f))) {
      const follow: EngineRequest[] = [];
      out.follow.forEach((f, i) => {
        if (typeof f === 'string' || isEngineRequest(f)) follow.push(f as EngineRequest);
        else {
          const r = normalizeRequest(f as unknown as Request, finalUrl, `follow[${i}]`);
          if (r !== null) follow.push(r);
        }
      });
      out.follow = follow;
    }
    return out;
  }
  if (typeof result !== 'object' || Array.isArray(result)) {
    throw new RequestError('handle() returned neither an object nor nothing');
  }
  const r = result as HandleResult & Record<string, unknown>;
  const out: SourceOutput = {};
  for (const key of Object.keys(r)) {
    if (!RESULT_KEYS.includes(key) && r[key] !== undefined) {
      throw new RequestError(`handle() result: unknown key "${key}" (expected ${RESULT_KEYS.join(', ')})`);
    }
  }
  if (r.title !== undefined) {
    if (r.title !== null && typeof r.title !== 'string')
      throw new RequestError('title: expected a string or null');
    out.title = r.title;
  }
  if (r.data !== undefined) {
    if (r.data === null || typeof r.data !== 'object' || Array.isArray(r.data)) {
      throw new RequestError('data: expected an object');
    }
    out.data = jsonObject(r.data);
  }
  if (r.follow !== undefined) out.follow = normalizeRequests(r.follow, finalUrl, 'follow');
  if (r.refresh !== undefined) {
    if (typeof r.refresh !== 'string') throw new RequestError('refresh: expected a URL string');
    const to = normalizeRequest(r.refresh, finalUrl, 'refresh');
    if (to !== null) out.refresh = urlOf(to);
  }
  if (r.sketch !== undefined) {
    if (
      !Array.isArray(r.sketch) ||
      !r.sketch.every((h) => Number.isInteger(h) && h >= 0 && h <= 0xffffffff)
    ) {
      throw new RequestError('sketch: expected an array of 32-bit unsigned integers');
    }
    out.sketch = [...r.sketch].sort((a, b) => a - b);
  }
  if (r.markdown !== undefined) {
    if (typeof r.markdown !== 'string') throw new RequestError('markdown: expected a string');
    out.markdown = r.markdown;
  }
  if (r.missing !== undefined) {
    if (typeof r.missing !== 'string') throw new RequestError('missing: expected a message string');
    out.missing = r.missing.split('\n')[0].slice(0, MISSING_MAX_CHARS);
  }
  if (r.stop !== undefined) {
    if (typeof r.stop !== 'string' || r.stop.trim() === '')
      throw new RequestError('stop: expected a reason string');
    out.stop = r.stop.split('\n')[0].slice(0, MISSING_MAX_CHARS);
  }
  if (r.store !== undefined) {
    if (typeof r.store !== 'boolean') throw new RequestError('store: expected true or false');
    out.store = r.store;
  }
  if (r.file !== undefined) {
    const f = r.file;
    if (f === null || typeof f !== 'object') throw new RequestError('file: expected { body?, extension? }');
    if (f.body !== undefined) {
      if (typeof f.body === 'string') out.fileBody = Buffer.from(f.body, 'utf8');
      else if (f.body instanceof Uint8Array)
        out.fileBody = Buffer.from(f.body.buffer, f.body.byteOffset, f.body.byteLength);
      else throw new RequestError('file.body: expected a string or bytes (Uint8Array, Buffer)');
    }
    if (f.extension !== undefined) {
      const ext = typeof f.extension === 'string' ? f.extension.replace(/^\./, '') : '';
      if (!EXTENSION.test(ext))
        throw new RequestError('file.extension: expected letters and digits, e.g. "md"');
      out.extension = ext;
    }
  }
  return out;
}

/** `data` as JSON will keep it (what the item line holds). @throws RequestError when it is not JSON. */
function jsonObject(data: object): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(data)) as Record<string, unknown>;
  } catch (e) {
    throw new RequestError(`data: not JSON (${(e as Error).message})`);
  }
}
