/**
 * Charset sniffing and decoding of response bodies: picks the encoding the way a browser would
 * (BOM, Content-Type charset, `<meta>` prescan, UTF-8 default) and turns the bytes into text.
 *
 * Follows https://html.spec.whatwg.org/multipage/parsing.html#determining-the-character-encoding,
 * simplified: no "likely encoding" detector, no locale default — UTF-8 is the default.
 */
import { isUtf8 } from 'node:buffer';
import { createRequire } from 'node:module';
import type iconvType from 'iconv-lite';

const require = createRequire(import.meta.url);

// iconv-lite and whatwg-encoding are loaded on first use: most pages are UTF-8 without a label
// to map, and loading them costs ~30 ms of start-up in every worker process.
let iconvModule: typeof iconvType | null = null;
function iconv(): typeof iconvType {
  iconvModule ??= require('iconv-lite') as typeof iconvType;
  return iconvModule;
}

// whatwg-encoding ships no type declarations; load it through require with the one function typed.
type LabelToName = (label: string) => string | null;
let labelToNameFn: LabelToName | null = null;
/** WHATWG "get an encoding": label → canonical name, or null for an unknown label. */
function labelToName(label: string): string | null {
  labelToNameFn ??= (require('whatwg-encoding') as { labelToName: LabelToName }).labelToName;
  return labelToNameFn(label);
}

/** Where the encoding came from, in the HTML spec's order of confidence. */
export type EncodingSource = 'bom' | 'header' | 'meta' | 'default';

/** Result of {@link sniffEncoding}. */
export interface EncodingSniff {
  /** WHATWG canonical encoding name, e.g. 'UTF-8', 'Shift_JIS', 'windows-1252', 'UTF-16LE'. */
  encoding: string;
  /** What decided it: byte order mark, Content-Type charset, `<meta>`/XML declaration, or the default. */
  source: EncodingSource;
}

/** Result of {@link decodeBody}: the text plus the encoding actually used to produce it. */
export interface DecodedBody extends EncodingSniff {
  /** The decoded body, BOM stripped; undecodable bytes become U+FFFD. */
  text: string;
}

/**
 * How many leading bytes the `<meta>` prescan looks at (the spec's recommended 1024).
 */
export const META_PRESCAN_BYTES = 1024;

/**
 * How far the prescan looks when nothing was found in the first {@link META_PRESCAN_BYTES} and
 * the body is not valid UTF-8. Browsers honour a late `<meta charset>` by re-parsing ("change the
 * encoding"); scanning further in that case emulates it without paying for it on UTF-8 pages.
 */
export const META_LATE_PRESCAN_BYTES = 16 * 1024;

/** The name of UTF-8, as {@link sniffEncoding} gives it. */
export const UTF8 = 'UTF-8';
const utf8Decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

/**
 * Picks the character encoding of a response body (never throws).
 *
 * Order (HTML spec, simplified): 1. a UTF-8 / UTF-16LE / UTF-16BE byte order mark;
 * 2. the `charset` parameter of `contentType` (quoted or not) mapped through the WHATWG label
 * table — unknown labels are ignored; 3. HTML only (`isHtml`): the spec's prescan of the first
 * 1024 bytes for `<meta charset>` / `<meta http-equiv="content-type" content="…charset=…">`
 * (extended to 16 KiB when the body is not valid UTF-8); a `<meta>` naming UTF-16 means UTF-8.
 * For non-HTML bodies an XML declaration (`<?xml … encoding="…"?>`) plays the `<meta>` role
 * (feeds, sitemaps). 4. default UTF-8.
 *
 * Labels follow the WHATWG Encoding Standard, so 'iso-8859-1', 'latin1' and 'ascii' are
 * 'windows-1252'; 'x-user-defined' is reported as 'windows-1252' (HTML spec for `<meta>`, and
 * the nearest decodable encoding for a header).
 *
 * @param body raw body bytes (after Content-Encoding removal)
 * @param contentType the Content-Type header value, or null when absent
 * @param isHtml whether the body is HTML (enables the `<meta>` prescan)
 */
