#!/usr/bin/env node
/**
 * Main-content extraction quality and cost on the Article Extraction Benchmark (181 news and blog
 * pages with gold article text, ../shared/bench/extraction/aeb): the benchmark's precision, recall,
 * F1 and accuracy of our extractor's text, CPU ms per page (median and p95, extraction only,
 * after a warm-up pass; the process's CPU, so V8's collector threads count too) and the process's
 * peak RSS. The npm script caps the heap at 128 MB, as a page thread's heap is capped: uncapped,
 * V8 on a machine with 24 GB lets garbage pile up to hundreds of MB before it collects.
 *
 *   npm run bench:extract [-- --data DIR] [--refs] [--worst N] [--dump DIR]
 *   (npm run build && node --max-old-space-size=128 bench/extract.js ...)
 *
 * --refs scores the six published reference outputs first (the scorer must reproduce their rows);
 * --worst N lists the N pages of lowest precision and the N of lowest recall; --dump DIR writes
 * each page's Markdown (DIR/<id>.md) and the text scored (DIR/<id>.txt). The extractor is
 * `dist/extract/content.js` `extractContent`, or `dist/extract/article.js` `extractArticle` when
 * that module is not built. Scores follow bench/lib/aeb-score.js; the Markdown's `# ` headline is
 * left out (the gold text has none) and link and image targets are removed before scoring.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { scoreCorpus } from './lib/aeb-score.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    data: { type: 'string', default: path.resolve(root, '..', 'shared/bench/extraction/aeb') },
    refs: { type: 'boolean', default: false },
    worst: { type: 'string' },
    dump: { type: 'string' },
  },
});

/** Pages extracted, unrecorded, before the measured pass (JIT, lazy loading of the libraries). */
const WARMUP_PAGES = 20;

const truthFile = path.join(opts.data, 'ground-truth.json');
if (!existsSync(truthFile)) {
  console.error(`bench/extract.js: no AEB data at ${opts.data} (no ground-truth.json there; --data DIR)`);
  process.exit(1);
}
/** @type {Record<string, { articleBody: string, url: string }>} */
const truth = JSON.parse(readFileSync(truthFile, 'utf8'));
const ids = Object.keys(truth);
const gold = new Map(ids.map((id) => [id, truth[id].articleBody ?? '']));

const fmt = (x) => (Number.isNaN(x) ? '–' : x.toFixed(3));
console.log('| extractor | P | R | F1 | accuracy | median ms | p95 ms | peak RSS MB |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');

if (opts.refs) {
  const dir = path.join(opts.data, 'reference-output');
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const json = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
    // { version, output: { id: { articleBody } } }, or (newspaper) the output object alone
    const output = json.output ?? json;
    const predicted = new Map(Object.entries(output).map(([id, o]) => [id, o?.articleBody ?? '']));
    const s = scoreCorpus(gold, predicted);
    console.log(
      `| ${file.slice(0, -5)} (reference) | ${fmt(s.precision)} | ${fmt(s.recall)} | ${fmt(s.f1)} | ${fmt(s.accuracy)} | – | – | – |`,
    );
  }
}

const { label, extract, toText } = await extractor();
/** A page as served, read when it is extracted: the pass holds one page at a time, as a page thread does. */
const html = (id) => gunzipSync(readFileSync(path.join(opts.data, 'html', `${id}.html.gz`))).toString('utf8');
const pages = ids.map((id) => ({ id, url: truth[id].url }));

for (const p of pages.slice(0, WARMUP_PAGES)) {
  try {
    extract(html(p.id), p.url);
  } catch {
    // reported by the measured pass
  }
}
const cpu = [];
const predicted = new Map();
let failed = 0;
if (opts.dump) mkdirSync(opts.dump, { recursive: true });
for (const p of pages) {
  let markdown = null;
  const source = html(p.id);
  const t = process.cpuUsage();
  try {
    markdown = extract(source, p.url);
  } catch (e) {
    failed++;
    console.error(`${p.id} (${p.url}): ${e?.message ?? e}`);
  }
  const d = process.cpuUsage(t);
  cpu.push((d.user + d.system) / 1000);
  const text = markdown === null ? '' : toText(withoutHeadline(markdown));
  predicted.set(p.id, text);
  if (opts.dump) {
    writeFileSync(path.join(opts.dump, `${p.id}.md`), markdown ?? '');
    writeFileSync(path.join(opts.dump, `${p.id}.txt`), text);
  }
}
if (failed > 0) console.error(`${failed} page(s) threw: scored as empty`);

cpu.sort((a, b) => a - b);
const q = (f) => cpu[Math.min(cpu.length - 1, Math.floor(f * cpu.length))];
const s = scoreCorpus(gold, predicted);
const rssMb = process.resourceUsage().maxRSS / 1024;
console.log(
  `| ${label} | ${fmt(s.precision)} | ${fmt(s.recall)} | ${fmt(s.f1)} | ${fmt(s.accuracy)} | ${q(0.5).toFixed(1)} | ${q(0.95).toFixed(1)} | ${Math.round(rssMb)} |`,
);

if (opts.worst) {
  const n = Number(opts.worst);
  const row = (p) =>
    `| ${p.id} | ${truth[p.id].url} | ${p.precision.toFixed(3)} | ${p.recall.toFixed(3)} | ${p.goldWords} | ${p.predictedWords} |`;
  const head = '| id | url | P | R | gold words | predicted words |\n| --- | --- | --- | --- | --- | --- |';
  // precision is undefined for an empty prediction (the benchmark leaves such pages out of P)
  const byPrecision = s.pages.filter((p) => p.tp + p.fp > 0).sort((a, b) => a.precision - b.precision);
  const byRecall = [...s.pages].sort((a, b) => a.recall - b.recall);
  console.log(`\nLowest precision (${n}):\n\n${head}`);
  for (const p of byPrecision.slice(0, n)) console.log(row(p));
  console.log(`\nLowest recall (${n}):\n\n${head}`);
  for (const p of byRecall.slice(0, n)) console.log(row(p));
}

/**
 * The extractor under test: `extract(html, url)` → Markdown or null (`dist/extract/page-content.js`
 * `extractContent`, as the page thread runs it) and `toText(markdown)` (`markdownToText`).
 */
async function extractor() {
  const dist = (f) => path.join(root, 'dist/extract', f);
  if (!existsSync(dist('page-content.js'))) {
    console.error('bench/extract.js: dist/extract/ not built (run npm run build)');
    process.exit(1);
  }
  const load = (f) => import(pathToFileURL(dist(f)).href);
  const { extractContent } = await load('page-content.js');
  const { markdownToText } = await load('markdown-text.js');
  return {
    label: 'collector extractContent + markdownToText',
    extract: (h, u) => extractContent(h, u).markdown,
    toText: markdownToText,
  };
}

/** The Markdown without its first line when that line is a `# ` headline (the gold has none). */
function withoutHeadline(markdown) {
  return markdown.startsWith('# ') ? markdown.replace(/^[^\n]*\n?/, '') : markdown;
}
