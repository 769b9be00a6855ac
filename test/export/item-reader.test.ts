/**
 * Reading a data directory's items for export (src/export/item-reader.ts) on data dirs written
 * here line by line: fetch order across workers' files, each page once (its newest version, a
 * line marked unchanged never replacing an earlier one), filters, damaged and torn lines, and the
 * content as text (Markdown, text bodies in their charset, nothing for HTML or binary bodies).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSince } from '../../src/export/item-filter.js';
import { type ExportRecord, ItemReader, type ReadOptions } from '../../src/export/item-reader.js';
import { tempDir } from '../fixtures/cli.js';

const T0 = Date.parse('2026-12-01T00:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

/** An item line as the collector writes it (url first), with `extra` fields. */
function item(url: string, second: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    url,
    finalUrl: url,
    status: 200,
    contentType: 'text/html; charset=utf-8',
    fetchedAt: at(second),
    depth: 0,
    source: 'crawl',
    worker: 'crawl-0',
    bytes: 10,
    sha256: 'ab'.repeat(32),
    ...extra,
  };
}

/** A data dir with these items files (worker id → lines: objects, or raw text). */
function dataDir(files: Record<string, Array<Record<string, unknown> | string>>, tail = '\n'): string {
  const dir = tempDir('collector-export-');
  fs.mkdirSync(path.join(dir, 'items'));
  for (const [worker, lines] of Object.entries(files)) {
    const text = lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');
    fs.writeFileSync(path.join(dir, 'items', `${worker}.jsonl`), text + (lines.length > 0 ? tail : ''));
  }
  return dir;
}

async function read(dir: string, options: ReadOptions = {}) {
  const warnings: string[] = [];
  const reader = new ItemReader(dir, { onWarning: (m) => warnings.push(m), ...options });
  const records: ExportRecord[] = [];
  for await (const r of reader.records()) records.push(r);
  return { records, urls: records.map((r) => r.item.url), warnings, stats: reader.stats };
}

describe('fetch order', () => {
  it("interleaves the workers' files by fetchedAt, each file in its own order", async () => {
    const dir = dataDir({
      'crawl-0': [
        item('http://a/1', 1),
        item('http://a/3', 3),
        item('http://a/2', 2.5),
        item('http://a/6', 6),
      ],
      'crawl-1': [item('http://b/2', 2), item('http://b/4', 4), item('http://b/5', 5)],
    });
    const { urls, stats } = await read(dir);
    // a/2 (2.5 s) comes after a/3 (3 s): a file's own order is kept
    expect(urls).toEqual([
      'http://a/1',
      'http://b/2',
      'http://a/3',
      'http://a/2',
      'http://b/4',
      'http://b/5',
      'http://a/6',
    ]);
    expect(stats).toMatchObject({ files: 2, lines: 7, records: 7, olderVersions: 0, damaged: 0 });
  });

  it('takes the file listed first on a tie (the lower worker id)', async () => {
    const dir = dataDir({ 'crawl-1': [item('http://b/1', 1)], 'crawl-0': [item('http://a/1', 1)] });
    expect((await read(dir)).urls).toEqual(['http://a/1', 'http://b/1']);
  });
});

describe('each page once: its newest version', () => {
  const versions = () =>
    dataDir({
      'crawl-0': [
        item('http://a/p', 1, { data: { round: 0, version: 1 }, file: 'files/v1' }),
        item('http://a/q', 2),
        item('http://a/p', 3, { data: { round: 1, version: 2 }, file: 'files/v2' }),
        // a 304 in round 2: no body of its own; version 2 stays the newest
        item('http://a/p', 5, { status: 304, data: { round: 2, version: 2, unchanged: true } }),
        item('http://a/p', 6, {
          status: 503,
          error: { kind: 'http-status', message: 'HTTP 503' },
          data: { round: 3 },
        }),
      ],
      // the same URL fetched by another worker type, later
      'feed-0': [item('http://a/q', 4, { source: 'feed' })],
    });

  it('keeps the last line of each URL in fetch order, across files', async () => {
    const { records, stats } = await read(versions());
    expect(records.map((r) => [r.item.url, r.item.fetchedAt])).toEqual([
      ['http://a/q', at(4)],
      ['http://a/p', at(6)],
    ]);
    expect(stats).toMatchObject({ lines: 6, records: 2, olderVersions: 4 });
  });

  it('--ok-only: the newest successful fetch, never a line marked unchanged over the version it repeats', async () => {
    const { records } = await read(versions(), { okOnly: true });
    expect(records.map((r) => [r.item.url, r.item.file ?? null])).toEqual([
      ['http://a/p', 'files/v2'],
      ['http://a/q', null],
    ]);
  });

  it('an unchanged line is taken when it is all there is of its page', async () => {
    const dir = dataDir({
      'crawl-0': [
        item('http://a/p', 1, { data: { unchanged: true, round: 4 } }),
        item('http://a/p', 2, { data: { unchanged: true, round: 5 } }),
      ],
    });
    const { records } = await read(dir);
    expect(records.map((r) => r.item.fetchedAt)).toEqual([at(2)]);
  });

  it('--all-versions: every line', async () => {
    const { urls, stats } = await read(versions(), { allVersions: true });
    expect(urls).toEqual([
      'http://a/p',
      'http://a/q',
      'http://a/p',
      'http://a/q',
      'http://a/p',
      'http://a/p',
    ]);
    expect(stats.olderVersions).toBe(0);
  });

  it('many URLs, each fetched several times: one record each, the last one', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const n = 5000;
    for (let round = 0; round < 3; round++)
      for (let i = 0; i < n; i++) lines.push(item(`http://a/${i}`, round * n + i, { data: { round } }));
    const { records } = await read(dataDir({ 'crawl-0': lines }));
    expect(records).toHaveLength(n);
    expect(records.every((r) => r.item.data?.round === 2)).toBe(true);
  });
});

