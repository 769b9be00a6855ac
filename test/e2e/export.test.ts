/**
 * `collector export` end to end: a small site served on loopback is crawled with
 * `--markdown all`, then exported — Parquet with content read back by DuckDB (the documented
 * columns and types, one row per page, each page's Markdown as its text), CSV read back by a CSV
 * parser, JSONL line by line; each bad input's exit code and one line; and an export while a
 * collector is writing (whole lines only; a torn last line is not read).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLUMNS } from '../../src/export/columns.js';
import { FIRST_LOAF, STARTER } from '../fixtures/articles.js';
import { crawlArgs, readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

const article = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title><meta name="description" content="About ${title}, "quoted", with commas.">
  <meta name="author" content="Ada Baker"></head><body><nav><a href="/">Home</a></nav><article><h1>${title}</h1>${body
    .split(/\n\s*\n/)
    .map((p) => `<p>${p.replace(/\s+/g, ' ').trim()}</p>`)
    .join('\n')}</article></body></html>`;

let site: FixtureServer;
let out: string;
/** Pages of the crawl: every item (one per URL in a one-shot crawl). */
let items: Array<Record<string, any>>;

beforeAll(async () => {
  site = await startServer({
    '/': html(
      page('Bakery', ['/starter/', '/first-loaf/', '/notes.txt', '/data.json', '/logo.png', '/missing/']),
    ),
    '/starter/': html(article('Keeping a starter', STARTER)),
    '/first-loaf/': html(article('Your first loaf', FIRST_LOAF)),
    '/notes.txt': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
      res.end(Buffer.from('Crème fraîche, "proved" overnight.\nSecond line.\n', 'latin1'));
    },
    '/data.json': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"loaves": 3}');
    },
    '/logo.png': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
    },
  });
  out = tempDir('collector-export-e2e-');
  const r = await runCli(
    crawlArgs(`${site.origin}/`, out, '--markdown', 'all', '--no-robots', '--scope', 'host'),
  );
  expect(r.code, r.stderr).toBe(0);
  items = readItems(out);
});

afterAll(async () => {
  await site.close();
});

const exportCli = (...args: string[]) => runCli(['export', '--data', out, ...args]);
const textOf = (i: Record<string, any>): string | null =>
  i.data?.markdown
    ? fs.readFileSync(path.join(out, i.data.markdown), 'utf8')
    : i.url.endsWith('/notes.txt')
      ? 'Crème fraîche, "proved" overnight.\nSecond line.\n'
      : i.url.endsWith('/data.json')
        ? '{"loaves": 3}'
        : null;

/** DuckDB's name of each documented column type. */
const DUCKDB_TYPES = {
  string: 'VARCHAR',
  int32: 'INTEGER',
  int64: 'BIGINT',
  timestamp: 'TIMESTAMP WITH TIME ZONE',
  json: 'JSON',
};

