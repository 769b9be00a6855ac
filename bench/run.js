#!/usr/bin/env node
/**
 * Benchmark runner: runs the scenarios of bench/scenarios.js, each as a child process measured
 * from outside (wall, CPU of the process tree, peak RSS summed over the tree), and prints one
 * Markdown table row per scenario: medians over --runs, pages/s also as min–max. Custom
 * scenarios (synthetic-1m, politeness-200, idle-rss, startup, run-20-on-2g) run once each afterwards and
 * print their own tables.
 *
 *   node bench/run.js [--runs 3] [--only corpus-tmpfs,corpus-disk] [--warmup 1] [--json FILE] [--idle-wait 120]
 *                    [--timeout 120] [--synthetic-seconds 120] [--politeness-seconds 30] [--run20-seconds 20]
 *                    [--startup-runs 15]
 *
 * Progress and warnings go to stderr, the table to stdout. See bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statfsSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pgCorpus, pyCorpus } from './lib/corpus.js';
import { killAll, machineBusySeconds, measure } from './lib/measure.js';
import { killStarted } from './lib/proc.js';
import { SCENARIOS } from './scenarios.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    only: { type: 'string' },
    warmup: { type: 'string', default: '1' },
    json: { type: 'string' },
    'idle-wait': { type: 'string', default: '120' },
    timeout: { type: 'string', default: '120' },
    'synthetic-seconds': { type: 'string', default: '120' },
    'politeness-seconds': { type: 'string', default: '30' },
    'run20-seconds': { type: 'string', default: '20' },
    'startup-runs': { type: 'string', default: '15' },
    'in-place': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
if (opts.help) {
  process.stdout.write(
    `usage: node bench/run.js [--runs N] [--only a,b] [--warmup N] [--json FILE] [--idle-wait S] [--timeout S]\n` +
      `       [--synthetic-seconds S] [--politeness-seconds S] [--run20-seconds S] [--in-place]\nscenarios: ${SCENARIOS.map((s) => s.name).join(', ')}\n`,
  );
  process.exit(0);
}
const runs = Number(opts.runs);
const warmups = Number(opts.warmup);
if (!(runs >= 1) || !(warmups >= 0)) usage('--runs must be ≥ 1 and --warmup ≥ 0');

const byName = new Map(SCENARIOS.map((s) => [s.name, s]));
const wanted = opts.only
  ? opts.only
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
  : SCENARIOS.map((s) => s.name);
for (const n of wanted)
  if (!byName.has(n)) usage(`unknown scenario "${n}" (have: ${[...byName.keys()].join(', ')})`);
// A scenario's ceiling runs in the same run, before it.
const selected = new Set(wanted);
for (const n of wanted) if (byName.get(n).ceiling) selected.add(byName.get(n).ceiling);
// …and so does its peer (another crawler on the same corpus).
for (const n of wanted) if (byName.get(n).peer) selected.add(byName.get(n).peer);
const order = SCENARIOS.filter((s) => selected.has(s.name) && s.kind !== 'custom').sort(
  (a, b) => Number(isCeiling(b)) - Number(isCeiling(a)),
);
const customs = SCENARIOS.filter((s) => selected.has(s.name) && s.kind === 'custom');
const longOpts = {
  syntheticSeconds: Number(opts['synthetic-seconds']),
  politenessSeconds: Number(opts['politeness-seconds']),
  run20Seconds: Number(opts['run20-seconds']),
  startupRuns: Number(opts['startup-runs']),
};
for (const [k, v] of Object.entries(longOpts)) if (!(v > 0 && v <= 600)) usage(`${k} must be in (0, 600]`);

if (!existsSync(path.join(root, 'dist/bundle/main.js'))) usage('dist/ is missing: run `npm run build` first');

/** The docs corpora a scenario can name in `needs` (each an nginx on loopback). */
const corpora = (() => {
  try {
    return { corpus: pgCorpus(root), pycorpus: pyCorpus() };
  } catch (e) {
    usage(e.message); // a bad $PYCORPUS_PORT
  }
})();
const needs = new Set(order.flatMap((s) => s.needs ?? []));
for (const n of needs)
  if (!corpora[n]) usage(`a scenario needs "${n}", which is none of ${Object.keys(corpora)}`);

function isCeiling(s) {
  return SCENARIOS.some((o) => o.ceiling === s.name && selected.has(o.name));
}

