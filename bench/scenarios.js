/**
 * The benchmark scenarios: one object each. To add one, append an object to SCENARIOS:
 *
 *   name      id used by --only and in the table
 *   needs     fixtures to start first: 'corpus' (nginx serving the PostgreSQL docs)
 *   ceiling   optional: name of the scenario whose pages/s this one is divided by ("ratio to
 *             ceiling"); that scenario then runs in every run before this one
 *   peer      optional: name of another crawler's scenario (wget) run in every run with this one;
 *             a note under the table gives pages/s and CPU per page as ratios to it
 *   prepare(ctx) → { argv, cwd?, out? } the command to measure (argv[0] is the program);
 *             `out` is a directory removed after the run
 *   result(ctx, prepared, measured) → { pages, seconds?, expectedPages?, exactlyOnce?, phases?, warnings? }
 *             pages counted from the output; `seconds` replaces the measured wall time when
 *             the command times itself (the fetch ceiling excludes its start-up); exactlyOnce:
 *             whether every expected page is in the items exactly once; phases: { startupS,
 *             fetchS, tailS } = start → first item's fetchedAt → last item's → exit
 *
 * ctx: { root, cli, corpus: {url, pages, urls()}, outDir(kind) } where cli is the
 * bin/collector.js to run (a snapshot of the build, see run.js) and outDir('tmpfs' | 'disk')
 * makes a fresh temporary directory on that kind of file system.
 *
 * Scenarios with `kind: 'custom'` (bench/lib/long-scenarios.js) instead have `head` (their
 * table's columns) and `run(ctx)`; they run once per bench invocation, after the runs above.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DOCS_DIR } from './lib/corpus.js';
import { idleRss, politeness200, run20On2g, synthetic1m } from './lib/long-scenarios.js';
import { renderAuto200 } from './lib/render-scenario.js';

/** The crawl command the issue measures: every page, no politeness delay, bodies stored. */
const CORPUS_CRAWL_ARGS = ['--delay', '0', '--host-concurrency', '16', '--concurrency', '32', '--quiet'];

/** A crawl of the corpus with the real CLI, output on `where` ('tmpfs' or 'disk'). */
function corpusCrawl(name, where, extraArgs = []) {
  return {
    name,
    needs: ['corpus'],
    ceiling: 'fetch-ceiling',
    prepare(ctx) {
      const out = ctx.outDir(where);
      return {
        out,
        argv: [
          process.execPath,
          ctx.cli,
          'crawl',
          ctx.corpus.url,
          '--out',
          out,
          ...CORPUS_CRAWL_ARGS,
          ...extraArgs,
        ],
      };
    },
    result(ctx, prepared, measured) {
      const { lines, errors, distinct, firstMs, lastMs } = countItems(prepared.out);
      const warnings = [];
      if (errors) warnings.push(`${errors} item(s) with an error or a non-2xx status`);
      // every HTML file of the docs, plus the /pg/ directory URL itself
      const expectedPages = ctx.corpus.pages + 1;
      const exactlyOnce = distinct === lines && lines === expectedPages;
      if (!exactlyOnce) {
        warnings.push(
          `not exactly once: ${distinct} distinct urls, ${lines} lines, ${expectedPages} expected`,
        );
      }
      // Where the wall time goes: start-up (to the first item), fetching, and the tail after the last item.
      let phases;
      if (measured.startEpochS !== null && firstMs !== null) {
        phases = {
          startupS: firstMs / 1000 - measured.startEpochS,
          fetchS: (lastMs - firstMs) / 1000,
          tailS: measured.endEpochS - lastMs / 1000,
        };
      }
      return { pages: lines, expectedPages, exactlyOnce, phases, warnings };
    },
  };
}

/**
 * GNU wget (Debian's package) mirroring the corpus, the peer the issue measures against: one
 * connection, no compression (wget's defaults), robots.txt obeyed, every page written to tmpfs.
 * `-A html` keeps it to the pages the collector fetches (no style sheet or images). wget saves
 * `/pg/` and `/pg/index.html` as one file: pages = files + 1, as the collector's items count both.
 */
const wgetCorpus = {
  name: 'wget-tmpfs',
  needs: ['corpus'],
  prepare(ctx) {
    const out = ctx.outDir('tmpfs');
    return { out, argv: ['wget', '-r', '-np', '-q', '-l', 'inf', '-A', 'html', '-P', out, ctx.corpus.url] };
  },
  result(ctx, prepared) {
    const files = readdirSync(prepared.out, { recursive: true, withFileTypes: true }).filter((f) =>
      f.isFile(),
    );
    const pages = files.length + 1;
    const expectedPages = ctx.corpus.pages + 1;
    const warnings =
      pages === expectedPages ? [] : [`wget wrote ${files.length} files, ${expectedPages - 1} expected`];
    return { pages, expectedPages, exactlyOnce: pages === expectedPages, warnings };
  },
};

export const SCENARIOS = [
  {
    name: 'fetch-ceiling',
    needs: ['corpus'],
    prepare(ctx) {
      return {
        argv: [
          process.execPath,
          'bench/fetch-ceiling.js',
          '--base',
          ctx.corpus.url,
          '--dir',
          DOCS_DIR,
          '--concurrency',
          '32',
        ],
      };
    },
    result(ctx, _prepared, measured) {
      const r = JSON.parse(measured.stdout.trim().split('\n').pop());
      const warnings = r.failed ? [`${r.failed} request(s) failed or were not 2xx`] : [];
      return { pages: r.pages, seconds: r.seconds, expectedPages: ctx.corpus.pages + 1, warnings };
    },
  },
  // `crawl` defaults to one process per CPU: the one-process rows say --processes 1.
  wgetCorpus,
  // `peer`: measured in the same run; a note gives this row's pages/s and CPU per page against it
  { ...corpusCrawl('corpus-tmpfs', 'tmpfs', ['--processes', '1']), peer: 'wget-tmpfs' },
  corpusCrawl('corpus-disk', 'disk', ['--processes', '1']),
  corpusCrawl('corpus-2proc', 'tmpfs', ['--processes', '2', '--partition', 'url']),
  corpusCrawl('corpus-4proc', 'tmpfs', ['--processes', '4', '--partition', 'url']),
  synthetic1m,
  politeness200,
  idleRss,
  renderAuto200,
  run20On2g,
];

/**
 * Lines of <out>/items/*.jsonl (all workers), how many of them record an error or a non-2xx
 * status, and how many distinct `url`s they hold.
 */
function countItems(out) {
  let lines = 0;
  let errors = 0;
  let firstMs = null;
  let lastMs = null;
  const urls = new Set();
  const dir = path.join(out, 'items');
  let names = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return { lines: 0, errors: 0, distinct: 0, firstMs, lastMs };
  }
  for (const name of names) {
    for (const line of readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      if (!line) continue;
      lines++;
      try {
        const item = JSON.parse(line);
        urls.add(item.url);
        const t = Date.parse(item.fetchedAt);
        if (Number.isFinite(t)) {
          if (firstMs === null || t < firstMs) firstMs = t;
          if (lastMs === null || t > lastMs) lastMs = t;
        }
        if (item.error || !(item.status >= 200 && item.status < 300)) errors++;
      } catch {
        errors++;
      }
    }
  }
  return { lines, errors, distinct: urls.size, firstMs, lastMs };
}
