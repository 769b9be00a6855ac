/**
 * Parquet export row group by row group (src/export/parquet-format.ts through runExport): an
 * export of more rows than a row group holds is several row groups that DuckDB reads back whole
 * and in order, and an export that the filters leave empty is still a valid file with the schema.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLUMNS } from '../../src/export/columns.js';
import { runExport } from '../../src/export/export-job.js';
import { parseSince } from '../../src/export/item-filter.js';
import { tempDir } from '../fixtures/cli.js';

const N = 23;
let data: string;
let db: DuckDBInstance;

beforeAll(async () => {
  data = tempDir('collector-parquet-');
  fs.mkdirSync(path.join(data, 'items'));
  const lines = Array.from({ length: N }, (_, i) =>
    JSON.stringify({
      url: `http://a/${i}`,
      finalUrl: `http://a/${i}`,
      status: i % 5 === 0 ? null : 200,
      contentType: 'text/html',
      fetchedAt: new Date(Date.UTC(2026, 11, 1) + i * 1000).toISOString(),
      depth: i % 3,
      source: 'crawl',
      worker: 'crawl-0',
      bytes: i * 1_000_000_000,
      sha256: null,
      title: `Tïtle "${i}", ünïcode ✓`,
      data: { words: i, nested: { list: [i, 'x'] } },
    }),
  );
  fs.writeFileSync(path.join(data, 'items', 'crawl-0.jsonl'), `${lines.join('\n')}\n`);
  db = await DuckDBInstance.create();
});
afterAll(() => db.closeSync());

const query = async (sql: string) => {
  const c = await db.connect();
  try {
    return (await c.runAndReadAll(sql)).getRowObjectsJson();
  } finally {
    c.closeSync();
  }
};

describe('parquet export', () => {
  it('writes one row group per 5 rows, read back whole and in order', async () => {
    const out = path.join(tempDir('collector-parquet-out-'), 'x.parquet');
    const s = await runExport({ dataDir: data, format: 'parquet', out, parquet: { rows: 5 } });
    expect(s.rows).toBe(N);
    const groups = await query(`SELECT DISTINCT row_group_id FROM parquet_metadata('${out}')`);
    expect(groups).toHaveLength(Math.ceil(N / 5));
    const rows = await query(
      `SELECT url, status, depth, bytes, title, data->>'$.nested.list[1]' AS x, (data->>'words')::INT AS words FROM '${out}'`,
    );
    expect(rows.map((r) => r.url)).toEqual(Array.from({ length: N }, (_, i) => `http://a/${i}`));
    for (const [i, r] of rows.entries()) {
      expect(r).toEqual({
        url: `http://a/${i}`,
        status: i % 5 === 0 ? null : 200,
        depth: i % 3,
        bytes: String(i * 1_000_000_000),
        title: `Tïtle "${i}", ünïcode ✓`,
        x: 'x',
        words: i,
      });
    }
  });

  it('GZIP pages; a dictionary for a column of few values, plain for one of distinct values; JSON declared JSON', async () => {
    const out = path.join(tempDir('collector-parquet-out-'), 'x.parquet');
    await runExport({ dataDir: data, format: 'parquet', out });
    const chunks = await query(
      `SELECT path_in_schema AS c, compression, encodings FROM parquet_metadata('${out}') WHERE row_group_id = 0`,
    );
    const of = (c: string) => chunks.find((k) => k.c === c) as Record<string, any>;
    expect(new Set(chunks.map((k) => k.compression))).toEqual(new Set(['GZIP']));
    expect(String(of('content_type').encodings)).toMatch(/DICTIONARY/);
    expect(String(of('url').encodings)).not.toMatch(/DICTIONARY/);
    expect(String(of('title').encodings)).not.toMatch(/DICTIONARY/);
    const types = await query(`DESCRIBE SELECT data, url FROM '${out}'`);
    expect(types.map((t) => t.column_type)).toEqual(['JSON', 'VARCHAR']);
  });

  it('a row group also ends at its byte limit', async () => {
    const out = path.join(tempDir('collector-parquet-out-'), 'x.parquet');
    await runExport({ dataDir: data, format: 'parquet', out, parquet: { bytes: 1 } });
    expect(await query(`SELECT DISTINCT row_group_id FROM parquet_metadata('${out}')`)).toHaveLength(N);
    expect(await query(`SELECT count(*)::INT AS n FROM '${out}'`)).toEqual([{ n: N }]);
  });

  it('an export the filters leave empty is a valid file with every column and no row', async () => {
    const out = path.join(tempDir('collector-parquet-out-'), 'x.parquet');
    const s = await runExport({ dataDir: data, format: 'parquet', out, since: parseSince('2030-01-01') });
    expect(s).toMatchObject({ rows: 0, stats: { lines: N, filteredOut: N } });
    expect(await query(`SELECT count(*)::INT AS n FROM '${out}'`)).toEqual([{ n: 0 }]);
    const columns = await query(`DESCRIBE SELECT * FROM '${out}'`);
    expect(columns.map((c) => c.column_name)).toEqual(
      COLUMNS.filter((c) => c.name !== 'text').map((c) => c.name),
    );
  });
});
