/**
 * Scenarios that are not "crawl a corpus and time it" (bench/scenarios.js lists them): each runs
 * once per bench invocation, starts its own fixture server (bench/lib/*-site.js), drives the
 * real CLI, signals it itself and measures from outside (/proc). Each `run(ctx)` resolves with
 * { rows, notes, warnings, failed, raw }; `head` is its table's header. Every loop is bounded
 * in time, every server exits with the bench.
 *
 * ctx: { root, cli (bin/collector.js to run), outDir(kind), removeOut(dir), waitIdle(label), log(msg), opts }
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  descendants,
  machineBusySeconds,
  readPss,
  readStatus,
  treeCpuSeconds,
  treeRssBytes,
} from './measure.js';
import { cliArgv } from './cli-argv.js';
import { hasExited, LineCounter, sleep, startProcess, startServer, stopProcess } from './proc.js';

const MB = 2 ** 20;
const fmt0 = (n) => Math.round(n).toLocaleString('en-US');
const mb = (b) => (b / MB).toFixed(1);

function crawlArgv(ctx, args) {
  return cliArgv(ctx.cli, ...args);
}

/** Lines of <out>/items/*.jsonl. */
function itemLines(out) {
  let n = 0;
  let names = [];
  try {
    names = readdirSync(path.join(out, 'items')).filter((f) => f.endsWith('.jsonl'));
  } catch {
    return 0;
  }
  for (const f of names) {
    const text = readFileSync(path.join(out, 'items', f), 'utf8');
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  }
  return n;
}

/** CPU the machine spent on anything but `ownS` over a window, with a warning past 10% of a core. */
function interference(name, busyS, ownS, wallS) {
  const other = Math.max(0, busyS - ownS);
  return {
    other,
    warning:
      other > 0.1 * wallS
        ? `${name}: ${other.toFixed(1)} CPU s used by other processes during the ${wallS.toFixed(0)} s run (${((100 * other) / wallS).toFixed(0)}% of a core)`
        : null,
  };
}

// ---- synthetic-1m ---------------------------------------------------------------------------

const SYN_PAGES = 1_000_000;
const SYN_LINKS = 40;

