import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WarcRecorder } from '../../src/engine/warc-recorder.js';
import type { Exchange } from '../../src/http/exchange.js';
import { PROFILE_IDENTICAL, PROFILE_NOT_MODIFIED } from '../../src/sinks/warc-record.js';
import { WarcWriter } from '../../src/sinks/warc-writer.js';
import { tempDir } from '../fixtures/cli.js';
import { readWarc, readWithWarcio, sha1Base32 } from '../fixtures/warc-files.js';

function exchange(url: string, status: number, body: string, extra: Partial<Exchange> = {}): Exchange {
  return {
    url,
    startedAt: Date.UTC(2024, 0, 2, 3, 4, 5),
    requestHead: `GET ${new URL(url).pathname} HTTP/1.1\r\nhost: h\r\ncookie: jar=1\r\nauthorization: Bearer s3cret\r\n`,
    ip: '127.0.0.1',
    status,
    statusText: status === 304 ? 'Not Modified' : 'OK',
    headers: [['Content-Type', 'text/html']],
    body: Buffer.from(body),
    ...extra,
  };
}

function open(revisits: boolean): { recorder: WarcRecorder; out: string } {
  const out = tempDir();
  const { writer } = WarcWriter.open({ outDir: out, worker: 'w-0', maxSize: 1 << 30, info: [] }, null);
  const recorder = new WarcRecorder(revisits);
  recorder.attach(writer);
  return { recorder, out };
}

describe('WarcRecorder', () => {
  it("writes a URL's fetches with its item, robots.txt first, and nothing for a URL without fetches", async () => {
    const { recorder, out } = open(false);
    const robotsHead = 'GET /robots.txt HTTP/1.1\r\nhost: h\r\ncookie: jar=1\r\n';
    recorder.robotsFetched(
      exchange('http://h/robots.txt', 200, 'User-agent: *', { requestHead: robotsHead }),
    );
    recorder.claimRobots('http://h/a');
    recorder.fetched('http://h/a', exchange('http://h/a', 301, ''), ['authorization']);
    recorder.fetched('http://h/a', exchange('http://h/b', 200, '<p>b</p>'), ['authorization']);
    recorder.links('http://h/a', ['http://h/c', { url: 'http://h/d', meta: {} }]);
    expect(recorder.write('http://h/none')).toBeUndefined();
    const at = recorder.write('http://h/a');
    recorder.close();
    expect(at?.offset).toBeGreaterThan(0); // after the warcinfo
    const file = path.join(out, at?.file ?? '');
    const records = readWarc(file);
    expect(records.map((r) => [r.fields['warc-type'], r.fields['warc-target-uri']])).toEqual([
      ['warcinfo', undefined],
      ['request', 'http://h/robots.txt'],
      ['response', 'http://h/robots.txt'],
      ['request', 'http://h/a'],
      ['response', 'http://h/a'],
      ['request', 'http://h/b'],
      ['response', 'http://h/b'],
      ['metadata', 'http://h/b'],
    ]);
    // Neither the cookie jar's header nor authorize()'s credentials are written.
    for (const r of records.filter((x) => x.fields['warc-type'] === 'request')) {
      expect(r.httpHead).not.toMatch(/cookie|s3cret/i);
    }
    expect(records[5].httpHead).not.toMatch(/authorization/i);
    expect(records[3].httpHead).not.toMatch(/cookie/i);
    expect(records[7].block.toString()).toBe('outlink: http://h/c\r\noutlink: http://h/d\r\n');
    expect(records[7].fields['warc-concurrent-to']).toBe(records[6].fields['warc-record-id']);
    expect(records[1].fields['warc-warcinfo-id']).toBe(records[0].fields['warc-record-id']);
    expect(await readWithWarcio(file)).toHaveLength(records.length);
  });

  it('continuous collection: an unchanged body and a 304 are revisits pointing at the original', async () => {
    const { recorder, out } = open(true);
    recorder.fetched('http://h/p', exchange('http://h/p', 200, 'same'));
    const first = recorder.write('http://h/p');
    recorder.fetched('http://h/p', exchange('http://h/p', 200, 'same'));
    recorder.write('http://h/p');
    recorder.fetched('http://h/p', exchange('http://h/p', 304, ''));
    recorder.write('http://h/p');
    recorder.fetched('http://h/p', exchange('http://h/p', 200, 'changed'));
    recorder.write('http://h/p');
    recorder.close();
    const file = path.join(out, first?.file ?? '');
    const responses = readWarc(file).filter((r) => ['response', 'revisit'].includes(r.fields['warc-type']));
    const [original, identical, notModified, changed] = responses;
    expect(responses.map((r) => r.fields['warc-type'])).toEqual([
      'response',
      'revisit',
      'revisit',
      'response',
    ]);
    expect(identical.fields['warc-profile']).toBe(PROFILE_IDENTICAL);
    expect(notModified.fields['warc-profile']).toBe(PROFILE_NOT_MODIFIED);
    for (const r of [identical, notModified]) {
      expect(r.fields['warc-refers-to']).toBe(original.fields['warc-record-id']);
      expect(r.fields['warc-refers-to-target-uri']).toBe('http://h/p');
      expect(r.fields['warc-refers-to-date']).toBe(original.fields['warc-date']);
      expect(r.fields['warc-payload-digest']).toBe(sha1Base32(Buffer.from('same')));
      // The block is the HTTP head only.
      expect(r.payload.length).toBe(0);
    }
    expect(changed.fields['warc-payload-digest']).toBe(sha1Base32(Buffer.from('changed')));
    const types = (await readWithWarcio(file)).map((r) => r.type);
    expect(types.filter((t) => t === 'revisit')).toHaveLength(2);
  });

  it('one-shot crawl: the same body again is a response (no per-URL memory kept)', () => {
    const { recorder, out } = open(false);
    recorder.fetched('http://h/p', exchange('http://h/p', 200, 'same'));
    const at = recorder.write('http://h/p');
    recorder.fetched('http://h/p', exchange('http://h/p', 200, 'same'));
    recorder.write('http://h/p');
    recorder.close();
    const types = readWarc(path.join(out, at?.file ?? '')).map((r) => r.fields['warc-type']);
    expect(types.filter((t) => t === 'response')).toHaveLength(2);
  });
});
