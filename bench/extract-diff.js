#!/usr/bin/env node
/**
 * Compares two builds' content extraction field by field: `extractContent`
 * (`dist/extract/page-content.js`) of build A and of build B over the Article Extraction
 * Benchmark's 181 pages (../shared/bench/extraction/aeb, URLs from ground-truth.json) and the
 * PostgreSQL documentation's pages (/usr/share/doc/postgresql-doc-15/html/*.html, each at
 * http://127.0.0.1:8081/pg/<file>). Every field of the result is compared (markdown, text, words,
 * links, title, description, author, published, modified, language, canonical, siteName,
 * fallback); pages that differ are listed with their first differing field, and with --out DIR
 * each differing page's two results are written to DIR/<set>-<page>.{a,b}.json.
 *
 *   node bench/extract-diff.js --a ../main-build [--b .] [--aeb DIR] [--pg DIR] [--out DIR]
 *     [--only aeb|pg|dir] [--limit N] [--dir DIR [--sample N]]
 *
 * --dir DIR adds the `*.html` files below DIR (set `dir`, each at http://127.0.0.1:8081/<path>),
 * every k-th of them when --sample N asks for about N.
 *
 * A and B are checkouts with `dist/` built (`npm run build`, or `tsc -p tsconfig.build.json`);
 * B defaults to this one. Exit code 0 when no page differs, 1 when some do, 2 for bad arguments.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string', default: root },
    aeb: { type: 'string', default: path.resolve(root, '..', 'shared/bench/extraction/aeb') },
    pg: { type: 'string', default: '/usr/share/doc/postgresql-doc-15/html' },
    out: { type: 'string' },
    only: { type: 'string' },
    limit: { type: 'string' },
    dir: { type: 'string' },
    sample: { type: 'string' },
  },
});

if (opts.a === undefined) {
  console.error('bench/extract-diff.js: --a DIR is required (a checkout with dist/ built, e.g. main)');
  process.exit(2);
}

/** `extractContent` of the build in `dir`. */
async function extractorOf(dir) {
  const file = path.resolve(dir, 'dist/extract/page-content.js');
  if (!existsSync(file)) {
    console.error(`bench/extract-diff.js: ${file} not found (build that checkout first)`);
    process.exit(2);
  }
  return (await import(pathToFileURL(file).href)).extractContent;
}

/** The pages of each set: `{ set, name, url, html() }`, read when compared. */
function pages() {
  const out = [];
  if (opts.only === undefined || opts.only === 'aeb') {
    const truth = JSON.parse(readFileSync(path.join(opts.aeb, 'ground-truth.json'), 'utf8'));
    for (const id of Object.keys(truth))
      out.push({
        set: 'aeb',
        name: id,
        url: truth[id].url,
        html: () => gunzipSync(readFileSync(path.join(opts.aeb, 'html', `${id}.html.gz`))).toString('utf8'),
      });
  }
  if ((opts.only === undefined || opts.only === 'pg') && existsSync(opts.pg)) {
    for (const file of readdirSync(opts.pg)
      .filter((f) => f.endsWith('.html'))
      .sort())
      out.push({
        set: 'pg',
        name: file,
        url: `http://127.0.0.1:8081/pg/${file}`,
        html: () => readFileSync(path.join(opts.pg, file), 'utf8'),
      });
  }
  if (opts.dir !== undefined && (opts.only === undefined || opts.only === 'dir')) {
    const files = htmlFilesBelow(opts.dir);
    const step = opts.sample === undefined ? 1 : Math.max(1, Math.floor(files.length / Number(opts.sample)));
    for (let i = 0; i < files.length; i += step) {
      const rel = path.relative(opts.dir, files[i]);
      out.push({
        set: 'dir',
        name: rel.replaceAll('/', '_'),
        url: `http://127.0.0.1:8081/${rel}`,
        html: () => readFileSync(files[i], 'utf8'),
      });
    }
  }
  return opts.limit === undefined ? out : out.slice(0, Number(opts.limit));
}

/** The `*.html` files below `dir`, sorted. */
function htmlFilesBelow(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { recursive: true }).sort()) {
    const file = path.join(dir, entry);
    if (entry.endsWith('.html') && statSync(file).isFile()) out.push(file);
  }
  return out;
}

/** A result, or the error it threw, as a plain object of the compared fields. */
function run(extract, html, url) {
  try {
    const r = extract(html, url);
    return Object.fromEntries(FIELDS.map((f) => [f, r[f]]));
  } catch (e) {
    return { threw: String(e?.stack ?? e) };
  }
}

/** The fields compared, in the order a difference is reported: the content's, then the metadata's. */
const { METADATA_FIELDS } = await import(pathToFileURL(path.resolve(opts.b, 'dist/extract/page-metadata.js')).href);
const FIELDS = ['markdown', 'text', 'words', 'links', ...METADATA_FIELDS, 'fallback'];

const extractA = await extractorOf(opts.a);
const extractB = await extractorOf(opts.b);
if (opts.out) mkdirSync(opts.out, { recursive: true });

const counts = { aeb: [0, 0], pg: [0, 0], dir: [0, 0] };
const differing = [];
for (const p of pages()) {
  const html = p.html();
  const a = run(extractA, html, p.url);
  const b = run(extractB, html, p.url);
  counts[p.set][0]++;
  if (isDeepStrictEqual(a, b)) continue;
  counts[p.set][1]++;
  const field = a.threw || b.threw ? 'threw' : FIELDS.find((f) => !isDeepStrictEqual(a[f], b[f]));
  differing.push({ ...p, field });
  console.log(`${p.set} ${p.name}: ${field} differs`);
  if (opts.out) {
    writeFileSync(path.join(opts.out, `${p.set}-${p.name}.a.json`), `${JSON.stringify(a, null, 1)}\n`);
    writeFileSync(path.join(opts.out, `${p.set}-${p.name}.b.json`), `${JSON.stringify(b, null, 1)}\n`);
  }
}
for (const [set, [n, d]] of Object.entries(counts))
  if (n > 0) console.log(`${set}: ${n} pages compared, ${d} differ`);
process.exit(differing.length === 0 ? 0 : 1);