function usage(msg) {
  process.stderr.write(`bench: ${msg}\n`);
  process.exit(2);
}

function log(msg) {
  process.stderr.write(`${msg}\n`);
}

// ---- output directories -------------------------------------------------------------------

const TMPFS_MAGIC = 0x01021994;
const RAMFS_MAGIC = 0x858458f6;
const isMemoryFs = (dir) => [TMPFS_MAGIC, RAMFS_MAGIC].includes(statfsSync(dir).type);

const outBases = {
  tmpfs: '/dev/shm',
  disk: isMemoryFs(os.tmpdir()) ? path.join(root, 'bench') : os.tmpdir(),
};
const liveOuts = new Set();

function outDir(kind) {
  const base = outBases[kind];
  if (!base) throw new Error(`unknown output kind ${kind}`);
  if (kind === 'tmpfs' && !isMemoryFs(base)) log(`warning: ${base} is not tmpfs`);
  if (kind === 'disk' && isMemoryFs(base)) log(`warning: ${base} is a memory file system, not disk`);
  const dir = mkdtempSync(path.join(base, kind === 'disk' ? '.collector-bench-' : 'collector-bench-'));
  liveOuts.add(dir);
  return dir;
}

function removeOut(dir) {
  rmSync(dir, { recursive: true, force: true });
  liveOuts.delete(dir);
}

// ---- the code measured ---------------------------------------------------------------------

/**
 * A private copy of bin/, dist/ and package.json (node_modules linked), taken once at start, so a
 * `npm run build` by someone else during the bench cannot swap files under a running crawl.
 * `--in-place` runs the working tree's bin/collector.js instead.
 */
function snapshotCode() {
  if (opts['in-place']) return { dir: null, cli: path.join(root, 'bin/collector.js') };
  const newestDist = () =>
    Math.max(
      ...readdirSync(path.join(root, 'dist'), { recursive: true }).map(
        (f) => statSync(path.join(root, 'dist', String(f))).mtimeMs,
      ),
    );
  for (let attempt = 0; attempt < 5; attempt++) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'collector-bench-code-'));
    const before = newestDist();
    // a build in progress writes dist/ for a few seconds: copy only when it has been quiet for 2 s
    if (Date.now() - before < 2000) {
      rmSync(dir, { recursive: true, force: true });
      execFileSync('sleep', ['2']);
      continue;
    }
    for (const f of ['bin', 'dist', 'package.json'])
      cpSync(path.join(root, f), path.join(dir, f), { recursive: true });
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    if (newestDist() === before) {
      execFileSync(process.execPath, [path.join(dir, 'bin/collector.js'), '--version'], { stdio: 'ignore' });
      return { dir, cli: path.join(dir, 'bin/collector.js'), builtAt: new Date(before).toISOString() };
    }
    rmSync(dir, { recursive: true, force: true });
  }
  usage('dist/ kept changing (a build running?); try again or pass --in-place');
}

const code = snapshotCode();

// ---- fixtures (the corpora above) ---------------------------------------------------------

function cleanupAll() {
  killAll();
  killStarted();
  for (const d of liveOuts) rmSync(d, { recursive: true, force: true });
  liveOuts.clear();
  for (const [name, corpus] of Object.entries(corpora)) {
    try {
      corpus.stop();
    } catch (e) {
      log(`warning: stopping the ${name} server: ${e.message}`);
    }
  }
  if (code.dir) rmSync(code.dir, { recursive: true, force: true });
}
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    cleanupAll();
    process.exit(130);
  });
}

// ---- running ------------------------------------------------------------------------------

const ctx = { root, cli: code.cli, ...corpora, outDir };
const records = new Map(order.map((s) => [s.name, []]));
const warnings = [];
let failed = false;

