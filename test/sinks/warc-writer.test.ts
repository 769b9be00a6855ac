import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  cdxjLine,
  gzipRecord,
  requestHead,
  responseHead,
  sha1Digest,
  surt,
} from '../../src/sinks/warc-record.js';
import { type WarcAppend, WarcWriter, warcFileName } from '../../src/sinks/warc-writer.js';
import { tempDir } from '../fixtures/cli.js';
import { parseRecords, readWarc, readWithWarcio, sha1Base32 } from '../fixtures/warc-files.js';

const exchange = {
  url: 'http://127.0.0.1:1/a',
  startedAt: 0,
  requestHead: 'GET /a HTTP/1.1\r\nhost: 127.0.0.1:1\r\ncookie: s=1\r\nx-token: secret\r\naccept: */*\r\n',
  ip: '127.0.0.1',
  status: 200,
  statusText: 'OK',
  headers: [
    ['Content-Type', 'text/html'],
    ['Transfer-Encoding', 'chunked'],
    ['Set-Cookie', 'a=1'],
    ['Set-Cookie', 'b=2'],
  ] as Array<[string, string]>,
  body: Buffer.from('<p>hi</p>'),
};

describe('WARC records', () => {
  it('digests are SHA-1 in RFC 4648 base32', () => {
    // SHA-1 of the empty string, base32: the value every WARC tool writes for an empty payload.
    expect(sha1Digest(Buffer.alloc(0))).toBe('sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ');
    const data = Buffer.from('some payload bytes');
    expect(sha1Digest(data.subarray(0, 4), data.subarray(4))).toBe(sha1Base32(data));
  });

  it('keeps the response head as received, repeated fields and case, Transfer-Encoding renamed', () => {
    expect(responseHead(exchange).toString('latin1')).toBe(
      'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Crawler-Transfer-Encoding: chunked\r\n' +
        'Set-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\n',
    );
  });

  it('leaves hidden request fields out of the request head', () => {
    const head = requestHead(exchange, new Set(['cookie', 'x-token'])).toString('latin1');
    expect(head).toBe('GET /a HTTP/1.1\r\nhost: 127.0.0.1:1\r\naccept: */*\r\n\r\n');
  });

  it('a record is one gzip member: version, fields, Content-Length, block, CRLF CRLF', () => {
    const member = gzipRecord({
      fields: [['WARC-Type', 'resource']],
      block: [Buffer.from('ab'), Buffer.from('c')],
    });
    const [r] = parseRecords(zlib.gunzipSync(member));
    expect(r.fields['warc-type']).toBe('resource');
    expect(r.fields['content-length']).toBe('3');
    expect(r.block.toString()).toBe('abc');
  });

  it('SURT keys as warcio makes them', () => {
    expect(surt('http://www.Example.com/a/B?b=1&a=2')).toBe('com,example)/a/b?a=2&b=1');
    expect(surt('https://127.0.0.1:8080/x')).toBe('1,0,0,127:8080)/x');
    const line = cdxjLine({
      url: 'http://example.com/',
      date: '2024-05-06T07:08:09.123Z',
      mime: 'text/html',
      status: 200,
      digest: 'ABC',
      offset: 10,
      length: 20,
      filename: 'f.warc.gz',
    });
    expect(line).toBe(
      'com,example)/ 20240506070809 {"url":"http://example.com/","mime":"text/html","status":"200","digest":"ABC","length":"20","offset":"10","filename":"f.warc.gz"}',
    );
  });
});

