/**
 * The {@link Page} a source's `handle` reads: the response's fields, and its text and JSON decoded
 * on first use (once per page, whichever asks first).
 */
import { decodeBody } from '../http/charset.js';
import type { Page } from './source.js';

/** Content types whose charset may be declared in a `<meta>` (the HTML prescan applies). */
const HTML_TYPES = /^\s*(text\/html|application\/xhtml\+xml)\b/i;

/** The fields a {@link ResponsePage} is made of. */
export interface PageFields {
  url: string;
  finalUrl: string;
  status: number;
  contentType: string | null;
  headers: Page['headers'];
  body: Buffer;
  depth: number;
  label?: string;
  userData?: unknown;
}

/** A fetched response as a source sees it. */
export class ResponsePage implements Page {
  readonly url: string;
  readonly finalUrl: string;
  readonly status: number;
  readonly contentType: string | null;
  readonly headers: Page['headers'];
  readonly body: Buffer;
  readonly depth: number;
  readonly label: string | undefined;
  readonly userData: unknown;
  private decoded: string | undefined;

  constructor(f: PageFields) {
    this.url = f.url;
    this.finalUrl = f.finalUrl;
    this.status = f.status;
    this.contentType = f.contentType;
    this.headers = f.headers;
    this.body = f.body;
    this.depth = f.depth;
    this.label = f.label;
    this.userData = f.userData;
  }

  text(): string {
    if (this.decoded === undefined) {
      const html = HTML_TYPES.test(this.contentType ?? '');
      this.decoded = decodeBody(this.body, this.contentType, html).text;
    }
    return this.decoded;
  }

  json<T = unknown>(): T {
    return JSON.parse(this.text()) as T;
  }
}