async function runOnce(sc, label) {
  await waitIdle(label);
  const prepared = sc.prepare(ctx);
  // the server CPU of the corpora this scenario uses (not of the other corpus, idle meanwhile)
  const servers = (sc.needs ?? []).map((n) => corpora[n]);
  const serverCpu = () => servers.reduce((sum, c) => sum + c.serverCpuSeconds(), 0);
  const workerCpu = () =>
    servers
      .map((c) => c.workerCpuSeconds())
      .reduce((a, w) => ({ seconds: a.seconds + w.seconds, workers: a.workers + w.workers }), {
        seconds: 0,
        workers: 0,
      });
  try {
    const server0 = serverCpu();
    const workers0 = workerCpu();
    const m = await measure(prepared.argv, { cwd: prepared.cwd ?? root, timeoutS: Number(opts.timeout) });
    const serverS = serverCpu() - server0;
    const workers1 = workerCpu();
    // nginx worker CPU during the run: is the server the bottleneck? (1 worker = 1 core at most)
    const nginxS = workers1.seconds - workers0.seconds;
    // CPU the machine spent on neither the measured command nor the server: interference.
    const otherS = Math.max(0, m.busyS - m.cpuS - serverS);
    if (otherS > OTHER_CPU_WARN * m.wallS) {
      warnings.push(
        `${sc.name} ${label}: ${otherS.toFixed(2)} CPU s used by other processes during the ${m.wallS.toFixed(2)} s run`,
      );
    }
    if (m.timedOut) {
      failed = true;
      warnings.push(`${sc.name} ${label}: killed after --timeout ${opts.timeout} s (exit code ${m.rc})`);
      log(`  ${sc.name.padEnd(16)} ${label.padEnd(8)} TIMED OUT after ${opts.timeout} s`);
      return null;
    }
    // `okExitCodes`: a scenario's command may exit non-zero by design (wget: 8 for a 404)
    if (!(sc.okExitCodes ?? [0]).includes(m.rc)) {
      failed = true;
      warnings.push(
        `${sc.name} ${label}: exit code ${m.rc}: ${m.stderr.trim().split('\n').slice(-3).join(' | ')}`,
      );
      return null;
    }
    const r = sc.result(ctx, prepared, m);
    const seconds = r.seconds ?? m.wallS;
    const rec = {
      ...m,
      stdout: undefined,
      stderr: undefined,
      pages: r.pages,
      seconds,
      pps: r.pages / seconds,
      nginxS,
      nginxWorkers: workers1.workers,
      exactlyOnce: r.exactlyOnce,
      phases: r.phases,
    };
    for (const w of r.warnings ?? []) warnings.push(`${sc.name} ${label}: ${w}`);
    if (r.expectedPages !== undefined && r.pages !== r.expectedPages) {
      warnings.push(`${sc.name} ${label}: ${r.pages} pages, expected ${r.expectedPages}`);
    }
    const stderrTail = m.stderr.trim();
    if (stderrTail) log(`  ${sc.name} stderr: ${stderrTail.split('\n')[0].slice(0, 200)}`);
    log(
      `  ${sc.name.padEnd(16)} ${label.padEnd(8)} pages ${r.pages}  ${seconds.toFixed(3)} s  ${rec.pps.toFixed(0)} pages/s` +
        `  cpu ${m.userS.toFixed(2)}u+${m.sysS.toFixed(2)}s  rss ${(m.peakRssBytes / 2 ** 20).toFixed(0)} MB` +
        ` (${m.processes} proc)  server ${serverS.toFixed(2)} cpu-s (nginx workers ${nginxS.toFixed(2)} = ${((100 * nginxS) / m.wallS).toFixed(0)}% of wall)` +
        `  other ${otherS.toFixed(2)} cpu-s`,
    );
    return rec;
  } finally {
    if (prepared.out) removeOut(prepared.out);
  }
}

/** Interference warning threshold: other processes' CPU as a fraction of one core over the run. */
const OTHER_CPU_WARN = 0.1;
/** The machine counts as idle below this fraction of one core in use. */
const IDLE_BUSY = 0.15;
/** Longest wait for an idle machine before a measurement (s); then it runs anyway, with a warning. */
const IDLE_WAIT_S = Number(opts['idle-wait']);

/** Wait (up to --idle-wait s) until other processes use < IDLE_BUSY of one core over 0.5 s. */
async function waitIdle(label) {
  const deadline = Date.now() + IDLE_WAIT_S * 1000;
  for (;;) {
    const b0 = machineBusySeconds();
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, 500));
    const busy = (machineBusySeconds() - b0) / ((Date.now() - t0) / 1000);
    if (busy < IDLE_BUSY) return;
    if (Date.now() > deadline) {
      warnings.push(
        `${label}: machine still busy (${(busy * 100).toFixed(0)}% of a core) after ${IDLE_WAIT_S} s wait`,
      );
      return;
    }
  }
}

/** ctx of the custom scenarios. */
const customCtx = {
  root,
  cli: code.cli,
  opts: longOpts,
  outDir,
  removeOut,
  waitIdle,
  log,
};
const customResults = new Map();

