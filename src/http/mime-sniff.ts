/**
 * MIME type sniffing for a response with no usable Content-Type, as the WHATWG MIME Sniffing
 * Standard's "rules for identifying an unknown MIME type" (§7.1) do: the HTML, XML and PDF
 * patterns after leading whitespace, BOMs, image / audio-video / archive signatures, then text or
 * binary by the bytes. Also answers whether bytes plainly are a declared type (Content-Encoding
 * labels that do not match the body).
 */

/** Bytes of a resource the sniffer looks at (the standard's resource header: 1445 bytes). */
export const SNIFF_HEADER_BYTES = 1445;

/** One row of a pattern table: bytes, mask (0xff = exact, 0xdf = ASCII letter of either case). */
interface Pattern {
  pattern: number[];
  mask: number[];
  /** Whether leading whitespace bytes (TAB LF FF CR SP) are skipped before matching. */
  skipWhitespace: boolean;
  type: string;
}

/** A tag-terminating byte (SP or `>`) closes each HTML pattern. */
const TT = -1;

function ascii(s: string): number[] {
  return [...s].map((c) => c.charCodeAt(0));
}

/** An HTML pattern: `<NAME` case-insensitively, then a tag-terminating byte. */
function htmlRow(s: string): Pattern {
  const bytes = ascii(s);
  return {
    pattern: [...bytes, TT],
    mask: [...bytes.map((b) => (b >= 0x41 && b <= 0x5a ? 0xdf : 0xff)), 0xff],
    skipWhitespace: true,
    type: 'text/html',
  };
}

function exact(bytes: number[], type: string, mask?: number[]): Pattern {
  return { pattern: bytes, mask: mask ?? bytes.map(() => 0xff), skipWhitespace: false, type };
}

/** §7.1 step 1 (sniff-scriptable): HTML, XML and PDF. */
const SCRIPTABLE: Pattern[] = [
  ...[
    '<!DOCTYPE HTML',
    '<HTML',
    '<HEAD',
    '<SCRIPT',
    '<IFRAME',
    '<H1',
    '<DIV',
    '<FONT',
    '<TABLE',
    '<A',
    '<STYLE',
    '<TITLE',
    '<B',
    '<BODY',
    '<BR',
    '<P',
    '<!--',
  ].map(htmlRow),
  { pattern: ascii('<?xml'), mask: [0xff, 0xff, 0xff, 0xff, 0xff], skipWhitespace: true, type: 'text/xml' },
  exact(ascii('%PDF-'), 'application/pdf'),
];

/** §7.1 step 2: PostScript and the byte order marks (text). */
const UNSCRIPTABLE: Pattern[] = [
  exact(ascii('%!PS-Adobe-'), 'application/postscript'),
  exact([0xfe, 0xff, 0, 0], 'text/plain', [0xff, 0xff, 0, 0]),
  exact([0xff, 0xfe, 0, 0], 'text/plain', [0xff, 0xff, 0, 0]),
  exact([0xef, 0xbb, 0xbf, 0], 'text/plain', [0xff, 0xff, 0xff, 0]),
];

