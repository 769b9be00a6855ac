/**
 * MIME sniffing for an unknown type, by the WHATWG MIME Sniffing Standard §7.1 (pattern tables of
 * §7.1 and §6.1–6.3; expected types are the standard's).
 */
import { describe, expect, it } from 'vitest';
import { decodeContent } from '../../src/http/decompress.js';
import { isUnknownType, mimeEssence, plainlyOfType, sniffUnknownType } from '../../src/http/mime-sniff.js';
import { isHtml, sniffedType } from '../../src/sources/crawl.js';

const b = (s: string) => Buffer.from(s, 'latin1');

describe('sniffUnknownType (§7.1)', () => {
  it.each([
    ['<!DOCTYPE html><html>', 'text/html'],
    ['<!-- comment --><p>x', 'text/html'],
    ['<head><title>x</title>', 'text/html'],
    ['\n\t\r\f <TITLE>x', 'text/html'],
    ['<p>para', 'text/html'],
    ['<a href=x>', 'text/html'],
    ['<br>', 'text/html'],
    ['<Body>', 'text/html'],
    ['<script >', 'text/html'],
    ['<iframe src=x>', 'text/html'],
    // the pattern needs a tag-terminating byte (space or >) after the name
    ['<!--comment-->', 'text/plain'],
    ['<bx>', 'text/plain'],
    ['<html', 'text/plain'],
    ['<?xml version="1.0"?><rss>', 'text/xml'],
    ['%PDF-1.7', 'application/pdf'],
    ['%!PS-Adobe-3.0', 'application/postscript'],
    ['\xEF\xBB\xBF<html>', 'text/plain'],
    ['\xFF\xFE<\x00h\x00', 'text/plain'],
    ['GIF89a....', 'image/gif'],
    ['\x89PNG\r\n\x1a\n....', 'image/png'],
    ['\xFF\xD8\xFF\xE0', 'image/jpeg'],
    ['RIFF\x00\x00\x00\x00WEBPVP8 ', 'image/webp'],
    ['ID3\x03', 'audio/mpeg'],
    ['\x1F\x8B\x08\x00', 'application/x-gzip'],
    ['PK\x03\x04', 'application/zip'],
    ['plain words, no tags', 'text/plain'],
    ['bytes\x00\x01\x02', 'application/octet-stream'],
  ])('%j → %s', (input, type) => {
    expect(sniffUnknownType(b(input))).toBe(type);
  });

  it('recognises an MP4 ftyp box', () => {
    const box = Buffer.concat([Buffer.from([0, 0, 0, 16]), b('ftypisom'), Buffer.from([0, 0, 0, 0])]);
    expect(sniffUnknownType(box)).toBe('application/octet-stream');
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 16]), b('ftypmp42'), Buffer.from([0, 0, 0, 0])]);
    expect(sniffUnknownType(mp4)).toBe('video/mp4');
  });
});

describe('supplied types', () => {
  it('treats missing, invalid and the unknown types as unknown', () => {
    for (const t of [null, '', 'text', 'unknown/unknown', 'application/unknown', '*/*', 'garbage; x=y']) {
      expect([t, isUnknownType(t)]).toEqual([t, true]);
    }
    expect(isUnknownType('text/html; charset=utf-8')).toBe(false);
    expect(mimeEssence(' Text/HTML ; charset=x')).toBe('text/html');
  });

  it('plainlyOfType: the bytes are the declared type', () => {
    expect(plainlyOfType('text/html', b('<!doctype html><title>x</title>'))).toBe(true);
    expect(plainlyOfType('text/html', b('just text'))).toBe(true);
    expect(plainlyOfType('text/html', b('\x1F\x8B\x08\x00binary'))).toBe(false);
    expect(plainlyOfType('image/png', b('\x89PNG\r\n\x1a\n'))).toBe(true);
    expect(plainlyOfType('image/png', b('<html>'))).toBe(false);
    expect(plainlyOfType(null, b('<html>'))).toBe(false);
  });
});

describe('crawl source sniffing', () => {
  it('HTML by the §7.1 patterns when the type is missing or unknown; a BOM is skipped', () => {
    expect(isHtml(null, b('<!-- comment -->\n<p>x'))).toBe(true);
    expect(isHtml('unknown/unknown', b('<head><title>t</title>'))).toBe(true);
    expect(isHtml(null, b('\xEF\xBB\xBF<html><title>t</title>'))).toBe(true);
    expect(isHtml(null, b('plain text'))).toBe(false);
    expect(isHtml('text/plain', b('<html>'))).toBe(false);
    expect(sniffedType('text/html', b('x'))).toBeNull();
    expect(sniffedType(null, Buffer.alloc(0))).toBeNull();
  });
});

describe('Content-Encoding spellings', () => {
  const page = b('<!doctype html><title>x</title>');
  it('none, identity (any case) and empty tokens are no coding', () => {
    for (const enc of ['none', 'None', 'identity', ' IDENTITY ', 'identity, none', '']) {
      expect(decodeContent(page, enc, 1000, 'text/html')).toEqual({ body: page });
    }
  });

  it('an unknown coding on plain bytes of the declared type is used as is, flagged not-encoded', () => {
    expect(decodeContent(page, 'utf-8', 1000, 'text/html')).toEqual({ body: page, flag: 'not-encoded' });
    expect(decodeContent(page, 'compress', 1000, null)).toEqual({ body: page, flag: 'unknown-encoding' });
    const gz = b('\x1F\x8B\x08\x00\x00\x00\x00\x00');
    expect(decodeContent(gz, 'compress', 1000, 'text/html')).toEqual({ body: gz, flag: 'unknown-encoding' });
  });
});
