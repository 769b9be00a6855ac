#!/usr/bin/env node
/**
 * Speed and memory of `collector export`: builds a synthetic data directory on /dev/shm (N item
 * lines over W workers' files, shaped like a `--markdown all` crawl's: 90% HTML pages with a
 * `.md` file, 5% plain-text bodies, 5% images; a share of the lines are later versions of pages
 * fetched before, as rounds of `collector run` write them), then times the built CLI exporting it
 * in each format, without and with `--with-content`: wall time, items/s and the peak RSS of the
 * process (sampled every 50 ms, bench/lib/measure.js). The targets (issue 29): ≥ 50,000 items/s
 * without content, ≤ 150 MB RSS with content, for 1,000,000 items on the 2-core machine.
 *
 *   npm run build && node bench/export.js [--items 1000000] [--workers 2] [--revisits 0.1]
 *                                         [--formats jsonl,csv,parquet] [--content both|no|yes]
 *                                         [--keep] [--dir /dev/shm/collector-export-bench-…]
 *
 * The data directory is removed at the end unless `--keep`; `--dir` reuses one kept before. The
 * CLI runs from a copy of bin/ and dist/bundle/ taken at start.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cliArgv } from './lib/cli-argv.js';
import { killAll, measure } from './lib/measure.js';
import { mulberry32 } from './lib/prng.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    items: { type: 'string', default: '1000000' },
    workers: { type: 'string', default: '2' },
    revisits: { type: 'string', default: '0.1' },
    formats: { type: 'string', default: 'jsonl,csv,parquet' },
    content: { type: 'string', default: 'both' },
    keep: { type: 'boolean', default: false },
    dir: { type: 'string' },
  },
});
const ITEMS = Number(opts.items);
const WORKERS = Number(opts.workers);
const REVISITS = Number(opts.revisits);
const shm = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
process.on('exit', killAll);

const WORDS =
  'the collector fetches pages politely stores their bodies and writes one item line per URL while a frontier keeps what is left to fetch and a page thread turns HTML into Markdown with tables code and math'.split(
    ' ',
  );

/** About `n` characters of Markdown. */
function markdown(rand, title, n) {
  let s = `# ${title}\n\n`;
  while (s.length < n) {
    let p = '';
    for (let i = 0; i < 40; i++) p += `${WORDS[Math.floor(rand() * WORDS.length)]} `;
    s += `${p.trim()}.\n\n`;
  }
  return s;
}

