#!/usr/bin/env node
/**
 * Cost of article extraction (Readability over our light DOM + turndown, `dist/extract/page-content.js`)
 * per page, on the real PostgreSQL docs: CPU ms per page (median and p90 over the pages, after a
 * warm-up pass), throughput in MB of HTML per CPU second, and the RSS of this process. Articles are
 * opt-in; this is what each page matching `articlePatterns` adds to a crawl.
 *
 *   npm run build && node bench/article-cost.js [--dir /usr/share/doc/postgresql-doc-15/html] [--pages 400]
 *
 * Pages are read from the directory the corpus server (../shared/corpus/serve.sh) serves, so no
 * fetching is measured; each page's URL is its path under http://127.0.0.1:8081/pg/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    dir: { type: 'string', default: '/usr/share/doc/postgresql-doc-15/html' },
    pages: { type: 'string', default: '400' },
  },
});
const { extractContent } = await import(path.join(root, 'dist/extract/page-content.js'));
const { extractHtml } = await import(path.join(root, 'dist/extract/html.js'));

const files = readdirSync(opts.dir)
  .filter((f) => f.endsWith('.html'))
  .sort()
  .slice(0, Number(opts.pages));
const pages = files.map((f) => ({
  url: `http://127.0.0.1:8081/pg/${f}`,
  html: readFileSync(path.join(opts.dir, f), 'utf8'),
}));
const bytes = pages.reduce((n, p) => n + Buffer.byteLength(p.html), 0);

/** CPU ms of `fn` (user + system of this process: the work is synchronous). */
function cpuMs(fn) {
  const t = process.cpuUsage();
  fn();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
}

function measure(label, fn) {
  for (const p of pages.slice(0, 50)) fn(p); // warm-up: JIT, lazy loading of the libraries
  const each = pages.map((p) => cpuMs(() => fn(p))).sort((a, b) => a - b);
  const total = each.reduce((a, b) => a + b, 0);
  const q = (f) => each[Math.min(each.length - 1, Math.floor(f * each.length))];
  console.log(
    `| ${label} | ${pages.length} | ${(bytes / pages.length / 1024).toFixed(1)} | ${q(0.5).toFixed(2)} | ${q(0.9).toFixed(2)} | ${(total / pages.length).toFixed(2)} | ${(bytes / 1e6 / (total / 1000)).toFixed(2)} | ${Math.round(process.memoryUsage.rss() / 1048576)} |`,
  );
}

console.log('| step | pages | KiB/page | median ms | p90 ms | mean ms | MB/CPU-s | RSS MB |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
measure('extractHtml (links + title, every page)', (p) => extractHtml(p.html, p.url));
measure('extractContent (metadata, Readability, Markdown)', (p) => extractContent(p.html, p.url));