describe('filters', () => {
  const dir = () =>
    dataDir({
      'crawl-0': [item('http://a/1', 1), item('http://a/2', 100, { data: { round: 2 } })],
      'feed-0': [item('http://f/1', 50, { source: 'feed', data: { round: 1 } })],
    });

  it('--source', async () => {
    const { urls, stats } = await read(dir(), { sources: ['feed'] });
    expect(urls).toEqual(['http://f/1']);
    expect(stats.filteredOut).toBe(2);
  });

  it('--since a time, --since round:N', async () => {
    expect((await read(dir(), { since: parseSince(at(50)) })).urls).toEqual(['http://f/1', 'http://a/2']);
    expect((await read(dir(), { since: parseSince('round:2') })).urls).toEqual(['http://a/2']);
    expect((await read(dir(), { since: parseSince('round:0') })).urls).toHaveLength(3);
  });

  it('--since takes dates, date-times (UTC without a zone) and rejects anything else', () => {
    expect(parseSince('2026-12-01')).toEqual({ time: T0 });
    expect(parseSince('2026-12-01T01:00')).toEqual({ time: T0 + 3_600_000 });
    expect(parseSince('2026-12-01T02:00:00+01:00')).toEqual({ time: T0 + 3_600_000 });
    for (const bad of ['yesterday', '2026-13-45', 'round:', 'round:-1', '12/01/2026']) {
      expect(() => parseSince(bad), bad).toThrow(/--since .*expected an ISO 8601 date/);
    }
  });
});

describe('damaged and torn lines', () => {
  it('skips a damaged line with a warning naming its file and line, and reads on', async () => {
    const dir = dataDir({
      'crawl-0': [
        item('http://a/1', 1),
        '{"url":"http://a/2","finalUrl":"http://a/2","status":200,"fetchedAt":"2026-12-01T00:0',
        '',
        '[1,2]',
        JSON.stringify({ finalUrl: 'http://a/x', fetchedAt: at(3) }),
        JSON.stringify({ url: 'http://a/y', fetchedAt: 'soon' }),
        item('http://a/3', 3),
      ],
    });
    const { urls, warnings, stats } = await read(dir);
    expect(urls).toEqual(['http://a/1', 'http://a/3']);
    expect(warnings).toEqual([
      'items/crawl-0.jsonl line 2: not JSON: skipped',
      'items/crawl-0.jsonl line 3: an empty line: skipped',
      'items/crawl-0.jsonl line 4: not a JSON object: skipped',
      'items/crawl-0.jsonl line 5: no url: skipped',
      'items/crawl-0.jsonl line 6: no valid fetchedAt: skipped',
    ]);
    expect(stats.damaged).toBe(5);
  });

  it('a line damaged inside, though it starts and ends like an item, is skipped and does not hide its older version', async () => {
    const dir = dataDir({
      'crawl-0': [item('http://a/1', 1), `{"url":"http://a/1","fetchedAt":"${at(2)}",oops}`],
    });
    const { records, warnings } = await read(dir);
    expect(warnings).toEqual(['items/crawl-0.jsonl line 2: not JSON: skipped']);
    // the first pass took the damaged line for the newest: the page has no record (documented)
    expect(records).toEqual([]);
  });

  it('does not read a torn last line (no newline yet: a collector is writing it), and warns of nothing', async () => {
    const dir = dataDir({ 'crawl-0': [item('http://a/1', 1), '{"url":"http://a/2","finalUrl":"http:'] }, '');
    const { urls, warnings, stats } = await read(dir);
    expect(urls).toEqual(['http://a/1']);
    expect(warnings).toEqual([]);
    expect(stats.lines).toBe(1);
  });

  it('lines appended after reading started are not read', async () => {
    const dir = dataDir({ 'crawl-0': [item('http://a/1', 1), item('http://a/2', 2)] });
    const reader = new ItemReader(dir);
    const urls: string[] = [];
    for await (const r of reader.records()) {
      urls.push(r.item.url);
      fs.appendFileSync(
        path.join(dir, 'items', 'crawl-0.jsonl'),
        `${JSON.stringify(item(`http://a/new${urls.length}`, 9))}\n`,
      );
    }
    expect(urls).toEqual(['http://a/1', 'http://a/2']);
  });

  it('a data dir without items/ has no records', async () => {
    const { records, stats } = await read(tempDir('collector-export-'));
    expect(records).toEqual([]);
    expect(stats).toMatchObject({ files: 0, lines: 0 });
  });
});

