/**
 * The small parts of an export: the newest-version table, the first pass's scan of a line (it must
 * agree with a full parse), the columns (choice, defensive reading) and CSV fields (RFC 4180).
 */
import { describe, expect, it } from 'vitest';
import { COLUMNS, selectColumns } from '../../src/export/columns.js';
import { csvField } from '../../src/export/csv-format.js';
import { parseFormat } from '../../src/export/format-writer.js';
import { parseItemLine, scanItemLine } from '../../src/export/item-line.js';
import type { ExportRecord } from '../../src/export/item-reader.js';
import { NewestVersions } from '../../src/export/newest-versions.js';

describe('NewestVersions', () => {
  it('records the last line of each URL; an unchanged line never replaces a changed one', () => {
    const t = new NewestVersions();
    t.record('http://a/1', 10, false);
    t.record('http://a/2', 11, true);
    t.record('http://a/1', 12, true); // unchanged: 10 stays
    t.record('http://a/2', 13, true); // unchanged over unchanged: the later one
    expect([t.isNewest('http://a/1', 10), t.isNewest('http://a/1', 12)]).toEqual([true, false]);
    expect([t.isNewest('http://a/2', 11), t.isNewest('http://a/2', 13)]).toEqual([false, true]);
    t.record('http://a/2', 14, false);
    expect(t.isNewest('http://a/2', 14)).toBe(true);
    expect(t.isNewest('http://a/3', 0)).toBe(false);
    expect(t.size).toBe(2);
  });

  it('grows, and keeps every URL apart at 200,000 URLs in 16 to 32 bytes each', () => {
    const t = new NewestVersions();
    const n = 200_000;
    for (let i = 0; i < n; i++) t.record(`https://example.org/docs/page-${i}`, i + 1, false);
    for (let i = 0; i < n; i += 2) t.record(`https://example.org/docs/page-${i}`, n + i + 1, false);
    expect(t.size).toBe(n);
    for (let i = 0; i < n; i++) {
      const newest = i % 2 === 0 ? n + i + 1 : i + 1;
      if (!t.isNewest(`https://example.org/docs/page-${i}`, newest)) throw new Error(`page-${i}`);
    }
    expect(t.byteLength / n).toBeGreaterThanOrEqual(16);
    expect(t.byteLength / n).toBeLessThanOrEqual(32);
  });

  it('refuses an id past 31 bits', () => {
    expect(() => new NewestVersions().record('u', 2 ** 31, false)).toThrow(RangeError);
  });
});

describe('scanItemLine agrees with parseItemLine', () => {
  const line = (o: Record<string, unknown>) => JSON.stringify(o);
  const base = {
    url: 'http://a/1',
    finalUrl: 'http://a/1',
    status: 200,
    fetchedAt: '2026-12-01T00:00:01.000Z',
  };
  const cases = [
    line(base),
    line({ ...base, data: { unchanged: true, round: 2 } }),
    line({ ...base, userData: { note: '"unchanged":true' } }),
    line({ ...base, url: 'http://a/"quoted"\\path' }),
    line({ ...base, url: 'http://a/é' }),
    line({ fetchedAt: base.fetchedAt, url: 'http://a/reordered', data: { unchanged: true } }),
    line({ ...base, fetchedAt: 'not a date' }),
    line({ ...base, title: '"fetchedAt":"2030-01-01T00:00:00Z"' }),
    '{"url":"http://a/1"}',
    'not json',
  ];
  it.each(cases)('%s', (l) => {
    const parsed = parseItemLine(l);
    const scanned = scanItemLine(l);
    if (typeof parsed === 'string') {
      expect(scanned).toBe(parsed);
      return;
    }
    expect(scanned).toEqual({
      url: parsed.item.url,
      at: parsed.at,
      unchanged: (parsed.item.data as { unchanged?: boolean } | undefined)?.unchanged === true,
    });
  });
});

describe('columns', () => {
  const record = (item: Record<string, unknown>, text?: string | null): ExportRecord => ({
    item: item as never,
    at: Date.parse('2026-12-01T00:00:00Z'),
    text,
  });
  const row = (r: ExportRecord) => Object.fromEntries(COLUMNS.map((c) => [c.name, c.get(r)]));

  it('every column but text by default; text with content; --fields in the order given', () => {
    expect(selectColumns(undefined, false).map((c) => c.name)).not.toContain('text');
    expect(selectColumns(undefined, true).map((c) => c.name)).toContain('text');
    expect(selectColumns(['title', 'url'], false).map((c) => c.name)).toEqual(['title', 'url']);
  });

  it('an unknown or repeated field is a usage error listing the valid ones', () => {
    expect(() => selectColumns(['url', 'nope'], false)).toThrow(
      `--fields: unknown field "nope"; valid fields: ${COLUMNS.map((c) => c.name).join(',')}`,
    );
    expect(() => selectColumns(['url', 'url'], false)).toThrow('"url" is named twice');
  });

  it('reads the item, its data and error; unknown top-level fields go to extra', () => {
    const r = row(
      record(
        {
          url: 'http://a/',
          finalUrl: 'http://a/b',
          status: 200,
          fetchedAt: '2026-12-01T00:00:00.000Z',
          title: 'HTML title',
          bytes: 5_000_000_000,
          userData: { id: 7 },
          warc: { file: 'warc/crawl-0-1.warc.gz', offset: 12 },
          error: { kind: 'http-status', message: 'HTTP 500' },
          data: {
            title: 'Clean title',
            language: 'en',
            words: 12,
            siteName: 'A',
            nearDuplicateOf: 'http://a/c',
          },
        },
        'text',
      ),
    );
    expect(r).toMatchObject({
      url: 'http://a/',
      final_url: 'http://a/b',
      status: 200,
      fetched_at: Date.parse('2026-12-01T00:00:00Z'),
      title: 'Clean title',
      language: 'en',
      text: 'text',
      bytes: 5_000_000_000,
      words: 12,
      site_name: 'A',
      near_duplicate_of: 'http://a/c',
      error_kind: 'http-status',
      error_message: 'HTTP 500',
      user_data: { id: 7 },
      extra: { warc: { file: 'warc/crawl-0-1.warc.gz', offset: 12 } },
      label: null,
      round: null,
    });
    expect(row(record({ url: 'http://a/', title: 'HTML title' })).title).toBe('HTML title');
  });

  it('a value of the wrong type is null, never passed to a writer', () => {
    const r = row(
      record({
        url: 'http://a/',
        status: '200',
        depth: 2 ** 40,
        bytes: 1.5,
        title: 7,
        data: 'not an object',
        error: 'boom',
      }),
    );
    expect(r).toMatchObject({
      status: null,
      depth: null,
      bytes: null,
      title: null,
      data: null,
      error_kind: null,
      extra: null,
    });
  });
});

describe('CSV fields and formats', () => {
  it('quotes only what RFC 4180 needs, doubling quotes; an empty string is "" (null is nothing)', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines\r\n')).toBe('"two\nlines\r\n"');
    expect(csvField('')).toBe('""');
  });

  it('--format: the three formats, any case; anything else names them', () => {
    expect(parseFormat('Parquet')).toBe('parquet');
    expect(() => parseFormat('xlsx')).toThrow(
      '--format "xlsx": unknown format; valid formats: jsonl, csv, parquet',
    );
  });
});