describe('collector export', () => {
  it('the crawl has what the export tests rely on', () => {
    expect(items.length).toBe(7);
    expect(items.filter((i) => i.data?.markdown).length).toBe(3);
    expect(items.some((i) => i.status === 404)).toBe(true);
  });

  it('--format parquet --with-content: DuckDB reads the documented columns, one row per page, the text of each', async () => {
    const file = path.join(tempDir('collector-export-out-'), 'pages.parquet');
    const r = await exportCli('--format', 'parquet', '--with-content', '--out', file);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`collector: exported 7 items to ${file} (7 lines read from 1 item files)\n`);
    const db = await DuckDBInstance.create();
    const c = await db.connect();
    try {
      const described = (await c.runAndReadAll(`DESCRIBE SELECT * FROM '${file}'`)).getRowObjectsJson();
      expect(described.map((d) => [d.column_name, d.column_type])).toEqual(
        COLUMNS.map((col) => [col.name, DUCKDB_TYPES[col.type]]),
      );
      const rows = (
        await c.runAndReadAll(
          `SELECT url, status, text, title, language, author, description, source, bytes, sha256, fetched_at::VARCHAR AS fetched_at,
                  data->>'markdown' AS markdown, error_kind FROM '${file}'`,
        )
      ).getRowObjectsJson();
      expect(rows.map((row) => row.url).sort()).toEqual(items.map((i) => i.url).sort());
      for (const row of rows) {
        const i = items.find((x) => x.url === row.url)!;
        expect(row.text, i.url).toBe(textOf(i));
        expect(row.status, i.url).toBe(i.status);
        expect(row.sha256, i.url).toBe(i.sha256);
        expect(Number(row.bytes), i.url).toBe(i.bytes);
        expect(row.source).toBe('crawl');
        expect(row.markdown ?? undefined, i.url).toBe(i.data?.markdown);
        expect(Date.parse(String(row.fetched_at).replace(' ', 'T').replace(/\+00$/, 'Z')), i.url).toBe(
          Date.parse(i.fetchedAt),
        );
      }
      const starter = rows.find((row) => String(row.url).endsWith('/starter/'))!;
      expect(starter).toMatchObject({ title: 'Keeping a starter', language: 'en', author: 'Ada Baker' });
      expect(rows.find((row) => String(row.url).endsWith('/missing/'))).toMatchObject({
        status: 404,
        error_kind: 'http-status',
        text: null,
      });
    } finally {
      c.closeSync();
      db.closeSync();
    }
  });

  it('--format csv --with-content: RFC 4180 that a CSV parser reads back, text with quotes, commas and line breaks intact', async () => {
    const file = path.join(tempDir('collector-export-out-'), 'pages.csv');
    const r = await exportCli('--with-content', '--out', file); // the format from the name
    expect(r.code, r.stderr).toBe(0);
    const raw = fs.readFileSync(file, 'utf8');
    const rows: string[][] = parseCsv(raw, { relax_quotes: false });
    expect(rows[0]).toEqual(COLUMNS.map((c) => c.name));
    expect(rows).toHaveLength(1 + items.length);
    const header = rows[0];
    const get = (row: string[], name: string) => row[header.indexOf(name)];
    for (const row of rows.slice(1)) {
      const i = items.find((x) => x.url === get(row, 'url'))!;
      expect(get(row, 'text'), i.url).toBe(textOf(i) ?? '');
      expect(get(row, 'fetched_at')).toBe(i.fetchedAt);
      expect(get(row, 'status')).toBe(String(i.status));
      expect(JSON.parse(get(row, 'data') || 'null'), i.url).toEqual(i.data ?? null);
    }
    expect(raw.split('\r\n')[0]).toBe(COLUMNS.map((c) => c.name).join(','));
  });

  it('--format jsonl to standard output: one object a line with the chosen fields, in fetch order', async () => {
    const r = await exportCli('--format', 'jsonl', '--fields', 'url,status,fetched_at,data', '--ok-only');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.pop()).toBe('');
    const rows = lines.map((l) => JSON.parse(l));
    // one worker: its file's order (the order its items were acknowledged)
    expect(rows.map((o) => o.url)).toEqual(items.filter((i) => i.status === 200).map((i) => i.url));
    for (const o of rows) {
      expect(Object.keys(o)).toEqual(['url', 'status', 'fetched_at', 'data']);
      expect(o.fetched_at).toBe(items.find((i) => i.url === o.url)!.fetchedAt);
    }
    expect(r.stderr).toMatch(
      /exported 6 items to standard output \(7 lines read from 1 item files: 1 filtered out\)/,
    );
  });

  it('bad input: an unknown format or field exits 2 with the valid list, nothing written', async () => {
    const dir = tempDir('collector-export-out-');
    let r = await exportCli('--format', 'xlsx', '--out', path.join(dir, 'x'));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('collector: --format "xlsx": unknown format; valid formats: jsonl, csv, parquet\n');
    r = await exportCli('--fields', 'url,body', '--out', path.join(dir, 'x.csv'));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `collector: --fields: unknown field "body"; valid fields: ${COLUMNS.map((c) => c.name).join(',')}\n`,
    );
    r = await exportCli('--since', 'last week');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^collector: --since "last week": expected an ISO 8601 date/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('an --out that exists is refused (exit 2, left as it was) unless --force, which replaces it', async () => {
    const file = path.join(tempDir('collector-export-out-'), 'pages.jsonl');
    fs.writeFileSync(file, 'keep me\n');
    let r = await exportCli('--out', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`collector: --out ${file}: exists; give another name, or --force to replace it\n`);
    expect(fs.readFileSync(file, 'utf8')).toBe('keep me\n');
    r = await exportCli('--out', file, '--force');
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(items.length);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['pages.jsonl']);
  });

  it('a data dir with no items exits 69 with one line and writes no file; a missing one is a usage error', async () => {
    const empty = tempDir('collector-export-empty-');
    fs.mkdirSync(path.join(empty, 'items'));
    fs.writeFileSync(path.join(empty, 'items', 'crawl-0.jsonl'), '');
    const file = path.join(tempDir('collector-export-out-'), 'x.parquet');
    let r = await runCli(['export', '--data', empty, '--out', file]);
    expect(r.code).toBe(69);
    expect(r.stderr).toBe(`collector: no items in ${path.join(empty, 'items')}: nothing to export\n`);
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.readdirSync(path.dirname(file))).toEqual([]);
    r = await runCli(['export', '--data', path.join(empty, 'nope')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `collector: --data ${path.join(empty, 'nope')}: not found; give the data directory of a collector\n`,
    );
  });

  it('a damaged line is skipped with a warning naming its file and line; a torn last line is not read', async () => {
    const copy = tempDir('collector-export-copy-');
    fs.cpSync(out, copy, { recursive: true });
    const file = path.join(copy, 'items', 'crawl-0.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.splice(2, 0, '{"url":"http://x/","fetchedAt":'); // damaged: line 3
    // a collector writing its next line: no newline yet
    fs.writeFileSync(file, `${lines.join('\n')}{"url":"${site.origin}/torn/","finalUrl":"${site.origin}/to`);
    const r = await runCli(['export', '--data', copy, '--fields', 'url']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toBe('collector: warning: items/crawl-0.jsonl line 3: not JSON: skipped');
    expect(r.stderr).toMatch(
      /exported 7 items to standard output \(7 lines read from 1 item files: 1 damaged lines skipped\)/,
    );
    const urls = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).url);
    expect(urls.sort()).toEqual(items.map((i) => i.url).sort());
  });
});