async function runCustom(sc) {
  await waitIdle(sc.name);
  log(`${sc.name}: running`);
  const t0 = performance.now();
  let res;
  try {
    res = await sc.run(customCtx);
  } catch (e) {
    res = {
      rows: [[sc.name, `failed: ${e.message}`]],
      notes: [],
      warnings: [`${sc.name}: ${e.stack}`],
      failed: true,
    };
  }
  log(`${sc.name}: done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  for (const w of res.warnings ?? []) warnings.push(w);
  if (res.failed) failed = true;
  customResults.set(sc.name, res);
}

for (const n of needs) {
  try {
    const corpus = corpora[n].start();
    log(`${n}: ${corpus.url} (${corpus.pages} pages)${corpus.startedHere ? ', started by the bench' : ''}`);
  } catch (e) {
    cleanupAll();
    usage(`${n}: ${e.message}`); // e.g. its port is taken, or nginx cannot be installed
  }
}
try {
  log(`outputs: tmpfs ${outBases.tmpfs}, disk ${outBases.disk}`);
  log(code.dir ? `code: snapshot of dist/ built ${code.builtAt}, run from ${code.dir}` : 'code: in place');
  for (let w = 0; w < warmups; w++) {
    // Warm the server (page cache, open_file_cache) so the first measured run is not cold.
    for (const sc of order.filter(isCeiling)) await runOnce(sc, 'warmup');
  }
  for (let run = 1; run <= runs; run++) {
    for (const sc of order) {
      const rec = await runOnce(sc, `run ${run}`);
      records.get(sc.name).push(rec ? { run, ...rec } : null);
      execFileSync('sync');
    }
  }
  for (const sc of customs) {
    await runCustom(sc);
    execFileSync('sync');
  }
  if (order.length) printTable();
  printCustomTables();
  if (opts.json) {
    const custom = Object.fromEntries([...customResults].map(([k, v]) => [k, { ...v, raw: v.raw }]));
    writeFileSync(
      opts.json,
      `${JSON.stringify({ date: new Date().toISOString(), records: Object.fromEntries(records), custom, warnings }, null, 1)}\n`,
    );
  }
} finally {
  cleanupAll();
}
for (const w of warnings) log(`warning: ${w}`);
process.exitCode = failed ? 1 : 0;

// ---- table --------------------------------------------------------------------------------

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function printTable() {
  const head = [
    'scenario',
    'pages',
    'wall s',
    'pages/s median (min–max)',
    'CPU s / 1,000 pages',
    'peak RSS MB (max)',
    'fetch-only ceiling pages/s',
    'ratio to ceiling',
    'nginx worker CPU s (% of wall)',
    'exactly once',
    'start-up / fetching / tail s',
    `cores busy: command + nginx (of ${os.availableParallelism()})`,
  ];
  const rows = [head, head.map((_h, i) => (i === 0 ? '---' : '---:'))];
  for (const sc of order) {
    const recs = records.get(sc.name).filter(Boolean);
    if (!recs.length) {
      rows.push([sc.name, 'failed', ...head.slice(2).map(() => '')]);
      continue;
    }
    const pps = recs.map((r) => r.pps);
    let ceilingCell = '—';
    let ratioCell = '—';
    if (sc.ceiling) {
      // pair each run with the ceiling measured in the same run
      const ceil = records.get(sc.ceiling);
      const pairs = recs.map((r) => [r, ceil.find((c) => c && c.run === r.run)]).filter(([, c]) => c);
      if (pairs.length) {
        ceilingCell = fmt0(median(pairs.map(([, c]) => c.pps)));
        ratioCell = `${(median(pairs.map(([r, c]) => r.pps / c.pps)) * 100).toFixed(0)}%`;
      }
    }
    rows.push([
      sc.name,
      fmt0(median(recs.map((r) => r.pages))),
      median(recs.map((r) => r.seconds)).toFixed(2),
      `${fmt0(median(pps))} (${fmt0(Math.min(...pps))}–${fmt0(Math.max(...pps))})`,
      median(recs.map((r) => (r.cpuS / r.pages) * 1000)).toFixed(2),
      (Math.max(...recs.map((r) => r.peakRssBytes)) / 2 ** 20).toFixed(0),
      ceilingCell,
      ratioCell,
      `${median(recs.map((r) => r.nginxS)).toFixed(2)} (${fmt0(median(recs.map((r) => (100 * r.nginxS) / r.seconds)))}%)`,
      exactlyOnceCell(recs),
      phasesCell(recs),
      `${median(recs.map((r) => r.cpuS / r.wallS)).toFixed(2)} + ${median(recs.map((r) => r.nginxS / r.wallS)).toFixed(2)}`,
    ]);
  }
  process.stdout.write(`${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`);
  // The issue's multi-process target: N processes vs one, per run, unless nginx is the bottleneck.
  const one = records.get('corpus-tmpfs');
  const notes = [];
  for (const name of ['corpus-2proc', 'corpus-4proc']) {
    const many = records.get(name);
    if (!one || !many) continue;
    const pairs = many
      .filter(Boolean)
      .map((r) => [r, one.find((o) => o && o.run === r.run)])
      .filter(([, o]) => o);
    if (!pairs.length) continue;
    const speed = median(pairs.map(([r, o]) => r.pps / o.pps));
    const busy = median(pairs.map(([r]) => r.nginxS / r.seconds));
    const workers = pairs[0][0].nginxWorkers;
    notes.push(
      `${name} ÷ corpus-tmpfs pages/s: ${speed.toFixed(2)}× (median of per-run ratios; target ≥ 1.5×). ` +
        `nginx (${workers} worker${workers === 1 ? '' : 's'}) was busy ${(100 * busy).toFixed(0)}% of the crawl's wall time ` +
        `(of at most ${workers * 100}%)${busy > 0.8 * workers ? ': the server is near saturation' : ''}.`,
    );
  }
  // Against another crawler in the same run (issue 31: the ratio is what the README quotes).
  for (const sc of order) {
    if (!sc.peer) continue;
    const mine = (records.get(sc.name) ?? []).filter(Boolean);
    const theirs = (records.get(sc.peer) ?? []).filter(Boolean);
    const pairs = mine.map((r) => [r, theirs.find((o) => o.run === r.run)]).filter(([, o]) => o);
    if (!pairs.length) continue;
    const speed = median(pairs.map(([r, o]) => r.pps / o.pps));
    const cpu = median(pairs.map(([r, o]) => r.cpuS / r.pages / (o.cpuS / o.pages)));
    const rss = median(pairs.map(([r, o]) => r.peakRssBytes / o.peakRssBytes));
    notes.push(
      `${sc.name} ÷ ${sc.peer}, same runs: pages/s ${speed.toFixed(2)}×, CPU per page ${cpu.toFixed(2)}×, ` +
        `peak RSS ${rss.toFixed(1)}× (medians of per-run ratios).`,
    );
  }
  if (notes.length) process.stdout.write(`\n${notes.map((n) => `- ${n}`).join('\n')}\n`);
}

