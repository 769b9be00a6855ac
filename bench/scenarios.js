/**
 * The benchmark scenarios: one object each. To add one, append an object to SCENARIOS:
 *
 *   name      id used by --only and in the table
 *   needs     fixtures to start first: 'corpus' (nginx serving the PostgreSQL docs) or
 *             'pycorpus' (nginx serving the Python docs); the server CPU on stderr is theirs
 *   ceiling   optional: name of the scenario whose pages/s this one is divided by ("ratio to
 *             ceiling"); that scenario then runs in every run before this one
 *   peer      optional: name of another crawler's scenario (wget) run in every run with this one;
 *             a note under the table gives pages/s and CPU per page as ratios to it
 *   okExitCodes optional: exit codes that count as success (default [0])
 *   prepare(ctx) → { argv, cwd?, out? } the command to measure (argv[0] is the program);
 *             `out` is a directory removed after the run
 *   result(ctx, prepared, measured) → { pages, seconds?, expectedPages?, exactlyOnce?, phases?, warnings? }
 *             pages counted from the output; `seconds` replaces the measured wall time when
 *             the command times itself (the fetch ceiling excludes its start-up); exactlyOnce:
 *             whether every expected page is in the items exactly once; phases: { startupS,
 *             fetchS, tailS } = start → first item's fetchedAt → last item's → exit
 *
 * ctx: { root, cli, corpus, pycorpus, outDir(kind) } (corpus, pycorpus: {url, pages, urls()},
 * bench/lib/corpus.js; started only when a selected scenario needs it) where cli is the
 * bin/collector.js to run (a snapshot of the build, see run.js) and outDir('tmpfs' | 'disk')
 * makes a fresh temporary directory on that kind of file system.
 *
 * Scenarios with `kind: 'custom'` (bench/lib/long-scenarios.js) instead have `head` (their
 * table's columns) and `run(ctx)`; they run once per bench invocation, after the runs above.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cliArgv } from './lib/cli-argv.js';
import { DOCS_DIR, PY_DOCS_DIR } from './lib/corpus.js';
import { idleRss, politeness200, run20On2g, synthetic1m } from './lib/long-scenarios.js';
import { startup } from './lib/startup-scenario.js';
import { renderAuto200 } from './lib/render-scenario.js';

/** The crawl command the issue measures: every page, no politeness delay, bodies stored. */
const CORPUS_CRAWL_ARGS = ['--delay', '0', '--host-concurrency', '16', '--concurrency', '32', '--quiet'];

/**
 * What a crawl of each corpus from its directory URL reaches, as counts derived from the corpus
 * (`pages` = its *.html files), so a changed docs package shows as a warning, not a silent drift.
 *   collectorItems: the collector's item lines; collectorErrors: those with a non-2xx status;
 *   wgetFiles: the files `wget -A html` saves (it saves `/x/` and `/x/index.html` as one file;
 *   both crawlers count the directory URL as a page, so wget's pages = files + 1).
 *
 * PostgreSQL docs: every page is linked; the collector's items are every page plus `/pg/`.
 *
 * Python docs (Debian 12's python3-doc 3.11.2, 530 *.html files, pages in subdirectories such as
 * library/ and c-api/; read from both crawlers' output and nginx's access log):
 * - PY_UNLINKED, 4 files, are linked from no page but themselves: neither crawler sees them;
 * - whatsnew/changelog.html is linked (from tutorial/index.html, whatsnew/*, genindex-*) but
 *   Debian ships it compressed as changelog.html.gz, so nginx answers 404: wget exits 8 ("server
 *   issued an error response"), the collector writes an item with status 404;
 * - library/datetime.html links a download, _downloads/…/tzinfo_examples.py (text/x-python): the
 *   collector fetches it as an item, wget's `-A html` skips it;
 * - links go to files (library/index.html), never to subdirectory URLs (library/), so `/py/` is
 *   the one directory URL, as `/pg/` is.
 * So wget saves 530 − 4 = 526 files (527 pages with `/py/`, as for PG), and the collector writes
 * 526 + 1 (`/py/`) + 1 (the 404) + 1 (the .py) = 529 items; both request the same 527 pages and
 * the 404 (the collector's 529 includes 2 responses wget's 527 does not count, 0.4%).
 */
const PY_UNLINKED = [
  'distutils/_setuptools_disclaimer.html',
  'distutils/packageindex.html',
  'distutils/uploading.html',
  'includes/wasm-notavail.html',
];
const REACH = {
  corpus: (c) => ({ collectorItems: c.pages + 1, collectorErrors: 0, wgetFiles: c.pages }),
  pycorpus: (c) => ({
    collectorItems: c.pages - PY_UNLINKED.length + 3,
    collectorErrors: 1,
    wgetFiles: c.pages - PY_UNLINKED.length,
  }),
};