describe('export while a collector writes', () => {
  let slow: FixtureServer;
  const N = 60;
  beforeAll(async () => {
    slow = await startServer({}, (req, res) => {
      const m = /^\/p\/(\d+)$/.exec(req.url ?? '');
      if (!m) {
        res.writeHead(404);
        res.end();
        return;
      }
      const i = Number(m[1]);
      const links = [i + 1, i + 2].filter((j) => j < N).map((j) => `/p/${j}`);
      setTimeout(() => html(page(`Page ${i}`, links))(req, res), 40);
    });
  });
  afterAll(() => slow.close());

  it('reads whole lines only, each exported item is one the collector wrote, and the collector is not disturbed', async () => {
    const data = tempDir('collector-export-live-');
    const crawl = startCli(crawlArgs(`${slow.origin}/p/0`, data, '--no-robots', '--host-concurrency', '1'));
    const done = waitExit(crawl);
    try {
      const exported: string[][] = [];
      await waitFor(() => fs.existsSync(path.join(data, 'items', 'crawl-0.jsonl')));
      while (crawl.exitCode === null && exported.length < 20) {
        const r = await runCli(['export', '--data', data, '--fields', 'url,fetched_at', '--all-versions']);
        if (r.code === 69) continue; // no whole line yet
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).not.toMatch(/warning/);
        exported.push(
          r.stdout
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l).url),
        );
      }
      const end = await done;
      expect(end.code, end.stderr).toBe(0);
      const all = readItems(data).map((i) => i.url);
      expect(all).toHaveLength(N);
      expect(exported.length).toBeGreaterThan(1);
      for (const urls of exported) {
        expect(new Set(urls).size).toBe(urls.length);
        expect(all.slice(0, urls.length)).toEqual(urls);
      }
      // an export taken while it ran saw fewer items than the end
      expect(exported.some((urls) => urls.length < N)).toBe(true);
    } finally {
      if (crawl.exitCode === null) crawl.kill('SIGKILL');
      await done;
    }
  });
});
