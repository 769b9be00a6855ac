/**
 * The benchmark scenarios: one object each. To add one, append an object to SCENARIOS:
 *
 *   name      id used by --only and in the table
 *   needs     fixtures to start first: 'corpus' (nginx serving the PostgreSQL docs)
 *   ceiling   optional: name of the scenario whose pages/s this one is divided by ("ratio to
 *             ceiling"); that scenario then runs in every run before this one
 *   prepare(ctx) → { argv, cwd?, out? } the command to measure (argv[0] is the program);
 *             `out` is a directory removed after the run
 *   result(ctx, prepared, measured) → { pages, seconds?, expectedPages?, warnings? }
 *             pages counted from the output; `seconds` replaces the measured wall time when
 *             the command times itself (the fetch ceiling excludes its start-up)
 *
 * ctx: { root, corpus: {url, pages, urls()}, outDir(kind) } where outDir('tmpfs' | 'disk')
 * makes a fresh temporary directory on that kind of file system.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DOCS_DIR } from './lib/corpus.js';

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
          'bin/collector.js',
          'crawl',
          ctx.corpus.url,
          '--out',
          out,
          ...CORPUS_CRAWL_ARGS,
          ...extraArgs,
        ],
      };
    },
    result(ctx, prepared) {
      const { lines, errors } = countItems(prepared.out);
      const warnings = [];
      if (errors) warnings.push(`${errors} item(s) with an error or a non-2xx status`);
      // every HTML file of the docs, plus the /pg/ directory URL itself
      return { pages: lines, expectedPages: ctx.corpus.pages + 1, warnings };
    },
  };
}

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
  corpusCrawl('corpus-tmpfs', 'tmpfs'),
  corpusCrawl('corpus-disk', 'disk'),
];

/** Lines of <out>/items/*.jsonl, and how many of them record an error or a non-2xx status. */
function countItems(out) {
  let lines = 0;
  let errors = 0;
  const dir = path.join(out, 'items');
  let names = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return { lines: 0, errors: 0 };
  }
  for (const name of names) {
    for (const line of readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      if (!line) continue;
      lines++;
      try {
        const item = JSON.parse(line);
        if (item.error || !(item.status >= 200 && item.status < 300)) errors++;
      } catch {
        errors++;
      }
    }
  }
  return { lines, errors };
}