/**
 * A crawl of a corpus ('corpus': PostgreSQL docs, 'pycorpus': Python docs) with the real CLI,
 * output on `where` ('tmpfs' or 'disk').
 */
function corpusCrawl(name, where, extraArgs = [], { corpus = 'corpus', ceiling = 'fetch-ceiling' } = {}) {
  return {
    name,
    needs: [corpus],
    ceiling,
    prepare(ctx) {
      const out = ctx.outDir(where);
      return {
        out,
        argv: [
          ...cliArgv(ctx.cli),
          'crawl',
          ctx[corpus].url,
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
      const reach = REACH[corpus](ctx[corpus]);
      if (errors !== reach.collectorErrors) {
        warnings.push(
          `${errors} item(s) with an error or a non-2xx status, ${reach.collectorErrors} expected`,
        );
      }
      const expectedPages = reach.collectorItems;
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
 * GNU wget (Debian's package) mirroring a corpus, the peer the issue measures against: one
 * connection, no compression (wget's defaults), robots.txt obeyed, every page written to tmpfs.
 * `-A html` keeps it to the pages the collector fetches (no style sheet or images). wget saves
 * `/pg/` and `/pg/index.html` as one file: pages = files + 1, as the collector's items count both
 * (see REACH for what each corpus gives).
 */
function wgetMirror(name, corpus, { okExitCodes = [0] } = {}) {
  return {
    name,
    needs: [corpus],
    okExitCodes,
    prepare(ctx) {
      const out = ctx.outDir('tmpfs');
      return {
        out,
        argv: ['wget', '-r', '-np', '-q', '-l', 'inf', '-A', 'html', '-P', out, ctx[corpus].url],
      };
    },
    result(ctx, prepared) {
      const files = readdirSync(prepared.out, { recursive: true, withFileTypes: true }).filter((f) =>
        f.isFile(),
      );
      const pages = files.length + 1;
      const expectedPages = REACH[corpus](ctx[corpus]).wgetFiles + 1;
      const warnings =
        pages === expectedPages ? [] : [`wget wrote ${files.length} files, ${expectedPages - 1} expected`];
      return { pages, expectedPages, exactlyOnce: pages === expectedPages, warnings };
    },
  };
}

/** The fetch-only ceiling on a corpus: every *.html file of it plus its directory URL. */
function fetchCeiling(name, corpus, docsDir) {
  return {
    name,
    needs: [corpus],
    prepare(ctx) {
      return {
        argv: [
          process.execPath,
          'bench/fetch-ceiling.js',
          '--base',
          ctx[corpus].url,
          '--dir',
          docsDir,
          '--concurrency',
          '32',
        ],
      };
    },
    result(ctx, _prepared, measured) {
      const r = JSON.parse(measured.stdout.trim().split('\n').pop());
      const warnings = r.failed ? [`${r.failed} request(s) failed or were not 2xx`] : [];
      return { pages: r.pages, seconds: r.seconds, expectedPages: ctx[corpus].pages + 1, warnings };
    },
  };
}

export const SCENARIOS = [
  fetchCeiling('fetch-ceiling', 'corpus', DOCS_DIR),
  // `crawl` defaults to one process per CPU: the one-process rows say --processes 1.
  wgetMirror('wget-tmpfs', 'corpus'),
  // `peer`: measured in the same run; a note gives this row's pages/s and CPU per page against it
  { ...corpusCrawl('corpus-tmpfs', 'tmpfs', ['--processes', '1']), peer: 'wget-tmpfs' },
  corpusCrawl('corpus-disk', 'disk', ['--processes', '1']),
  corpusCrawl('corpus-2proc', 'tmpfs', ['--processes', '2', '--partition', 'url']),
  corpusCrawl('corpus-4proc', 'tmpfs', ['--processes', '4', '--partition', 'url']),
  // The Python docs (large pages), the same pair: wget exits 8 on the docs' one broken link (REACH)
  fetchCeiling('fetch-ceiling-py', 'pycorpus', PY_DOCS_DIR),
  wgetMirror('wget-py-tmpfs', 'pycorpus', { okExitCodes: [0, 8] }),
  {
    ...corpusCrawl('corpus-py-tmpfs', 'tmpfs', ['--processes', '1'], {
      corpus: 'pycorpus',
      ceiling: 'fetch-ceiling-py',
    }),
    peer: 'wget-py-tmpfs',
  },
  synthetic1m,
  politeness200,
  idleRss,
  startup,
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
