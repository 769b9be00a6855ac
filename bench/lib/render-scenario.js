/**
 * The render benchmark (issue 32): a 200-page single-page application and a 1,000-page plain site
 * (bench/lib/spa-site.js) crawled together with `--render auto`, one process. Measured: rendered
 * pages/s (the app's pages, over the span of their items), peak memory of the whole process tree
 * (node and Chromium, sampled every 100 ms: PSS, what the memory guard counts; summed RSS, which
 * counts the pages Chromium's processes share once per process, beside it) and the plain pages' pages/s in that crawl against a crawl of the plain site alone
 * (`--render never`). Targets: ≥ 15 rendered pages/s, ≤ 600 MB, ≥ 80% of the plain pages/s.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cliArgv } from './cli-argv.js';
import { descendants, machineBusySeconds, readPss, treeCpuSeconds, treeRssBytes } from './measure.js';
import { hasExited, sleep, startProcess, startServer, stopProcess } from './proc.js';

const PAGES = 200;
/**
 * Pages of the plain site: enough for the plain pages to be crawled for the whole mixed crawl,
 * while the browser renders (its steady state), not only while it starts. With 200 or 1,000, the
 * plain site was done in the crawl's first 0.4–1.5 s, the browser's launch, and the ratio of one
 * build ranged 44–85% from run to run (bench/RESULTS.md, 2026-12-03).
 */
const PLAIN_PAGES = 10000;
/** Pages rendered at once: the setting measured (the default is 2, see docs/render.md). */
export const RENDER_CONCURRENCY = 4;
const MB = 2 ** 20;

/** The items of an output dir. */
function items(out) {
  const dir = path.join(out, 'items');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      readFileSync(path.join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    );
}

/** Pages per second over the span of these items' fetch times (n − 1 gaps), or null. */
function rate(list) {
  const t = list.map((i) => Date.parse(i.fetchedAt)).sort((a, b) => a - b);
  if (t.length < 2 || t[t.length - 1] === t[0]) return null;
  return (t.length - 1) / ((t[t.length - 1] - t[0]) / 1000);
}

/** Run one crawl to its end, sampling the tree's RSS and the browser's PSS. */
async function crawl(ctx, seeds, extra, limitS) {
  const out = ctx.outDir('tmpfs');
  const argv = [
    ...cliArgv(ctx.cli),
    'crawl',
    ...seeds,
    '--out',
    out,
    '--processes',
    '1',
    '--scope',
    'any',
    '--delay',
    '0',
    '--host-concurrency',
    '16',
    '--concurrency',
    '32',
    '--no-robots',
    '--quiet',
    ...extra,
  ];
  const busy0 = machineBusySeconds();
  const h = startProcess(argv, { cwd: ctx.root });
  let peakRss = 0;
  let peakBrowserPss = 0;
  let peakTreePss = 0;
  let cpu = 0;
  const deadline = h.startedAt + limitS * 1000;
  while (performance.now() < deadline && !(await hasExited(h))) {
    await sleep(100);
    peakRss = Math.max(peakRss, treeRssBytes(h.pid));
    // The wrapper-free tree: the collector (h.pid) and its browser's processes.
    const browserPss = descendants(h.pid).reduce((a, p) => a + (readPss(p) ?? 0), 0);
    peakBrowserPss = Math.max(peakBrowserPss, browserPss);
    peakTreePss = Math.max(peakTreePss, browserPss + (readPss(h.pid) ?? 0));
    const c = treeCpuSeconds(h.pid);
    if (c > 0) cpu = c;
  }
  const timedOut = !(await hasExited(h));
  const runS = (performance.now() - h.startedAt) / 1000;
  const stop = await stopProcess(h, { graceMs: 10_000 });
  return {
    out,
    runS,
    peakRss,
    peakBrowserPss,
    peakTreePss,
    cpu,
    busyS: machineBusySeconds() - busy0,
    timedOut,
    rc: stop.code,
    items: items(out),
  };
}

