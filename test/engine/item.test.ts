import { describe, expect, it } from 'vitest';
import { countsAsError, errorItem, markDuplicate, newItem } from '../../src/engine/item.js';

const origin = { source: 'crawl', worker: 'crawl-0' };
const entry = { url: 'http://a.example/x', depth: 2 };

describe('item lines', () => {
  it('a new item names its URL, depth, source and worker, with no body yet', () => {
    const item = newItem(origin, entry, 'http://a.example/y', 200, 'text/html');
    expect(item).toMatchObject({
      url: 'http://a.example/x',
      finalUrl: 'http://a.example/y',
      status: 200,
      contentType: 'text/html',
      depth: 2,
      source: 'crawl',
      worker: 'crawl-0',
      bytes: 0,
      sha256: null,
    });
    expect(Date.parse(item.fetchedAt)).not.toBeNaN();
  });

  it('an error item hashes the failing response body', () => {
    const res = {
      url: entry.url,
      status: 503,
      headers: {},
      contentType: 'text/plain',
      location: null,
      body: Buffer.from('busy'),
      contentEncoding: null,
    };
    const item = errorItem(
      origin,
      entry,
      entry.url,
      { kind: 'http-status', message: 'HTTP 503' },
      503,
      res,
      1000,
    );
    expect(item).toMatchObject({
      status: 503,
      bytes: 4,
      contentType: 'text/plain',
      error: { kind: 'http-status' },
    });
    // sha256("busy")
    expect(item.sha256).toBe('c9bc072f4fa8189466c2a8f2c36a56a4ef1e60a2ffa4986ba2f155cd176c128b');
  });

  it('marks duplicates: another URL, the same URL in a later round, or an original not found', () => {
    const dup = newItem(origin, entry, entry.url, 200, null);
    markDuplicate(dup, 'http://a.example/orig', 0);
    expect(dup.data).toEqual({ duplicateOf: 'http://a.example/orig' });
    const same = newItem(origin, entry, entry.url, 200, null);
    markDuplicate(same, entry.url, 3);
    expect(same.data).toEqual({ unchanged: true, round: 3 });
    const lost = { ...newItem(origin, entry, entry.url, 200, null), sha256: 'ab'.repeat(32) };
    markDuplicate(lost, null, 0);
    expect(lost.data).toEqual({ duplicateOf: null, duplicateSha256: 'ab'.repeat(32) });
  });

  it('counts failures and bodies that could not be stored as errors', () => {
    expect(countsAsError({ error: { kind: 'timeout', message: 't' } })).toBe(true);
    expect(countsAsError({ data: { storeError: 'ENOSPC' } })).toBe(true);
    expect(countsAsError({ data: { duplicateOf: 'x' } })).toBe(false);
    expect(countsAsError({})).toBe(false);
  });
});
