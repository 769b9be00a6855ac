import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { contentCodings, DecodeError, decodeContent, TooLargeError } from '../../src/http/decompress.js';

const MB = 1024 * 1024;
const TEXT = Buffer.from('<html><head><title>Héllo</title></head><body>'.padEnd(5000, 'x'));

describe('decodeContent', () => {
  it.each(['gzip', 'x-gzip', 'GZIP', ' gzip '])('decodes %j', (label) => {
    const r = decodeContent(zlib.gzipSync(TEXT), label, MB);
    expect(r.body.equals(TEXT)).toBe(true);
    expect(r.flag).toBeUndefined();
  });

  it('decodes deflate in its zlib-wrapped form (RFC 9110)', () => {
    const raw = zlib.deflateSync(TEXT);
    expect(raw[0]).toBe(0x78); // a zlib header
    const r = decodeContent(raw, 'deflate', MB);
    expect(r.body.equals(TEXT)).toBe(true);
    expect(r.flag).toBeUndefined();
  });

  it('decodes raw deflate (what many servers send)', () => {
    for (const level of [0, 1, 6, 9]) {
      const r = decodeContent(zlib.deflateRawSync(TEXT, { level }), 'deflate', MB);
      expect(r.body.equals(TEXT)).toBe(true);
    }
  });

  it('decodes br', () => {
    const r = decodeContent(zlib.brotliCompressSync(TEXT), 'br', MB);
    expect(r.body.equals(TEXT)).toBe(true);
    expect(r.flag).toBeUndefined();
  });

  it('passes identity and no encoding through unchanged', () => {
    for (const enc of [null, '', 'identity', 'Identity']) {
      const r = decodeContent(TEXT, enc, MB);
      expect(r.body).toBe(TEXT);
      expect(r.flag).toBeUndefined();
    }
  });

  it('keeps an empty body as is', () => {
    expect(decodeContent(Buffer.alloc(0), 'gzip', MB).body.length).toBe(0);
  });

  it('flags a body labelled gzip that is not gzip and keeps the original bytes', () => {
    const r = decodeContent(TEXT, 'gzip', MB);
    expect(r.flag).toBe('not-encoded');
    expect(r.body).toBe(TEXT);
  });

  it('under an unknown or nested coding, bytes that plainly are the declared type are used as is (not-encoded)', () => {
    for (const enc of ['utf-8', 'text', 'gzip, br']) {
      expect(decodeContent(TEXT, enc, MB, 'text/html; charset=utf-8'), enc).toEqual({
        body: TEXT,
        flag: 'not-encoded',
      });
      // without a Content-Type to compare with, they stay unknown
      expect(decodeContent(TEXT, enc, MB).flag, enc).toBe('unknown-encoding');
    }
  });

  it('reads the codings of a Content-Encoding value: none for no header', () => {
    expect(contentCodings(null)).toEqual([]);
    expect(contentCodings(' GZIP , identity, none, br')).toEqual(['gzip', 'br']);
  });

  it('flags an unknown or nested encoding and keeps the raw bytes', () => {
    const gz = zlib.gzipSync(TEXT);
    for (const enc of ['compress', 'zstd', 'gzip, br']) {
      const r = decodeContent(gz, enc, MB);
      expect(r.flag).toBe('unknown-encoding');
      expect(r.body).toBe(gz);
    }
  });

  it('throws DecodeError for truncated gzip', () => {
    const gz = zlib.gzipSync(TEXT);
    expect(() => decodeContent(gz.subarray(0, gz.length - 10), 'gzip', MB)).toThrow(DecodeError);
    expect(() => decodeContent(gz.subarray(0, 20), 'gzip', MB)).toThrow(DecodeError);
  });

  it('throws DecodeError for corrupt deflate and br', () => {
    const corrupt = zlib.deflateSync(TEXT);
    corrupt.fill(0xff, 2, 40);
    expect(() => decodeContent(corrupt, 'deflate', MB)).toThrow(DecodeError);
    const br = zlib.brotliCompressSync(TEXT);
    expect(() => decodeContent(br.subarray(0, br.length >> 1), 'br', MB)).toThrow(DecodeError);
  });

  it('accepts a body of exactly maxBytes and rejects one byte more', () => {
    const body = Buffer.alloc(1000, 'a');
    expect(decodeContent(zlib.gzipSync(body), 'gzip', 1000).body.length).toBe(1000);
    expect(() => decodeContent(zlib.gzipSync(body), 'gzip', 999)).toThrow(TooLargeError);
  });

  it.each([
    ['gzip', (b: Buffer) => zlib.gzipSync(b)],
    ['deflate', (b: Buffer) => zlib.deflateSync(b)],
    ['deflate', (b: Buffer) => zlib.deflateRawSync(b)],
    [
      'br',
      (b: Buffer) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }),
    ],
  ])('stops a %s bomb (50 MB of zeros) at maxBytes 1 MB, without inflating the rest', (enc, compress) => {
    const bomb = compress(Buffer.alloc(50 * MB));
    expect(bomb.length).toBeLessThan(MB); // it really is a bomb
    let err: unknown;
    try {
      decodeContent(bomb, enc, MB);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TooLargeError);
    expect((err as TooLargeError).limit).toBe(MB);
    expect((err as Error).message).toContain(String(MB));
    // The inflater stops at the limit: the same bomb with its end cut off is still too large, not
    // corrupt, because decoding never reaches the cut (inflating all 50 MB first would find it).
    const cut = bomb.subarray(0, bomb.length - 16);
    expect(() => decodeContent(cut, enc, MB)).toThrow(TooLargeError);
    expect(() => decodeContent(cut, enc, 64 * MB)).toThrow(DecodeError);
  });
});