const hex = (rand, n) => {
  let s = '';
  while (s.length < n)
    s += Math.floor(rand() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return s.slice(0, n);
};

/**
 * Write the synthetic data directory.
 * @returns {{ dir: string, lines: number, pages: number, mdFiles: number, bytes: number }}
 */
function generate(dir) {
  const rand = mulberry32(29);
  const origin = 'http://127.0.0.1:8080';
  const host = '127.0.0.1_8080';
  fs.mkdirSync(path.join(dir, 'items'), { recursive: true });
  const out = Array.from({ length: WORKERS }, (_, w) =>
    fs.openSync(path.join(dir, 'items', `crawl-${w}.jsonl`), 'w'),
  );
  const buffers = Array.from({ length: WORKERS }, () => []);
  const pagesOf = Array.from({ length: WORKERS }, () => []);
  const made = new Set();
  let pages = 0;
  let mdFiles = 0;
  let bytes = 0;
  const t0 = Date.parse('2026-12-01T00:00:00Z');
  for (let i = 0; i < ITEMS; i++) {
    const w = i % WORKERS;
    const again = pagesOf[w].length > 0 && rand() < REVISITS;
    const n = again ? pagesOf[w][Math.floor(rand() * pagesOf[w].length)] : pages++;
    if (!again) pagesOf[w].push(n);
    const round = again ? 1 + Math.floor(rand() * 5) : 0;
    const unchanged = again && rand() < 0.5;
    const kind = n % 20 === 0 ? 'png' : n % 20 === 1 ? 'txt' : 'html';
    const url = `${origin}/docs/section-${n % 97}/page-${n}${kind === 'html' ? '/' : kind === 'txt' ? '.txt' : '.png'}`;
    const sub = `${Math.floor(n / 1000)}`;
    const version = again && !unchanged ? `-v${round}` : '';
    const item = {
      url,
      finalUrl: url,
      status: unchanged && rand() < 0.5 ? 304 : 200,
      contentType:
        kind === 'html'
          ? 'text/html; charset=utf-8'
          : kind === 'txt'
            ? 'text/plain; charset=utf-8'
            : 'image/png',
      fetchedAt: new Date(t0 + i * 7).toISOString(),
      depth: 1 + (n % 6),
      source: 'crawl',
      worker: `crawl-${w}`,
      bytes: 2000 + (n % 5000),
      sha256: hex(rand, 64),
    };
    if (kind === 'html') item.title = `Page ${n} | Docs`;
    const data = {};
    if (!unchanged) {
      item.file = `files/${host}/docs/${sub}/page-${n}${version}.${kind}`;
      if (kind === 'html') {
        const md = `files/${host}/docs/${sub}/page-${n}${version}.md`;
        Object.assign(data, {
          title: `Page ${n}`,
          language: 'en',
          words: 200 + (n % 300),
          simhash: hex(rand, 16),
          markdown: md,
        });
        writeContent(dir, md, markdown(rand, `Page ${n}`, 1500 + (n % 1500)), made);
        mdFiles++;
      } else if (kind === 'txt') {
        writeContent(dir, item.file, markdown(rand, `Notes ${n}`, 800), made);
      } else {
        writeContent(dir, item.file, Buffer.alloc(64, n & 0xff), made);
      }
    } else data.unchanged = true;
    if (again) Object.assign(data, { round, version: 1 + round - (unchanged ? 1 : 0) });
    if (Object.keys(data).length > 0) item.data = data;
    const line = `${JSON.stringify(item)}\n`;
    bytes += line.length;
    buffers[w].push(line);
    if (buffers[w].length >= 1000) {
      fs.writeSync(out[w], buffers[w].join(''));
      buffers[w] = [];
    }
  }
  for (let w = 0; w < WORKERS; w++) {
    fs.writeSync(out[w], buffers[w].join(''));
    fs.closeSync(out[w]);
  }
  return { dir, lines: ITEMS, pages, mdFiles, bytes };
}

function writeContent(dir, rel, content, made) {
  const file = path.join(dir, rel);
  const parent = path.dirname(file);
  if (!made.has(parent)) {
    fs.mkdirSync(parent, { recursive: true });
    made.add(parent);
  }
  fs.writeFileSync(file, content);
}

const mb = (b) => (b / 1024 / 1024).toFixed(0);
let dir = opts.dir;
if (dir === undefined) {
  dir = fs.mkdtempSync(path.join(shm, 'collector-export-bench-'));
  const t = performance.now();
  const g = generate(dir);
  process.stderr.write(
    `generated ${g.lines} item lines (${g.pages} pages, ${g.mdFiles} .md files, ${mb(g.bytes)} MB of items) in ${dir} in ${((performance.now() - t) / 1000).toFixed(0)} s\n`,
  );
}

// The CLI measured is a copy of bin/ and dist/bundle/ (node_modules linked), so a build during
// the bench (the tests build) cannot swap its files mid-run.
const code = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-export-bench-code-'));
for (const f of ['bin', 'dist/bundle', 'package.json'])
  fs.cpSync(path.join(root, f), path.join(code, f), { recursive: true });
fs.symlinkSync(path.join(root, 'node_modules'), path.join(code, 'node_modules'));
process.on('exit', () => fs.rmSync(code, { recursive: true, force: true }));
const bin = path.join(code, 'bin', 'collector.js');
process.stderr.write(
  `load average at start: ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (${os.cpus().length} CPUs)\n`,
);
const contents = opts.content === 'both' ? [false, true] : [opts.content === 'yes'];
console.log(
  `| format | content | items exported | seconds | items/s | CPU s | items per CPU s | peak RSS MB |`,
);
console.log(`| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |`);
let failed = false;
for (const withContent of contents) {
  for (const format of opts.formats.split(',')) {
    const out = path.join(dir, `export.${format}`);
    fs.rmSync(out, { force: true });
    // As a user runs it: node with the settings the bin starts it with.
    const argv = cliArgv(bin, 'export', '--data', dir, '--format', format, '--out', out);
    if (withContent) argv.push('--with-content');
    const r = await measure(argv, { timeoutS: 1200 });
    const exported = Number(/exported (\d+) items/.exec(r.stderr)?.[1] ?? Number.NaN);
    if (r.rc !== 0 || !Number.isFinite(exported)) {
      failed = true;
      process.stderr.write(
        `${format}${withContent ? ' with content' : ''}: exit ${r.rc}: ${r.stderr.slice(-2000)}\n`,
      );
      continue;
    }
    process.stderr.write(`${r.stderr.trim()}\n`);
    console.log(
      `| ${format} | ${withContent ? 'yes' : 'no'} | ${exported.toLocaleString('en')} | ${r.wallS.toFixed(1)} | ${Math.round(exported / r.wallS).toLocaleString('en')} | ${r.cpuS.toFixed(1)} | ${Math.round(exported / r.cpuS).toLocaleString('en')} | ${mb(r.peakRssBytes)} |`,
    );
    fs.rmSync(out, { force: true });
  }
}
if (!opts.keep && opts.dir === undefined) fs.rmSync(dir, { recursive: true, force: true });
else process.stderr.write(`data directory kept: ${dir}\n`);
process.exitCode = failed ? 1 : 0;