/** A response record of `size` payload bytes for `url`, with its CDXJ entry. */
function record(url: string, size = 100): WarcAppend {
  // Random bytes: they do not compress, so a record is about `size` bytes in the file.
  const body = randomBytes(size);
  const bytes = gzipRecord({
    fields: [
      ['WARC-Type', 'response'],
      ['WARC-Target-URI', url],
      ['WARC-Date', '2024-01-01T00:00:00.000Z'],
      ['Content-Type', 'application/http;msgtype=response'],
    ],
    block: [Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n'), body],
  });
  return {
    bytes,
    cdx: { url, date: '2024-01-01T00:00:00.000Z', mime: 'text/plain', status: 200, digest: 'D' },
  };
}

const info: Array<[string, string]> = [['software', 'test']];

describe('WarcWriter', () => {
  it('appends whole records with a warcinfo first, and says where each item is', async () => {
    const out = tempDir();
    const { writer } = WarcWriter.open({ outDir: out, worker: 'w-0', maxSize: 1 << 30, info }, null);
    const a = writer.append([record('http://h/b'), record('http://h/b2')]);
    const b = writer.append([record('http://h/a')]);
    writer.close();
    expect(a.file).toBe(`warc/${warcFileName('w-0', 0)}`);
    expect(b.offset).toBe(a.offset + a.length);
    const file = path.join(out, a.file);
    const records = readWarc(file);
    expect(records.map((r) => r.fields['warc-type'])).toEqual([
      'warcinfo',
      'response',
      'response',
      'response',
    ]);
    expect(records.slice(1).every((r) => r.fields['warc-warcinfo-id'] === undefined)).toBe(true);
    // The item's range is exactly its records.
    const range = fs.readFileSync(file).subarray(b.offset, b.offset + b.length);
    expect(parseRecords(zlib.gunzipSync(range)).map((r) => r.fields['warc-target-uri'])).toEqual([
      'http://h/a',
    ]);
    expect((await readWithWarcio(file)).map((r) => r.type)).toEqual([
      'warcinfo',
      'response',
      'response',
      'response',
    ]);
    // The index is sorted at close.
    const cdxj = fs.readFileSync(file.replace('.warc.gz', '.cdxj'), 'utf8').trimEnd().split('\n');
    expect(cdxj.map((l) => l.split(' ')[0])).toEqual(['h)/a', 'h)/b', 'h)/b2']);
  });

  it('starts a new file past the size limit, each with its own warcinfo', () => {
    const out = tempDir();
    const { writer } = WarcWriter.open({ outDir: out, worker: 'w-0', maxSize: 2000, info }, null);
    const locations = Array.from({ length: 6 }, (_, i) => writer.append([record(`http://h/${i}`, 3000)]));
    writer.close();
    const files = [...new Set(locations.map((l) => l.file))];
    expect(files.length).toBeGreaterThan(1);
    for (const f of files) {
      const records = readWarc(path.join(out, f));
      expect(records[0].fields['warc-type']).toBe('warcinfo');
      expect(records[0].fields['warc-filename']).toBe(path.basename(f));
    }
  });

  it('at resume: cuts records no item names, removes files no item names, trims the index', () => {
    const out = tempDir();
    const { writer } = WarcWriter.open({ outDir: out, worker: 'w-0', maxSize: 1 << 30, info }, null);
    const kept = writer.append([record('http://h/kept')]);
    writer.append([record('http://h/orphan')]);
    writer.close();
    const file = path.join(out, kept.file);
    // A torn record after them, as a kill -9 during a write leaves it.
    fs.appendFileSync(file, record('http://h/torn').bytes.subarray(0, 30));
    // A later file no item names (a roll-over the crash came right after).
    fs.writeFileSync(path.join(out, 'warc', warcFileName('w-0', 1)), record('http://h/later').bytes);
    const ends = new Map([[kept.file, kept.offset + kept.length]]);
    const { writer: resumed, repair } = WarcWriter.open(
      { outDir: out, worker: 'w-0', maxSize: 1 << 30, info },
      ends,
    );
    expect(repair.removedFiles).toEqual([`warc/${warcFileName('w-0', 1)}`]);
    expect(repair.cutBytes).toBeGreaterThan(0);
    expect(fs.statSync(file).size).toBe(kept.offset + kept.length);
    expect(readWarc(file).map((r) => r.fields['warc-target-uri'])).toEqual([undefined, 'http://h/kept']);
    const cdxj = fs.readFileSync(file.replace('.warc.gz', '.cdxj'), 'utf8');
    expect(cdxj).toContain('http://h/kept');
    expect(cdxj).not.toContain('orphan');
    // --resume appends to the same file, after a warcinfo of its own.
    const next = resumed.append([record('http://h/next')]);
    resumed.close();
    expect(next.file).toBe(kept.file);
    expect(readWarc(file).map((r) => r.fields['warc-type'])).toEqual([
      'warcinfo',
      'response',
      'warcinfo',
      'response',
    ]);
  });

  it('a failed write is cut back and every later write refused', () => {
    const out = tempDir();
    const { writer } = WarcWriter.open({ outDir: out, worker: 'w-0', maxSize: 1 << 30, info }, null);
    const ok = writer.append([record('http://h/ok')]);
    const file = path.join(out, ok.file);
    // The next write fails: the file is made read-only under the writer (as ENOSPC would fail it).
    const fd = (writer as unknown as { current: { fd: number } }).current.fd;
    fs.closeSync(fd);
    (writer as unknown as { current: { fd: number } }).current.fd = fs.openSync(file, 'r');
    expect(() => writer.append([record('http://h/fails')])).toThrow();
    expect(() => writer.append([record('http://h/after')])).toThrow();
    expect(fs.statSync(file).size).toBe(ok.offset + ok.length);
    expect(readWarc(file).map((r) => r.fields['warc-target-uri'])).toEqual([undefined, 'http://h/ok']);
  });
});