export function sniffEncoding(body: Buffer, contentType: string | null, isHtml: boolean): EncodingSniff {
  const bom = bomEncoding(body);
  if (bom !== null) return { encoding: bom, source: 'bom' };

  if (contentType !== null) {
    const fromHeader = charsetFromContentType(contentType);
    if (fromHeader !== null) return { encoding: fromHeader, source: 'header' };
  }

  if (isHtml) {
    const fromMeta = prescanMeta(body, META_PRESCAN_BYTES);
    if (fromMeta !== null) return { encoding: fromMeta, source: 'meta' };
    if (body.length > META_PRESCAN_BYTES && !isUtf8(body)) {
      const late = prescanMeta(body, META_LATE_PRESCAN_BYTES);
      if (late !== null) return { encoding: late, source: 'meta' };
    }
  } else {
    const fromXml = xmlDeclarationEncoding(body);
    if (fromXml !== null) return { encoding: fromXml, source: 'meta' };
  }

  return { encoding: UTF8, source: 'default' };
}

/**
 * Decodes a response body to text using {@link sniffEncoding}'s choice (never throws).
 *
 * UTF-8 goes through a shared non-fatal TextDecoder (the fast path, BOM stripped); every other
 * encoding through iconv-lite (BOM stripped). 'GBK' is decoded as gb18030, as the Encoding
 * Standard specifies. When iconv-lite lacks the encoding or fails, the body is decoded as UTF-8
 * and the result says `encoding: 'UTF-8', source: 'default'`.
 *
 * @param body raw body bytes (after Content-Encoding removal)
 * @param contentType the Content-Type header value, or null when absent
 * @param isHtml whether the body is HTML (enables the `<meta>` prescan)
 */
export function decodeBody(body: Buffer, contentType: string | null, isHtml: boolean): DecodedBody {
  return decodeSniffed(body, sniffEncoding(body, contentType, isHtml));
}

/**
 * Decodes a response body by an encoding {@link sniffEncoding} chose for it, as
 * {@link decodeBody} does (never throws).
 */
export function decodeSniffed(body: Buffer, sniff: EncodingSniff): DecodedBody {
  if (sniff.encoding !== UTF8) {
    const codec = iconvName(sniff.encoding);
    if (codec !== null) {
      try {
        return { text: iconv().decode(body, codec), encoding: sniff.encoding, source: sniff.source };
      } catch {
        // fall through to UTF-8: a decoder bug must not lose the page
      }
    }
    return { text: utf8Decoder.decode(body), encoding: UTF8, source: 'default' };
  }
  return { text: utf8Decoder.decode(body), encoding: UTF8, source: sniff.source };
}

// ---------------------------------------------------------------------------------------------
// Label handling

/** WHATWG name → iconv-lite name where they differ in behaviour (GBK decoder is gb18030's). */
const ICONV_OVERRIDES: Record<string, string> = { GBK: 'gb18030' };
const iconvNames = new Map<string, string | null>();

/** The iconv-lite codec name for a WHATWG encoding name, or null if iconv-lite lacks it (memoized). */
function iconvName(encoding: string): string | null {
  let name = iconvNames.get(encoding);
  if (name === undefined) {
    const candidate = ICONV_OVERRIDES[encoding] ?? encoding;
    name = iconv().encodingExists(candidate) ? candidate : null;
    iconvNames.set(encoding, name);
  }
  return name;
}

/**
 * WHATWG label → name, dropping encodings we cannot or should not decode with:
 * 'replacement' (a label for a decoder that yields one U+FFFD) is treated as unknown,
 * 'x-user-defined' becomes 'windows-1252'.
 */
function encodingForLabel(label: string): string | null {
  if (label.length === 0 || label.length > 64) return null;
  const name = labelToName(label);
  if (name === null || name === 'replacement') return null;
  return name === 'x-user-defined' ? 'windows-1252' : name;
}

/** Same as {@link encodingForLabel}, plus the `<meta>` rule: a declared UTF-16 means UTF-8. */
function encodingForMetaLabel(label: string): string | null {
  const name = encodingForLabel(label);
  return name === 'UTF-16LE' || name === 'UTF-16BE' ? UTF8 : name;
}

// ---------------------------------------------------------------------------------------------
// BOM and Content-Type

function bomEncoding(body: Buffer): string | null {
  if (body.length >= 2) {
    const b0 = body[0];
    const b1 = body[1];
    if (b0 === 0xef && b1 === 0xbb && body.length >= 3 && body[2] === 0xbf) return UTF8;
    if (b0 === 0xfe && b1 === 0xff) return 'UTF-16BE';
    if (b0 === 0xff && b1 === 0xfe) return 'UTF-16LE';
  }
  return null;
}