/** A V8 `--trace-gc` line of a full GC: heap in use after it (MB) = live objects, roughly. */
const GC_LINE =
  /\s(\d+) ms: (Scavenge|Mark-Compact|Mark-Sweep|Minor Mark-Sweep)[^\d]*([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/;

/**
 * One crawl of the synthetic site, stopped (SIGTERM) once `stopAtSeen` URLs are in the frontier
 * log or after `limitS`. Samples RSS, seen (frontier.log lines), done (item lines) every 200 ms
 * (50 ms in the first 3 s). Node runs with --trace-gc: after each full GC (Mark-Compact) the V8
 * heap still in use is what the crawl really retains (RSS also holds garbage not yet collected).
 */
async function synthCrawl(ctx, server, { stopAtSeen, limitS, label }) {
  const out = ctx.outDir('tmpfs');
  try {
    const argv = crawlArgv(ctx, [
      'crawl',
      server.info.url,
      '--processes',
      '1',
      '--delay',
      '0',
      '--host-concurrency',
      '32',
      '--concurrency',
      '32',
      '--no-robots',
      '--no-store',
      '--quiet',
      '--out',
      out,
    ]);
    const busy0 = machineBusySeconds();
    const serverCpu0 = treeCpuSeconds(server.pid);
    const gcs = [];
    let lastGc = null;
    let cur = { seen: 0, done: 0 };
    // --trace-gc goes to node, which may come after /usr/bin/env and the bin's environment
    const at = argv.indexOf(process.execPath) + 1;
    const h = startProcess([...argv.slice(0, at), '--trace-gc', ...argv.slice(at)], {
      cwd: ctx.root,
      onStdoutLine: (line) => {
        const m = GC_LINE.exec(line);
        if (!m) return;
        const g = { ms: Number(m[1]), kind: m[2], liveMB: Number(m[5]), heapMB: Number(m[6]), ...cur };
        lastGc = g;
        if (g.kind === 'Mark-Compact' || g.kind === 'Mark-Sweep') gcs.push(g);
      },
    });
    const seenC = new LineCounter(path.join(out, 'state/crawl-0/frontier.log'));
    const doneC = new LineCounter(path.join(out, 'items/crawl-0.jsonl'));
    const samples = [];
    let endedByItself = false;
    let crawlCpu = 0;
    for (;;) {
      await sleep(performance.now() - h.startedAt < 3000 ? 50 : 200);
      if (await hasExited(h)) {
        endedByItself = true;
        break;
      }
      const t = (performance.now() - h.startedAt) / 1000;
      const st = readStatus(h.pid);
      const seen = seenC.update();
      const done = doneC.update();
      cur = { seen: seen.lines, done: done.lines };
      if (st) {
        samples.push({
          t,
          rss: st.rss,
          hwm: st.hwm,
          seen: seen.lines,
          done: done.lines,
          stateBytes: seen.bytes,
          itemBytes: done.bytes,
        });
        crawlCpu = treeCpuSeconds(h.pid);
      }
      if (seen.lines >= stopAtSeen || t >= limitS) break;
    }
    const busyS = machineBusySeconds() - busy0;
    const serverS = treeCpuSeconds(server.pid) - serverCpu0;
    const wallS = (performance.now() - h.startedAt) / 1000;
    const stop = await stopProcess(h, { graceMs: 20_000 });
    const seen = seenC.update();
    const done = doneC.update();
    const inter = interference(label, busyS, crawlCpu + serverS, wallS);
    ctx.log(
      `  ${label}: seen ${seen.lines} done ${done.lines} in ${wallS.toFixed(1)} s, SIGTERM→exit ${stop.ms.toFixed(0)} ms` +
        ` (exit ${stop.code}${stop.escalated ? `, ${stop.escalated}` : ''}), crawl cpu ${crawlCpu.toFixed(1)} s, server cpu ${serverS.toFixed(1)} s, other ${inter.other.toFixed(1)} s`,
    );
    if (stop.code !== 0 || stop.escalated) {
      ctx.log(`  ${label} stderr: ${h.out.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    }
    return {
      samples,
      wallS,
      stop,
      endedByItself,
      final: { seen: seen.lines, done: done.lines, stateBytes: seen.bytes, itemBytes: done.bytes },
      crawlCpu,
      serverS,
      inter,
      gcs,
      lastGc,
      stderr: h.out.stderr.slice(-2000),
    };
  } finally {
    ctx.removeOut(out);
  }
}

/** Least squares y = c + a·x1 + b·x2. @returns { c, a, b, corr } or null if singular. */
function fit2(rows) {
  const n = rows.length;
  if (n < 5) return null;
  const mean = (f) => rows.reduce((s, r) => s + f(r), 0) / n;
  const m1 = mean((r) => r.x1);
  const m2 = mean((r) => r.x2);
  const my = mean((r) => r.y);
  let s11 = 0;
  let s22 = 0;
  let s12 = 0;
  let s1y = 0;
  let s2y = 0;
  for (const r of rows) {
    const d1 = r.x1 - m1;
    const d2 = r.x2 - m2;
    const dy = r.y - my;
    s11 += d1 * d1;
    s22 += d2 * d2;
    s12 += d1 * d2;
    s1y += d1 * dy;
    s2y += d2 * dy;
  }
  const det = s11 * s22 - s12 * s12;
  if (!(det > 0)) return null;
  const a = (s1y * s22 - s2y * s12) / det;
  const b = (s2y * s11 - s1y * s12) / det;
  return { c: my - a * m1 - b * m2, a, b, corr: s12 / Math.sqrt(s11 * s22) };
}

export const synthetic1m = {
  name: 'synthetic-1m',
  kind: 'custom',
  head: [
    'scenario',
    'seen',
    'done',
    'queued',
    'wall s',
    'pages/s',
    'RSS MB at ~1k seen → end',
    'ΔRSS/Δseen B (≤ 40)',
    'fit B/queued (≤ 200) · B/done',
    'SIGTERM→exit ms',
    'state+items MB (MB/s)',
  ],
  async run(ctx) {
    const warnings = [];
    const notes = [];
    const server = await startServer(path.join(ctx.root, 'bench/lib/synthetic-site.js'), [
      '--pages',
      String(SYN_PAGES),
      '--links',
      String(SYN_LINKS),
    ]);
    try {
      ctx.log(`synthetic site: ${server.info.url} (${fmt0(SYN_PAGES)} pages × ${SYN_LINKS} links)`);
      const small = await synthCrawl(ctx, server, {
        stopAtSeen: 10_000,
        limitS: 60,
        label: 'synthetic-1m 10k',
      });
      await ctx.waitIdle('synthetic-1m');
      const big = await synthCrawl(ctx, server, {
        stopAtSeen: SYN_PAGES,
        limitS: ctx.opts.syntheticSeconds,
        label: 'synthetic-1m 1M',
      });
      for (const r of [small, big]) {
        if (r.inter.warning) warnings.push(r.inter.warning);
        if (r.endedByItself) warnings.push('a synthetic crawl ended before it was stopped');
        if (r.stop.code !== 0) warnings.push(`synthetic crawl exit code ${r.stop.code}`);
      }
      if (small.samples.length === 0 || big.samples.length === 0) {
        return {
          rows: [],
          notes,
          warnings: [...warnings, 'synthetic-1m: no samples'],
          failed: true,
          raw: {},
        };
      }
      const rows = [];
      const row = (label, r) => {
        const s = r.samples;
        const last = s[s.length - 1];
        const first = s.find((x) => x.seen >= 1000) ?? s[0];
        const dSeen = last.seen - first.seen;
        const perSeen = dSeen > 0 ? (last.rss - first.rss) / dSeen : Number.NaN;
        const pts = s
          .filter((x) => x.seen >= 1000)
          .map((x) => ({ y: x.rss, x1: x.seen - x.done, x2: x.done }));
        const f = fit2(pts);
        const fitCell =
          f && Math.abs(f.corr) < 0.995 && dSeen >= 100_000
            ? `${fmt0(f.a)} · ${fmt0(f.b)}`
            : `— (collinear, r=${f ? f.corr.toFixed(3) : '?'})`;
        const stateMB = (r.final.stateBytes + r.final.itemBytes) / MB;
        return {
          cells: [
            label,
            fmt0(r.final.seen),
            fmt0(r.final.done),
            fmt0(r.final.seen - r.final.done),
            r.wallS.toFixed(1),
            fmt0(r.final.done / r.wallS),
            `${mb(first.rss)} → ${mb(last.rss)}`,
            Number.isFinite(perSeen) && dSeen >= 100_000 ? perSeen.toFixed(1) : `— (Δseen ${fmt0(dSeen)})`,
            fitCell,
            fmt0(r.stop.ms),
            `${stateMB.toFixed(1)} (${(stateMB / r.wallS).toFixed(2)})`,
          ],
          perSeen,
          fit: f,
          first,
          last,
        };
      };
      const a = row('synthetic-1m (stop at 10k seen)', small);
      const b = row(`synthetic-1m (stop at 1M seen or ${ctx.opts.syntheticSeconds} s)`, big);
      rows.push(a.cells, b.cells);
      // RSS against seen along the big run
      const marks = [10_000, 100_000, 250_000, 500_000, 750_000, 900_000, 1_000_000];
      const along = marks
        .map((m) => big.samples.find((x) => x.seen >= m))
        .filter(Boolean)
        .map(
          (x) => `${fmt0(x.seen)} seen/${fmt0(x.seen - x.done)} queued @${x.t.toFixed(0)}s: ${mb(x.rss)} MB`,
        );
      notes.push(`synthetic-1m RSS along the run: ${along.join('; ')}.`);
      const per = big.final.seen > 0 ? big.final.stateBytes / big.final.seen : 0;
      notes.push(
        `synthetic-1m: frontier.log ${mb(big.final.stateBytes)} MB (${per.toFixed(1)} B per seen URL, ${(big.final.stateBytes / MB / big.wallS).toFixed(2)} MB/s), ` +
          `items ${mb(big.final.itemBytes)} MB (${(big.final.itemBytes / MB / big.wallS).toFixed(2)} MB/s); ` +
          `SIGTERM→exit ${fmt0(small.stop.ms)} ms at ${fmt0(small.final.seen)} seen vs ${fmt0(big.stop.ms)} ms at ${fmt0(big.final.seen)} seen ` +
          `(includes draining up to 32 in-flight requests and process exit); peak VmHWM ${mb(big.samples[big.samples.length - 1]?.hwm ?? 0)} MB.`,
      );
      if (big.final.seen < SYN_PAGES) {
        notes.push(
          `synthetic-1m: the site has exactly ${fmt0(SYN_PAGES)} pages, so seen approaches 1M asymptotically; the run stopped at ${fmt0(big.final.seen)} seen after ${big.wallS.toFixed(0)} s.`,
        );
      }
      const full = big.gcs.filter((g) => g.seen >= 1000);
      if (full.length) {
        const lastGc = full[full.length - 1];
        const firstGc = full[0];
        const gf = fit2(full.map((g) => ({ y: g.liveMB * MB, x1: g.seen - g.done, x2: g.done })));
        notes.push(
          `synthetic-1m live V8 heap after full GCs (--trace-gc, ${big.gcs.length} Mark-Compacts): ${firstGc.liveMB} MB at ${fmt0(firstGc.seen)} seen → ` +
            `${lastGc.liveMB} MB at ${fmt0(lastGc.seen)} seen/${fmt0(lastGc.seen - lastGc.done)} queued/${fmt0(lastGc.done)} done` +
            `${gf ? `; fit ${fmt0(gf.a)} B × queued + ${fmt0(gf.b)} B × done (corr ${gf.corr.toFixed(2)})` : ''}. ` +
            'The seen-set (a typed array, off the V8 heap) is in RSS but not in these numbers: this run does not measure it on its own.',
        );
        b.gcFit = gf;
      }
      if (big.lastGc) {
        const endRss = big.samples[big.samples.length - 1].rss;
        notes.push(
          `synthetic-1m at the end: RSS ${mb(endRss)} MB; the last GC (${big.lastGc.kind}) left ${big.lastGc.liveMB} MB of V8 heap in use of ${big.lastGc.heapMB} MB committed ` +
            `— the rest of RSS is off-heap (seen-set, buffers) and memory not returned to the OS.`,
        );
      }
      if (b.fit) {
        notes.push(
          `synthetic-1m fit over ${big.samples.length} samples: RSS ≈ ${mb(b.fit.c)} MB + ${fmt0(b.fit.a)} B × queued + ${fmt0(b.fit.b)} B × done (corr(queued, done) = ${b.fit.corr.toFixed(3)}; the two separate only as the site saturates and fewer links are new).`,
        );
      }
      const strip = (r) => ({ ...r, samples: r.samples.filter((_x, i) => i % 5 === 0) });
      return { rows, notes, warnings, failed: false, raw: { small: strip(small), big: strip(big) } };
    } finally {
      await server.stop();
    }
  },
};

// ---- politeness-200 -------------------------------------------------------------------------

export const politeness200 = {
  name: 'politeness-200',
  kind: 'custom',
  head: [
    'scenario',
    'hosts (with requests)',
    'requests',
    'run s',
    'pages/s (requests ÷ run s)',
    '% of ideal 200/s',
    'first→last request pages/s',
    'min gap same host ms (≥ 1000)',
    'median gap ms',
    'verdict',
  ],
  async run(ctx) {
    const seconds = ctx.opts.politenessSeconds;
    const warnings = [];
    const server = await startServer(path.join(ctx.root, 'bench/lib/multi-host-site.js'), ['--hosts', '200']);
    const out = ctx.outDir('tmpfs');
    try {
      const seeds = server.info.seeds;
      ctx.log(`multi-host site: ${seeds[0]} … ${seeds[seeds.length - 1]}`);
      const argv = crawlArgv(ctx, [
        'crawl',
        ...seeds,
        '--out',
        out,
        '--processes',
        '1',
        '--scope',
        'any',
        '--delay',
        '1000',
        '--jitter',
        '0',
        '--host-concurrency',
        '1',
        '--concurrency',
        '64',
        '--no-robots',
        '--quiet',
      ]);
      const busy0 = machineBusySeconds();
      const serverCpu0 = treeCpuSeconds(server.pid);
      const h = startProcess(argv, { cwd: ctx.root });
      let peakRss = 0;
      let crawlCpu = 0;
      const deadline = h.startedAt + seconds * 1000;
      while (performance.now() < deadline && !(await hasExited(h))) {
        await sleep(200);
        peakRss = Math.max(peakRss, treeRssBytes(h.pid));
        const c = treeCpuSeconds(h.pid);
        if (c > 0) crawlCpu = c;
      }
      const ended = await hasExited(h);
      const runS = (performance.now() - h.startedAt) / 1000;
      const busyS = machineBusySeconds() - busy0;
      const serverS = treeCpuSeconds(server.pid) - serverCpu0;
      const stop = await stopProcess(h, { graceMs: 15_000 });
      await sleep(200);
      const rep = await server.request({ t: 'report' });
      const items = itemLines(out);
      const withReq = rep.hosts.filter((x) => x.requests > 0);
      const gaps = withReq.map((x) => x.minGapMs).filter((g) => g !== null);
      const minGap = gaps.length ? Math.min(...gaps) : null;
      const medians = withReq
        .map((x) => x.medianGapMs)
        .filter((g) => g !== null)
        .sort((a, b) => a - b);
      const medGap = medians.length ? medians[medians.length >> 1] : null;
      const pps = rep.requests / seconds;
      const span = rep.lastMs !== null ? (rep.lastMs - rep.firstMs) / 1000 : 0;
      const ok = minGap !== null && minGap >= 1000;
      if (!ok) {
        const bad = rep.hosts.filter((x) => x.minGapMs !== null && x.minGapMs < 1000);
        const msg = `FAIL politeness-200: minimum gap ${minGap?.toFixed(1)} ms < 1000 ms on ${bad.length} host(s): ${bad
          .slice(0, 5)
          .map((x) => `${x.host} ${x.minGapMs.toFixed(1)} ms`)
          .join(', ')}`;
        warnings.push(msg);
        ctx.log(`\n!!!!! ${msg} !!!!!\n`);
      }
      if (ended) warnings.push(`politeness-200: the crawl ended by itself after ${runS.toFixed(1)} s`);
      if (stop.code !== 0)
        warnings.push(`politeness-200: exit code ${stop.code}: ${h.out.stderr.trim().slice(-300)}`);
      const inter = interference('politeness-200', busyS, crawlCpu + serverS, runS);
      if (inter.warning) warnings.push(inter.warning);
      const perHost = withReq.map((x) => x.requests).sort((a, b) => a - b);
      const notes = [
        `politeness-200: ${fmt0(items)} items written for ${fmt0(rep.requests)} requests; requests per host min/median/max ` +
          `${perHost[0] ?? 0}/${perHost[perHost.length >> 1] ?? 0}/${perHost[perHost.length - 1] ?? 0}; crawl CPU ${crawlCpu.toFixed(1)} s, ` +
          `peak RSS ${mb(peakRss)} MB, servers CPU ${serverS.toFixed(1)} s, SIGTERM→exit ${fmt0(stop.ms)} ms.`,
      ];
      ctx.log(`  politeness-200: ${rep.requests} requests, min gap ${minGap?.toFixed(1)} ms, ${notes[0]}`);
      return {
        rows: [
          [
            'politeness-200',
            `200 (${withReq.length})`,
            fmt0(rep.requests),
            seconds.toFixed(0),
            pps.toFixed(1),
            `${((100 * pps) / 200).toFixed(0)}%`,
            span > 0 ? (rep.requests / span).toFixed(1) : '—',
            minGap === null ? '—' : minGap.toFixed(1),
            medGap === null ? '—' : medGap.toFixed(1),
            ok ? 'ok' : '**FAIL**',
          ],
        ],
        notes,
        warnings,
        failed: !ok,
        raw: { report: rep, items, runS, stop, crawlCpu, serverS, peakRss },
      };
    } finally {
      ctx.removeOut(out);
      await server.stop();
    }
  },
};

// ---- idle-rss and run-20-on-2g --------------------------------------------------------------

const MEMORY_HEAD = ['scenario', 'processes', 'items', 'RSS MB', 'target', 'verdict', 'detail'];

export const idleRss = {
  name: 'idle-rss',
  kind: 'custom',
  head: MEMORY_HEAD,
  async run(ctx) {
    const server = await startServer(path.join(ctx.root, 'bench/lib/blackhole-site.js'));
    const out = ctx.outDir('tmpfs');
    try {
      const argv = crawlArgv(ctx, [
        'crawl',
        server.info.url,
        '--out',
        out,
        '--processes',
        '1',
        '--timeout',
        '60',
        '--no-robots',
        '--quiet',
      ]);
      const h = startProcess(argv, { cwd: ctx.root });
      await Promise.race([h.exited, sleep(3000)]);
      const alive = !(await hasExited(h));
      const st = alive ? readStatus(h.pid) : null;
      const pss = alive ? readPss(h.pid) : null;
      const tree = alive ? treeRssBytes(h.pid) : 0;
      const procs = alive ? 1 + descendants(h.pid).length : 0;
      const conn = await server.request({ t: 'stats' });
      // a second SIGTERM abandons the request still waiting for an answer
      const stop = await stopProcess(h, { graceMs: 1000 });
      const warnings = [];
      if (!alive) warnings.push(`idle-rss: the crawl exited within 3 s: ${h.out.stderr.trim().slice(-300)}`);
      if (conn.connections < 1) warnings.push('idle-rss: the crawl never connected to the silent server');
      const rss = st ? st.rss : 0;
      ctx.log(
        `  idle-rss: VmRSS ${mb(rss)} MB (tree ${mb(tree)} MB, ${procs} proc), VmHWM ${mb(st?.hwm ?? 0)} MB, connections ${conn.connections}, exit ${stop.code} after ${fmt0(stop.ms)} ms`,
      );
      return {
        rows: [
          [
            'idle-rss',
            String(procs),
            '0',
            mb(rss),
            '≤ 60',
            rss > 0 && rss <= 60 * MB ? 'ok' : 'over',
            `VmRSS 3 s after start, 1 request in flight to a silent server (${conn.connections} connection); ` +
              `of it anonymous ${mb(st?.anon ?? 0)} MB, file-backed (node binary, libraries; shared) ${mb((st?.rss ?? 0) - (st?.anon ?? 0))} MB; ` +
              `PSS ${pss === null ? '?' : mb(pss)} MB; ${st?.threads ?? '?'} threads; VmHWM ${mb(st?.hwm ?? 0)} MB`,
          ],
        ],
        notes: [],
        warnings,
        failed: !alive,
        raw: {
          rss,
          hwm: st?.hwm,
          anon: st?.anon,
          pss,
          threads: st?.threads,
          tree,
          procs,
          connections: conn.connections,
          stop,
        },
      };
    } finally {
      ctx.removeOut(out);
      await server.stop();
    }
  },
};

/**
 * One `collector run` of 20 crawl workers with --memory-limit 2G for `run20Seconds`, then SIGTERM.
 * `limitFraction` (memory.limitFraction in the config) is left at its default when undefined.
 */
async function runPlan(ctx, server, { label, limitFraction }) {
  const seconds = ctx.opts.run20Seconds;
  const limit = 2 * 2 ** 30;
  const dir = ctx.outDir('tmpfs');
  try {
    const data = path.join(dir, 'data');
    const config = path.join(dir, 'collector.yaml');
    writeFileSync(
      config,
      [
        `data: ${data}`,
        ...(limitFraction === undefined ? [] : ['memory:', `  limitFraction: ${limitFraction}`]),
        'workers:',
        '  - source: crawl',
        '    processes: 20',
        '    concurrency: 4',
        '    partition: url',
        '    delay: 0',
        '    hostConcurrency: 80',
        `    seeds: [${server.info.url}]`,
        '',
      ].join('\n'),
    );
    const argv = crawlArgv(ctx, ['run', '--config', config, '--memory-limit', '2G', '--quiet']);
    const busy0 = machineBusySeconds();
    const h = startProcess(argv, { cwd: ctx.root });
    let peak = 0;
    let peakAt = 0;
    let peakProcs = 0;
    let maxProcs = 0;
    let peakPss = 0;
    let peakAnon = 0;
    const deadline = h.startedAt + seconds * 1000;
    while (performance.now() < deadline && !(await hasExited(h))) {
      await sleep(200);
      const pids = [h.pid, ...descendants(h.pid)];
      let sum = 0;
      let n = 0;
      let pss = 0;
      let anon = 0;
      for (const p of pids) {
        const st = readStatus(p);
        if (st) {
          sum += st.rss;
          anon += st.anon;
          pss += readPss(p) ?? st.rss;
          n++;
        }
      }
      maxProcs = Math.max(maxProcs, n);
      peakPss = Math.max(peakPss, pss);
      peakAnon = Math.max(peakAnon, anon);
      if (sum > peak) {
        peak = sum;
        peakAt = (performance.now() - h.startedAt) / 1000;
        peakProcs = n;
      }
    }
    const runS = (performance.now() - h.startedAt) / 1000;
    const busyS = machineBusySeconds() - busy0;
    const refusedEarly = await hasExited(h);
    const stop = await stopProcess(h, { graceMs: 20_000 });
    const items = itemLines(data);
    const guard = [];
    try {
      for (const f of readdirSync(path.join(data, 'logs'))) {
        if (!f.startsWith('supervisor')) continue;
        for (const line of readFileSync(path.join(data, 'logs', f), 'utf8').split('\n')) {
          // warnings and errors of the supervisor: memory guard actions, crashes, restarts
          if (/"level":(4|5|6)0/.test(line)) {
            const e = JSON.parse(line);
            guard.push(typeof e.err === 'string' ? `${e.msg} (${e.err})` : e.msg);
          }
        }
      }
    } catch {
      // no logs (refused before starting)
    }
    const warnings = [];
    const stderr = h.out.stderr.trim();
    const refused = refusedEarly && stop.code === 2;
    const pct = (100 * peak) / limit;
    ctx.log(
      `  ${label}: peak ${mb(peak)} MB (${pct.toFixed(1)}% of 2 GiB) at ${peakAt.toFixed(1)} s with ${peakProcs} processes, ` +
        `max ${maxProcs} processes, ${items} items, exit ${stop.code} after SIGTERM ${fmt0(stop.ms)} ms${stop.escalated ? ` (${stop.escalated})` : ''}, ` +
        `machine busy ${busyS.toFixed(1)} CPU s over ${runS.toFixed(1)} s`,
    );
    if (stderr) ctx.log(`  ${label} stderr: ${stderr.split('\n').slice(0, 8).join(' | ')}`);
    if (refusedEarly && !refused)
      warnings.push(`${label} exited early with code ${stop.code}: ${stderr.slice(-300)}`);
    if (!refusedEarly && stop.code !== 0) warnings.push(`${label}: exit code ${stop.code} after SIGTERM`);
    if (stop.escalated && !refusedEarly) warnings.push(`${label}: stop needed ${stop.escalated}`);
    const counts = {};
    for (const g of guard) counts[g] = (counts[g] ?? 0) + 1;
    const guardText = Object.entries(counts)
      .map(([k, v]) => `${v}× ${k}`)
      .join(', ');
    const detail = refused
      ? `refused (exit 2): ${stderr.split('\n')[0]}`
      : `peak of summed VmRSS (supervisor + workers, 200 ms samples) at ${peakAt.toFixed(1)} s of ${runS.toFixed(0)} s; ` +
        `peak summed PSS ${mb(peakPss)} MB (${((100 * peakPss) / limit).toFixed(1)}%), anonymous ${mb(peakAnon)} MB — VmRSS counts the shared node binary once per process; supervisor warnings: ${guardText || 'none'}; SIGTERM→exit ${(stop.ms / 1000).toFixed(1)} s`;
    return {
      refused,
      rows: [
        [
          label,
          refused ? '0 (refused)' : `${peakProcs} at peak (max ${maxProcs})`,
          fmt0(items),
          refused ? '—' : `${mb(peak)} (${pct.toFixed(1)}% of 2 GiB)`,
          '< 80%',
          refused ? 'refused' : pct < 80 ? 'ok' : 'over',
          detail,
        ],
      ],
      notes: [],
      warnings,
      failed: refusedEarly && !refused,
      raw: {
        peak,
        peakPss,
        peakAnon,
        peakAt,
        peakProcs,
        maxProcs,
        items,
        guard,
        stop,
        stderr,
        runS,
        busyS,
      },
    };
  } finally {
    ctx.removeOut(dir);
  }
}

export const run20On2g = {
  name: 'run-20-on-2g',
  kind: 'custom',
  head: MEMORY_HEAD,
  async run(ctx) {
    const server = await startServer(path.join(ctx.root, 'bench/lib/synthetic-site.js'));
    try {
      const first = await runPlan(ctx, server, { label: 'run-20-on-2g' });
      if (!first.refused) return first;
      // Refused by the plan check: also measure what the 20 processes really use, with the plan
      // check's (and memory guard's) budget raised to the whole 2 GiB.
      await ctx.waitIdle('run-20-on-2g limitFraction 1');
      const second = await runPlan(ctx, server, {
        label: 'run-20-on-2g with memory.limitFraction 1 (to measure)',
        limitFraction: 1,
      });
      return {
        rows: [...first.rows, ...second.rows],
        notes: [],
        warnings: [...first.warnings, ...second.warnings],
        failed: first.failed || second.failed,
        raw: { refused: first.raw, measured: second.raw },
      };
    } finally {
      await server.stop();
    }
  },
};