describe('decodeContent: which deflate form, and what is gzip (mutation testing)', () => {
  it('an empty body is kept as is whatever its label, with no flag', () => {
    for (const enc of ['gzip', 'deflate', 'br']) {
      expect(decodeContent(Buffer.alloc(0), enc, MB), enc).toEqual({ body: Buffer.alloc(0) });
    }
  });

  it('a corrupt stream says so', () => {
    expect(() => decodeContent(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01]), 'gzip', MB)).toThrow(
      /^corrupt compressed body: /,
    );
  });

  it('raw deflate whose first two bytes pass the zlib checksum but not its method is raw', () => {
    // a final stored block of 23 bytes starts 0x01 0x17: (0x01 × 256 + 0x17) % 31 === 0, method 1
    const text = Buffer.alloc(23, 'a');
    const raw = zlib.deflateRawSync(text, { level: 0 });
    expect([raw[0], raw[1]]).toEqual([0x01, 0x17]);
    expect(((raw[0] << 8) | raw[1]) % 31).toBe(0);
    expect(decodeContent(raw, 'deflate', MB).body.equals(text)).toBe(true);
  });

  it('a body labelled gzip is gzip only when both magic bytes match', () => {
    const notGzip = Buffer.from([0x1f, 0x00, 0x41, 0x42, 0x43, 0x44]);
    expect(decodeContent(notGzip, 'gzip', MB)).toEqual({ body: notGzip, flag: 'not-encoded' });
    const alsoNot = Buffer.from([0x00, 0x8b, 0x41, 0x42, 0x43, 0x44]);
    expect(decodeContent(alsoNot, 'gzip', MB)).toEqual({ body: alsoNot, flag: 'not-encoded' });
  });

  it('raw deflate whose first byte looks like a zlib method (low nibble 8) but fails the header check is raw', () => {
    // a stored (uncompressed) first block, not final: its first byte's unused high bits are free,
    // so 0x08 is a valid raw stream whose (byte0 × 256 + byte1) % 31 is not 0
    const text = Buffer.alloc(70_000, 'a');
    const raw = Buffer.from(zlib.deflateRawSync(text, { level: 0 }));
    expect(raw[0]).toBe(0x00);
    raw[0] |= 0x08;
    expect(((raw[0] << 8) | raw[1]) % 31).not.toBe(0);
    expect(decodeContent(raw, 'deflate', MB).body.equals(text)).toBe(true);
  });
});