/** `charset` parameter (first one; quoted-string or token) of a Content-Type value. */
const CHARSET_PARAM = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s"]*))/i;

function charsetFromContentType(contentType: string): string | null {
  if (contentType.indexOf(';') < 0) return null;
  const m = CHARSET_PARAM.exec(contentType);
  if (m === null) return null;
  return encodingForLabel((m[1] ?? m[2]).trim());
}

/** `encoding="…"` of an XML declaration at the very start of the body (after the BOM check). */
const XML_DECLARATION = /^<\?xml\s[^>]*?\bencoding\s*=\s*(["'])([^"']*)\1/;

function xmlDeclarationEncoding(body: Buffer): string | null {
  // '<?xml' as bytes; checked first so JSON/images never pay for a string conversion.
  if (body.length < 6 || body[0] !== 0x3c || body[1] !== 0x3f || body[2] !== 0x78) return null;
  const m = XML_DECLARATION.exec(body.toString('latin1', 0, Math.min(body.length, 256)));
  return m === null ? null : encodingForMetaLabel(m[2]);
}

// ---------------------------------------------------------------------------------------------
// <meta> prescan: https://html.spec.whatwg.org/multipage/parsing.html#prescan-a-byte-stream-to-determine-its-encoding
// Runs on a latin1 view of the bytes, so every char is exactly one byte.

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

function isAsciiLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** ASCII-lowercase one char code (only A-Z change). */
function lower(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
}

/**
 * The spec's prescan over `body[0, limit)`. Returns the declared encoding name or null.
 */
function prescanMeta(body: Buffer, limit: number): string | null {
  const end = Math.min(body.length, limit);
  if (end < 6) return null;
  const s = body.toString('latin1', 0, end);
  let pos = 0;
  while (pos < end) {
    pos = s.indexOf('<', pos);
    if (pos < 0) return null;
    const c1 = s.charCodeAt(pos + 1);
    if (c1 === 0x21 /* ! */ && s.startsWith('--', pos + 2)) {
      // comment: skip to the first '-->' whose dashes come after '<!' (so '<!-->' closes)
      const close = s.indexOf('-->', pos + 2);
      if (close < 0) return null;
      pos = close + 3;
      continue;
    }
    if (
      (c1 === 0x6d || c1 === 0x4d) &&
      s.slice(pos + 1, pos + 5).toLowerCase() === 'meta' &&
      (isSpace(s.charCodeAt(pos + 5)) || s.charCodeAt(pos + 5) === 0x2f)
    ) {
      const found = metaElement(s, pos + 5);
      if (found === null) return null;
      if (found.encoding !== null) return found.encoding;
      pos = found.pos + 1;
      continue;
    }
    if (isAsciiLetter(c1) || (c1 === 0x2f && isAsciiLetter(s.charCodeAt(pos + 2)))) {
      // any other tag: skip its name, then its attributes (so '<a title="<meta …>">' is not a meta)
      pos += 2;
      while (pos < end && !isSpace(s.charCodeAt(pos)) && s.charCodeAt(pos) !== 0x3e) pos++;
      for (let attr = getAttribute(s, pos); attr !== null; attr = getAttribute(s, pos)) {
        if (attr === EOF) return null;
        pos = attr.pos;
      }
      pos = skipToAttributeEnd(s, pos) + 1;
      continue;
    }
    if (c1 === 0x21 || c1 === 0x2f || c1 === 0x3f) {
      // <!doctype>, </ not followed by a letter, <?pi>: skip to the next '>'
      const gt = s.indexOf('>', pos + 2);
      if (gt < 0) return null;
      pos = gt + 1;
      continue;
    }
    pos++;
  }
  return null;
}

/** Where {@link getAttribute} stopped when it returned null: the '>' or end of input. */
function skipToAttributeEnd(s: string, pos: number): number {
  while (pos < s.length && (isSpace(s.charCodeAt(pos)) || s.charCodeAt(pos) === 0x2f)) pos++;
  return pos;
}

/**
 * Processes the attributes of a `<meta` whose name ends before `start`. Returns the encoding it
 * declares (or null) and the position of its closing '>'; null when the input ends inside the tag.
 */
function metaElement(s: string, start: number): { encoding: string | null; pos: number } | null {
  const seen = new Set<string>();
  let gotPragma = false;
  let needPragma: boolean | null = null;
  // undefined = not set yet; null = set to "failure" (an unknown label), which later attributes keep
  let charset: string | null | undefined;
  let pos = start;
  for (let attr = getAttribute(s, pos); attr !== null; attr = getAttribute(s, pos)) {
    if (attr === EOF) return null;
    pos = attr.pos;
    if (seen.has(attr.name)) continue;
    seen.add(attr.name);
    if (attr.name === 'http-equiv') {
      if (attr.value === 'content-type') gotPragma = true;
    } else if (attr.name === 'content') {
      const label = charsetFromMetaContent(attr.value);
      if (label !== null && charset === undefined) {
        charset = encodingForMetaLabel(label);
        needPragma = true;
      }
    } else if (attr.name === 'charset') {
      if (charset === undefined) {
        charset = encodingForMetaLabel(attr.value);
        needPragma = false;
      }
    }
  }
  pos = skipToAttributeEnd(s, pos);
  if (needPragma === null || (needPragma && !gotPragma) || charset === undefined) {
    return { encoding: null, pos };
  }
  return { encoding: charset, pos };
}

interface Attribute {
  name: string;
  value: string;
  /** Position just after the attribute. */
  pos: number;
}

/** Returned by {@link getAttribute} when the input ends inside a tag: the prescan stops there. */
const EOF: Attribute = { name: '', value: '', pos: Number.POSITIVE_INFINITY };

/**
 * The spec's "get an attribute" at `pos`: name and value ASCII-lowercased; null at the tag's '>';
 * {@link EOF} when the input ends first (stopping there also keeps hostile input linear).
 */
function getAttribute(s: string, pos: number): Attribute | null {
  const end = s.length;
  pos = skipToAttributeEnd(s, pos);
  if (pos >= end) return EOF;
  if (s.charCodeAt(pos) === 0x3e) return null;

  let name = '';
  for (;;) {
    if (pos >= end) return EOF;
    const c = s.charCodeAt(pos);
    if (c === 0x3d /* = */ && name.length > 0) {
      pos++;
      break;
    }
    if (isSpace(c)) {
      while (pos < end && isSpace(s.charCodeAt(pos))) pos++;
      if (pos >= end) return EOF;
      if (s.charCodeAt(pos) !== 0x3d) return { name, value: '', pos };
      pos++;
      break;
    }
    if (c === 0x2f || c === 0x3e) return { name, value: '', pos };
    name += String.fromCharCode(lower(c));
    pos++;
  }

  while (pos < end && isSpace(s.charCodeAt(pos))) pos++;
  if (pos >= end) return EOF;
  const first = s.charCodeAt(pos);
  if (first === 0x22 || first === 0x27) {
    const close = s.indexOf(first === 0x22 ? '"' : "'", pos + 1);
    if (close < 0) return EOF;
    return { name, value: s.slice(pos + 1, close).toLowerCase(), pos: close + 1 };
  }
  if (first === 0x3e) return { name, value: '', pos };
  const valueStart = pos;
  while (pos < end && !isSpace(s.charCodeAt(pos)) && s.charCodeAt(pos) !== 0x3e) pos++;
  if (pos >= end) return EOF;
  return { name, value: s.slice(valueStart, pos).toLowerCase(), pos };
}

/**
 * The spec's "extracting a character encoding from a meta element": the charset label in a
 * (lowercased) `content` value such as `text/html; charset=shift_jis`, or null.
 */
function charsetFromMetaContent(content: string): string | null {
  let pos = 0;
  for (;;) {
    const at = content.indexOf('charset', pos);
    if (at < 0) return null;
    pos = at + 7;
    while (pos < content.length && isSpace(content.charCodeAt(pos))) pos++;
    if (content.charCodeAt(pos) !== 0x3d) continue;
    pos++;
    while (pos < content.length && isSpace(content.charCodeAt(pos))) pos++;
    if (pos >= content.length) return null;
    const q = content.charCodeAt(pos);
    if (q === 0x22 || q === 0x27) {
      const close = content.indexOf(q === 0x22 ? '"' : "'", pos + 1);
      return close < 0 ? null : content.slice(pos + 1, close);
    }
    let stop = pos;
    while (stop < content.length && !isSpace(content.charCodeAt(stop)) && content.charCodeAt(stop) !== 0x3b) {
      stop++;
    }
    return content.slice(pos, stop);
  }
}
