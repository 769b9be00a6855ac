/**
 * Header values as URLs: undici hands header bytes over as Latin-1 strings (one char per byte),
 * so a `Location` sent as raw UTF-8 would be read as mojibake. This turns the bytes back into the
 * URL the server meant before it is resolved.
 */
import { isUtf8 } from 'node:buffer';

/**
 * The URL string of a `Location` (or `Refresh`) header value as received.
 *
 * ASCII values are returned unchanged. Otherwise the value's bytes are taken back from the
 * Latin-1 string: bytes that form valid UTF-8 are decoded as UTF-8 (the URL parser then
 * percent-encodes them as UTF-8: `/caf\xC3\xA9.html` → `/caf%C3%A9.html`, as browsers do);
 * any other byte sequence has each non-ASCII byte percent-encoded as it is (`/caf\xE9.html` →
 * `/caf%E9.html`), never re-encoded from Latin-1 (`%C3%83%C2%A9`).
 *
 * @param value the header value as undici gives it (each char a byte, 0x00–0xFF).
 */
export function headerUrl(value: string): string {
  let ascii = true;
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return value;
  const bytes = Buffer.from(value, 'latin1');
  if (isUtf8(bytes)) return bytes.toString('utf8');
  let out = '';
  for (const b of bytes)
    out += b < 0x80 ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}