/** §6.1 image type patterns. */
const IMAGES: Pattern[] = [
  exact([0, 0, 1, 0], 'image/x-icon'),
  exact([0, 0, 2, 0], 'image/x-icon'),
  exact(ascii('BM'), 'image/bmp'),
  exact(ascii('GIF87a'), 'image/gif'),
  exact(ascii('GIF89a'), 'image/gif'),
  exact(
    [...ascii('RIFF'), 0, 0, 0, 0, ...ascii('WEBPVP')],
    'image/webp',
    [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
  ),
  exact([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/png'),
  exact([0xff, 0xd8, 0xff], 'image/jpeg'),
];

/** §6.2 audio and video type patterns (the fixed signatures; MP4 by its `ftyp` box below). */
const MEDIA: Pattern[] = [
  exact(
    [...ascii('FORM'), 0, 0, 0, 0, ...ascii('AIFF')],
    'audio/aiff',
    [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff],
  ),
  exact(ascii('ID3'), 'audio/mpeg'),
  exact([...ascii('OggS'), 0], 'application/ogg'),
  exact([...ascii('MThd'), 0, 0, 0, 6], 'audio/midi'),
  exact(
    [...ascii('RIFF'), 0, 0, 0, 0, ...ascii('AVI ')],
    'video/avi',
    [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff],
  ),
  exact(
    [...ascii('RIFF'), 0, 0, 0, 0, ...ascii('WAVE')],
    'audio/wave',
    [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff],
  ),
];

/** §6.3 archive type patterns. */
const ARCHIVES: Pattern[] = [
  exact([0x1f, 0x8b, 0x08], 'application/x-gzip'),
  exact([0x50, 0x4b, 0x03, 0x04], 'application/zip'),
  exact([0x52, 0x61, 0x72, 0x20, 0x1a, 0x07, 0x00], 'application/x-rar-compressed'),
];

function isWhitespaceByte(b: number): boolean {
  return b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d || b === 0x20;
}

/** §4.6 "pattern matching algorithm", with TT standing for SP or `>`. */
function matches(input: Uint8Array, row: Pattern): boolean {
  let s = 0;
  if (row.skipWhitespace) while (s < input.length && isWhitespaceByte(input[s])) s++;
  if (input.length - s < row.pattern.length) return false;
  for (let p = 0; p < row.pattern.length; p++, s++) {
    const want = row.pattern[p];
    const b = input[s];
    if (want === TT) {
      if (b !== 0x20 && b !== 0x3e) return false;
    } else if ((b & row.mask[p]) !== want) {
      return false;
    }
  }
  return true;
}

function firstMatch(input: Uint8Array, rows: Pattern[]): string | null {
  for (const row of rows) if (matches(input, row)) return row.type;
  return null;
}

/** §6.2.1 "signature for MP4": a `ftyp` box whose brands include `mp4`. */
function isMp4(h: Uint8Array): boolean {
  if (h.length < 12) return false;
  const boxSize = ((h[0] << 24) | (h[1] << 16) | (h[2] << 8) | h[3]) >>> 0;
  if (h.length < boxSize || boxSize % 4 !== 0) return false;
  if (h[4] !== 0x66 || h[5] !== 0x74 || h[6] !== 0x79 || h[7] !== 0x70) return false;
  const mp4 = (i: number) => h[i] === 0x6d && h[i + 1] === 0x70 && h[i + 2] === 0x34;
  if (mp4(8)) return true;
  for (let i = 16; i + 3 <= boxSize; i += 4) if (mp4(i)) return true;
  return false;
}

/** §7.2 binary data byte: a control byte that plain text does not contain. */
function isBinaryByte(b: number): boolean {
  return b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);
}

/** Whether the resource header holds a binary data byte (§7.1 step 6). */
export function hasBinaryBytes(header: Uint8Array): boolean {
  for (const b of header) if (isBinaryByte(b)) return true;
  return false;
}

/**
 * The MIME type of a resource whose supplied type is unknown, by the WHATWG MIME Sniffing
 * Standard §7.1 "rules for identifying an unknown MIME type" with the sniff-scriptable flag set:
 * HTML (`<!DOCTYPE HTML`, `<HTML`, `<HEAD`, `<TITLE`, `<!--`, ... each followed by a space or
 * `>`, case-insensitive, after leading whitespace bytes), `<?xml`, PDF, PostScript, BOMs (text),
 * images, audio/video (fixed signatures and MP4; WebM and MP3-without-ID3 are not recognised),
 * archives, then `text/plain` unless the first 1445 bytes hold a binary data byte
 * (`application/octet-stream`).
 *
 * @param body the resource's bytes (only the first {@link SNIFF_HEADER_BYTES} are read).
 * @returns a MIME type essence such as `text/html`.
 */
export function sniffUnknownType(body: Uint8Array): string {
  const h = body.subarray(0, SNIFF_HEADER_BYTES);
  return (
    firstMatch(h, SCRIPTABLE) ??
    firstMatch(h, UNSCRIPTABLE) ??
    firstMatch(h, IMAGES) ??
    firstMatch(h, MEDIA) ??
    (isMp4(h) ? 'video/mp4' : null) ??
    firstMatch(h, ARCHIVES) ??
    (hasBinaryBytes(h) ? 'application/octet-stream' : 'text/plain')
  );
}

/** A `type/subtype` essence: token characters (RFC 9110 §5.6.2) around one `/`. */
const ESSENCE = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*(?:;|$)/;

/**
 * The essence of a Content-Type value, lowercase (`text/html`), or null when it is missing or
 * not a valid MIME type (then a browser sniffs, WHATWG Fetch "extract a MIME type").
 */
export function mimeEssence(contentType: string | null): string | null {
  if (contentType === null) return null;
  const m = ESSENCE.exec(contentType);
  return m === null ? null : m[1].toLowerCase();
}

/**
 * Whether a supplied Content-Type counts as unknown (§7.1 applies): missing, invalid, or one of
 * `unknown/unknown`, `application/unknown`, `*\/*`.
 */
export function isUnknownType(contentType: string | null): boolean {
  const e = mimeEssence(contentType);
  return e === null || e === 'unknown/unknown' || e === 'application/unknown' || e === '*/*';
}

/** Textual types: `text/*`, JSON, XML, JavaScript (`+json`, `+xml` suffixes included). */
function isTextual(essence: string): boolean {
  return (
    essence.startsWith('text/') ||
    /[/+](json|xml)$/.test(essence) ||
    essence === 'application/javascript' ||
    essence === 'application/ecmascript'
  );
}

/**
 * Whether `body` plainly is of the declared Content-Type (used when a Content-Encoding label is
 * unknown: are the bytes the content itself?). True when sniffing the bytes (§7.1) gives the
 * declared essence, or the type is textual (HTML, XML, JSON, `text/*`) and the bytes sniff as
 * HTML, XML or plain text (no binary data byte, no image/archive signature).
 * @param contentType the Content-Type header, or null (then never: nothing is declared).
 */
export function plainlyOfType(contentType: string | null, body: Uint8Array): boolean {
  const declared = mimeEssence(contentType);
  if (declared === null || body.length === 0) return false;
  const sniffed = sniffUnknownType(body);
  if (sniffed === declared) return true;
  if (!isTextual(declared)) return false;
  return sniffed === 'text/html' || sniffed === 'text/xml' || sniffed === 'text/plain';
}