export const renderAuto200 = {
  name: 'render-auto-200',
  kind: 'custom',
  head: [
    'scenario',
    'pages: rendered + plain',
    'run s',
    'rendered pages/s (≥ 15)',
    'peak memory of the tree MB, PSS (≤ 600)',
    'peak RSS summed MB',
    'browser PSS MB (peak)',
    'plain pages/s in the crawl',
    'plain pages/s alone (--render never)',
    'ratio (≥ 80%)',
    'verdict',
  ],
  async run(ctx) {
    const warnings = [];
    const server = await startServer(path.join(ctx.root, 'bench/lib/spa-site.js'), [
      '--pages',
      String(PAGES),
      '--plain-pages',
      String(PLAIN_PAGES),
    ]);
    const outs = [];
    try {
      const { app, plain } = server.info;
      const alone = await crawl(ctx, [`${plain}/plain/0`], ['--render', 'never'], 120);
      outs.push(alone.out);
      await ctx.waitIdle('render-auto-200');
      const mixed = await crawl(
        ctx,
        [`${app}/app/p/0`, `${plain}/plain/0`],
        ['--render', 'auto', '--render-concurrency', String(RENDER_CONCURRENCY)],
        300,
      );
      outs.push(mixed.out);
      for (const [label, r] of [
        ['plain alone', alone],
        ['auto', mixed],
      ]) {
        if (r.timedOut) warnings.push(`render-auto-200 ${label}: did not finish in time`);
        else if (r.rc !== 0) warnings.push(`render-auto-200 ${label}: exit code ${r.rc}`);
      }
      const rendered = mixed.items.filter((i) => i.data?.rendered === true);
      const plainItems = mixed.items.filter((i) => i.url.startsWith(plain));
      const wrong = mixed.items.filter((i) => (i.url.startsWith(app) ? !i.data?.rendered : i.data?.rendered));
      if (rendered.length !== PAGES || plainItems.length !== PLAIN_PAGES) {
        warnings.push(
          `render-auto-200: ${rendered.length} rendered and ${plainItems.length} plain items, expected ${PAGES} and ${PLAIN_PAGES}`,
        );
      }
      if (wrong.length > 0)
        warnings.push(`render-auto-200: ${wrong.length} pages rendered or not against the rules`);
      const renderedPps = rate(rendered);
      const plainPps = rate(plainItems);
      const alonePps = rate(alone.items);
      const ratio = plainPps !== null && alonePps !== null ? plainPps / alonePps : null;
      const ok =
        renderedPps !== null &&
        renderedPps >= 15 &&
        mixed.peakTreePss <= 600 * MB &&
        ratio !== null &&
        ratio >= 0.8 &&
        warnings.length === 0;
      const other = Math.max(0, mixed.busyS - mixed.cpu);
      if (other > 0.1 * mixed.runS) {
        warnings.push(
          `render-auto-200: ${other.toFixed(1)} CPU s used by other processes during the ${mixed.runS.toFixed(0)} s run`,
        );
      }
      const f1 = (n) => (n === null ? '—' : n.toFixed(1));
      return {
        rows: [
          [
            'render-auto-200',
            `${rendered.length} + ${plainItems.length}`,
            mixed.runS.toFixed(1),
            f1(renderedPps),
            (mixed.peakTreePss / MB).toFixed(0),
            (mixed.peakRss / MB).toFixed(0),
            (mixed.peakBrowserPss / MB).toFixed(0),
            f1(plainPps),
            f1(alonePps),
            ratio === null ? '—' : `${Math.round(ratio * 100)}%`,
            ok ? 'ok' : 'FAIL',
          ],
        ],
        notes: [
          `--render auto --render-concurrency ${RENDER_CONCURRENCY}, --processes 1 --concurrency 32 --host-concurrency 16 --delay 0; ` +
            `rates over the span of the items' fetch times; CPU of the tree ${mixed.cpu.toFixed(1)} s. ` +
            'Memory: PSS of the collector and its browser processes, sampled every 100 ms (what the memory guard counts); ' +
            'summed RSS counts the pages Chromium processes share once per process (an upper bound).',
        ],
        warnings,
        failed: !ok,
        raw: { mixed: { ...mixed, items: undefined }, alone: { ...alone, items: undefined } },
      };
    } finally {
      for (const o of outs) ctx.removeOut(o);
      await server.stop();
    }
  },
};