describe('content as text', () => {
  function contentDir(): string {
    const dir = dataDir({
      'crawl-0': [
        item('http://a/page/', 1, {
          file: 'files/a/page/index.html',
          data: { markdown: 'files/a/page/index.md', title: 'Page' },
        }),
        item('http://a/plain.txt', 2, {
          contentType: 'text/plain; charset=iso-8859-1',
          file: 'files/a/plain.txt',
        }),
        item('http://a/data.json', 3, { contentType: 'application/json', file: 'files/a/data.json' }),
        item('http://a/nomd/', 4, { file: 'files/a/nomd/index.html' }),
        item('http://a/logo.png', 5, { contentType: 'image/png', file: 'files/a/logo.png' }),
        item('http://a/sniffed', 6, {
          contentType: null,
          file: 'files/a/sniffed',
          data: { sniffedType: 'text/plain' },
        }),
        item('http://a/gone/', 7, { data: { markdown: 'files/a/gone/index.md' } }),
        item('http://a/evil', 8, { contentType: 'text/plain', file: '../outside.txt' }),
        item('http://a/failed', 9, { status: 404, error: { kind: 'http-status', message: 'HTTP 404' } }),
      ],
    });
    const files: Record<string, string | Buffer> = {
      'files/a/page/index.md': '# Page\n\nSome *text*.\n',
      'files/a/page/index.html': '<html><body>Some text.</body></html>',
      'files/a/plain.txt': Buffer.from('caf\xe9 cr\xe8me', 'latin1'),
      'files/a/data.json': '{"a": 1}',
      'files/a/nomd/index.html': '<html></html>',
      'files/a/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]),
      'files/a/sniffed': 'just text',
    };
    for (const [rel, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), content);
    }
    fs.writeFileSync(path.join(dir, '..', 'outside.txt'), 'secret');
    return dir;
  }

  it('the Markdown of a page, a text body in its charset, nothing for HTML without Markdown, binary or no body', async () => {
    const { records, warnings, stats } = await read(contentDir(), { withContent: true });
    expect(Object.fromEntries(records.map((r) => [new URL(r.item.url).pathname, r.text]))).toEqual({
      '/page/': '# Page\n\nSome *text*.\n',
      '/plain.txt': 'café crème',
      '/data.json': '{"a": 1}',
      '/nomd/': null,
      '/logo.png': null,
      '/sniffed': 'just text',
      '/gone/': null,
      '/evil': null,
      '/failed': null,
    });
    expect(warnings).toEqual([
      'items/crawl-0.jsonl line 7: content files/a/gone/index.md: not found',
      'items/crawl-0.jsonl line 8: content ../outside.txt: outside the data directory',
    ]);
    expect(stats.missingContent).toBe(2);
  });

  it('utf8Text: a text stored as UTF-8 comes as its bytes (BOM left out), the same text as a string read', async () => {
    const dir = contentDir();
    const files: Record<string, string | Buffer> = {
      'files/a/page/index.md': '\uFEFF# Päge ✓\n',
      'files/a/data.json': Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), // not UTF-8: decoded, U+FFFD
      'files/a/sniffed': Buffer.from('\uFEFFjust tëxt'),
    };
    for (const [rel, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, rel), content);
    const strings = await read(dir, { withContent: true });
    // A view is valid until the next record is taken: each one decoded at once.
    const kinds: string[] = [];
    const texts: (string | null | undefined)[] = [];
    for await (const r of new ItemReader(dir, {
      withContent: true,
      utf8Text: true,
      onWarning: () => {},
    }).records()) {
      kinds.push(r.text instanceof Uint8Array ? 'bytes' : r.text === null ? 'null' : typeof r.text);
      texts.push(r.text instanceof Uint8Array ? Buffer.from(r.text).toString('utf8') : r.text);
    }
    expect(kinds).toEqual(['bytes', 'string', 'string', 'null', 'null', 'bytes', 'null', 'null', 'null']);
    expect(texts).toEqual(strings.records.map((r) => r.text));
    expect(texts[0]).toBe('# Päge ✓\n');
    expect(texts[2]).toBe('{"\uFFFD"}');
    expect(texts[5]).toBe('just tëxt');
  });

  it('without withContent, text is undefined and no file is read', async () => {
    const { records, warnings } = await read(contentDir());
    expect(records.every((r) => r.text === undefined)).toBe(true);
    expect(warnings).toEqual([]);
  });
});