/** Medians of start → first item, first → last item, last item → exit (fetchedAt has ms resolution). */
function phasesCell(recs) {
  const ps = recs.map((r) => r.phases).filter(Boolean);
  if (!ps.length) return '—';
  return ['startupS', 'fetchS', 'tailS'].map((k) => median(ps.map((p) => p[k])).toFixed(2)).join(' / ');
}

function exactlyOnceCell(recs) {
  const checked = recs.filter((r) => r.exactlyOnce !== undefined);
  if (!checked.length) return '—';
  const ok = checked.filter((r) => r.exactlyOnce).length;
  return ok === checked.length ? `yes (${ok}/${checked.length})` : `**NO** (${ok}/${checked.length})`;
}

/** One table per distinct header among the custom scenarios run, then their notes. */
function printCustomTables() {
  const groups = new Map();
  for (const sc of customs) {
    const res = customResults.get(sc.name);
    if (!res) continue;
    const key = sc.head.join('|');
    if (!groups.has(key)) groups.set(key, { head: sc.head, rows: [], notes: [] });
    const g = groups.get(key);
    g.rows.push(...res.rows);
    g.notes.push(...(res.notes ?? []));
  }
  for (const g of groups.values()) {
    const rows = [g.head, g.head.map((_h, i) => (i === 0 ? '---' : '---:')), ...g.rows];
    process.stdout.write(`\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`);
    if (g.notes.length) process.stdout.write(`\n${g.notes.map((n) => `- ${n}`).join('\n')}\n`);
  }
}

function fmt0(n) {
  return Math.round(n).toLocaleString('en-US');
}
