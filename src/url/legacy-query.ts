/**
 * URL resolution in a document of a legacy encoding (windows-1251, Shift_JIS, GBK...): the WHATWG
 * URL Standard encodes a URL's *query* with the document's encoding (path and fragment are always
 * UTF-8), so `?q=Привет` in a windows-1251 page is requested as `?q=%CF%F0%E8%E2%E5%F2`, not as
 * UTF-8. Node's URL parser only knows UTF-8; this redoes the query the way a browser does.
 */
import { createRequire } from 'node:module';
import type iconvType from 'iconv-lite';
import { canonicalize } from './canonicalize.js';

let iconvModule: typeof iconvType | null = null;
function iconv(): typeof iconvType {
  iconvModule ??= createRequire(import.meta.url)('iconv-lite') as typeof iconvType;
  return iconvModule;
}

/**
 * The iconv-lite encoder for a WHATWG encoding name, or null when the query stays UTF-8: the
 * standard's "output encoding" turns UTF-16BE/LE into UTF-8, and encodings iconv-lite lacks
 * (ISO-2022-JP, x-mac-cyrillic) are decoded as UTF-8 by the charset layer too. GBK's encoder is
 * GBK's own (never gb18030's four-byte sequences, Encoding Standard §10.2.2 "GBK flag").
 */
function encoderName(encoding: string): string | null {
  if (encoding === 'UTF-8' || encoding === 'UTF-16LE' || encoding === 'UTF-16BE') return null;
  const name = encoding === 'GBK' ? 'gbk' : encoding;
  return iconv().encodingExists(name) ? name : null;
}

/**
 * The special-query percent-encode set (WHATWG URL §1.3) for ASCII: C0 controls, space, `"`,
 * `#`, `<`, `>`, `'` and DEL; every non-ASCII byte is encoded too.
 */
function inSpecialQuerySet(b: number): boolean {
  return b < 0x21 || b > 0x7e || b === 0x22 || b === 0x23 || b === 0x3c || b === 0x3e || b === 0x27;
}

function percentByte(b: number): string {
  return `%${b < 16 ? '0' : ''}${b.toString(16).toUpperCase()}`;
}

/** Per encoder: whether a code point has a mapping (round-trips through the encoder). */
const mappable = new Map<string, Map<number, boolean>>();

function canEncode(codec: string, cp: number, ch: string): boolean {
  let m = mappable.get(codec);
  if (m === undefined) {
    m = new Map();
    mappable.set(codec, m);
  }
  let ok = m.get(cp);
  if (ok === undefined) {
    ok = iconv().decode(iconv().encode(ch, codec), codec) === ch;
    if (m.size < 65_536) m.set(cp, ok);
  }
  return ok;
}

/**
 * A query string as the WHATWG URL parser's query state writes it for a document in `encoding`:
 * "percent-encode after encoding" with the special-query percent-encode set. Characters the
 * encoding cannot represent become `%26%23` + decimal code point + `%3B` (`&#NNNN;`, the
 * encoder's HTML error mode); bytes of a multi-byte character that fall in ASCII and outside the
 * set stay literal (Shift_JIS `本` is `%96{`).
 *
 * @param query the raw query, without `?`, tabs and newlines already removed.
 * @param encoding a WHATWG encoding name (`windows-1251`, `Shift_JIS`, `GBK`); UTF-8 and
 *   encodings without an encoder give the UTF-8 form.
 */
export function encodeQuery(query: string, encoding: string): string {
  const codec = encoderName(encoding) ?? 'utf8';
  let out = '';
  let run = '';
  const flush = (): void => {
    if (run === '') return;
    for (const b of iconv().encode(run, codec))
      out += inSpecialQuerySet(b) ? percentByte(b) : String.fromCharCode(b);
    run = '';
  };
  for (const ch of query) {
    const cp = ch.codePointAt(0) as number;
    if (cp < 0x80) {
      flush();
      out += inSpecialQuerySet(cp) ? percentByte(cp) : ch;
    } else if (codec === 'utf8' || canEncode(codec, cp, ch)) {
      run += ch;
    } else {
      flush();
      out += `%26%23${cp}%3B`;
    }
  }
  flush();
  return out;
}

/** Whether `s` has a character outside ASCII. */
function hasNonAscii(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (s.charCodeAt(i) > 0x7f) return true;
  return false;
}

/**
 * {@link canonicalize} for an href found in a document decoded from `encoding`: the same URL,
 * except that a non-ASCII query written in the href is encoded with the document's encoding
 * (WHATWG URL "encoding-parse a URL"; HTML uses it for `href`, `src`, `<base>` and refresh URLs).
 * A query inherited from the base, and every UTF-8 document, take the plain path.
 *
 * @param encoding the WHATWG name of the document's encoding (e.g. from `decodeBody`).
 * @returns the canonical URL, or null as {@link canonicalize}.
 */
export function canonicalizeIn(href: string, base: string, encoding: string): string | null {
  const plain = canonicalize(href, base);
  if (plain === null || encoding === 'UTF-8') return plain;
  const q = href.indexOf('?');
  const hash = href.indexOf('#');
  if (q === -1 || (hash !== -1 && hash < q)) return plain;
  const end = hash === -1 ? href.length : hash;
  if (!hasNonAscii(href, q + 1, end) || encoderName(encoding) === null) return plain;
  // The parser strips tabs and newlines anywhere, and C0 controls and spaces at the input's end.
  let raw = href.slice(q + 1, end).replace(/[\t\n\r]/g, '');
  if (hash === -1) raw = raw.replace(/[\x00-\x20]+$/, '');
  const at = plain.indexOf('?');
  const head = at === -1 ? plain : plain.slice(0, at);
  return canonicalize(`${head}?${encodeQuery(raw, encoding)}`);
}
