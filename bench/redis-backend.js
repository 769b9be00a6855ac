#!/usr/bin/env node
/**
 * The Redis backend against the embedded one on the PostgreSQL docs (nginx on loopback): one
 * process embedded, one process through Redis, and two "machines" (two processes, two --out dirs,
 * one crawl id) through Redis. Per row: pages/s (whole run, start-up included, medians over
 * --runs, runs alternating), exactly-once of the union, Redis memory per URL seen (used_memory
 * after the crawl minus before, ÷ URLs seen) and Redis commands per page (total_commands_processed).
 * Then politeness across machines: two machines through Redis crawl the 200-host loopback site of
 * `politeness-200` (bench/lib/multi-host-site.js) with --delay 1000 --host-concurrency 1 for
 * --politeness-seconds; the smallest gap between two requests to one host must be ≥ 1000 ms.
 * Starts its own redis-server (no persistence) on a free loopback port; stops it by PID.
 *
 *   npm run build && node bench/redis-backend.js [--runs 3] [--politeness-seconds 20]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pgCorpus } from './lib/corpus.js';
import { sleep, startProcess, startServer, stopProcess } from './lib/proc.js';
import { redisCli, startBenchRedis } from './lib/redis-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'bin', 'collector.js');
const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'politeness-seconds': { type: 'string', default: '20' },
  },
});
const runs = Number(opts.runs);
const ARGS = [
  '--delay',
  '0',
  '--host-concurrency',
  '16',
  '--concurrency',
  '32',
  '--quiet',
  '--processes',
  '1',
];

function evalCalls(port) {
  const m = /^cmdstat_evalsha:calls=(\d+)/m.exec(redisCli(port, 'info', 'commandstats'));
  const e = /^cmdstat_eval:calls=(\d+)/m.exec(redisCli(port, 'info', 'commandstats'));
  return (m ? Number(m[1]) : 0) + (e ? Number(e[1]) : 0);
}

function info(port, field) {
  const m = new RegExp(`^${field}:(\\d+)`, 'm').exec(redisCli(port, 'info'));
  return m ? Number(m[1]) : Number.NaN;
}

function run(argv) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr.on('data', (d) => {
      err += d;
    });
    c.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}: ${err}`))));
  });
}

function items(out) {
  const dir = path.join(out, 'items');
  return readdirSync(dir).flatMap((f) =>
    readFileSync(path.join(dir, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).url),
  );
}

async function crawl(kind, url, port, n) {
  const outs = Array.from({ length: kind === 'embedded' ? 1 : n }, () =>
    mkdtempSync(path.join('/dev/shm', 'collector-bench-redis-')),
  );
  if (port !== null) redisCli(port, 'flushall');
  const mem0 = port === null ? 0 : info(port, 'used_memory');
  const cmd0 = port === null ? 0 : info(port, 'total_commands_processed');
  const eval0 = port === null ? 0 : evalCalls(port);
  const t0 = performance.now();
  const backend = port === null ? [] : ['--backend', `redis://127.0.0.1:${port}/0`, '--crawl-id', 'bench'];
  await Promise.all(outs.map((out) => run([cli, 'crawl', url, '--out', out, ...ARGS, ...backend])));
  const seconds = (performance.now() - t0) / 1000;
  const all = outs.flatMap(items);
  const row = {
    pages: all.length,
    distinct: new Set(all).size,
    seconds,
    share: outs.map((o) => items(o).length),
  };
  if (port !== null) {
    const seen = Number(redisCli(port, 'scard', 'collector:{bench}:seen').trim());
    row.bytesPerUrl = (info(port, 'used_memory') - mem0) / seen;
    row.seenBytesPerUrl =
      Number(redisCli(port, 'memory', 'usage', 'collector:{bench}:seen', 'samples', '0').trim()) / seen;
    row.opsPerPage = (info(port, 'total_commands_processed') - cmd0) / all.length;
    row.scriptsPerPage = (evalCalls(port) - eval0) / all.length;
  }
  for (const o of outs) rmSync(o, { recursive: true, force: true });
  return row;
}

/** Two machines through Redis on 200 hosts, 1 s delay each: every host's smallest gap. */
async function politeness(port, seconds) {
  redisCli(port, 'flushall');
  const server = await startServer(path.join(root, 'bench/lib/multi-host-site.js'), ['--hosts', '200']);
  const outs = [0, 1].map(() => mkdtempSync(path.join('/dev/shm', 'collector-bench-redis-')));
  try {
    const args = ['--scope', 'any', '--delay', '1000', '--jitter', '0', '--host-concurrency', '1'];
    args.push('--concurrency', '64', '--no-robots', '--quiet', '--backend', `redis://127.0.0.1:${port}/0`);
    const hs = outs.map((out) =>
      startProcess([
        process.execPath,
        cli,
        'crawl',
        ...server.info.seeds,
        '--out',
        out,
        ...args,
        '--crawl-id',
        'p200',
      ]),
    );
    await sleep(seconds * 1000);
    await Promise.all(hs.map((h) => stopProcess(h, { graceMs: 15_000 })));
    const rep = await server.request({ t: 'report' });
    const gaps = rep.hosts.filter((x) => x.minGapMs !== null).map((x) => x.minGapMs);
    const share = outs.map((o) => items(o).length);
    console.log('');
    console.log(
      '| politeness, 2 machines through Redis | requests | pages/s | % of ideal 200/s | min gap same host ms (≥ 1000) | items per machine |',
    );
    console.log('|---|---|---|---|---|---|');
    const pps = rep.requests / seconds;
    console.log(
      `| 200 hosts, --delay 1000, ${seconds} s | ${rep.requests} | ${pps.toFixed(1)} | ${((pps / 200) * 100).toFixed(0)}% | ` +
        `${Math.min(...gaps).toFixed(1)} ${Math.min(...gaps) >= 1000 ? 'ok' : '**FAIL**'} | ${share.join(' + ')} |`,
    );
  } finally {
    for (const o of outs) rmSync(o, { recursive: true, force: true });
    await server.stop();
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const corpus = pgCorpus(root).start();
const redis = await startBenchRedis();
const { port } = redis;
try {
  const rows = { embedded: [], 'redis, 1 process': [], 'redis, 2 machines': [] };
  for (let r = 0; r < runs; r++) {
    rows.embedded.push(await crawl('embedded', corpus.url, null, 1));
    rows['redis, 1 process'].push(await crawl('redis', corpus.url, port, 1));
    rows['redis, 2 machines'].push(await crawl('redis', corpus.url, port, 2));
    process.stderr.write(`run ${r + 1}/${runs} done\n`);
  }
  const base = median(rows.embedded.map((x) => x.pages / x.seconds));
  console.log(
    '| backend | pages/s (median, min–max) | vs embedded | exactly once | items per machine | Redis B/URL (all keys) | seen-set B/URL | Redis cmds/page (in scripts too) | script calls/page |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const [name, xs] of Object.entries(rows)) {
    const ps = xs.map((x) => x.pages / x.seconds);
    const once = xs.every((x) => x.pages === x.distinct && x.pages === corpus.pages + 1);
    const last = xs[xs.length - 1];
    console.log(
      `| ${name} | ${median(ps).toFixed(0)} (${Math.min(...ps).toFixed(0)}–${Math.max(...ps).toFixed(0)}) | ` +
        `${((median(ps) / base) * 100).toFixed(0)}% | ${once ? 'yes' : 'NO'} | ${last.share.join(' + ')} | ` +
        `${last.bytesPerUrl === undefined ? '—' : median(xs.map((x) => x.bytesPerUrl)).toFixed(0)} | ` +
        `${last.seenBytesPerUrl === undefined ? '—' : median(xs.map((x) => x.seenBytesPerUrl)).toFixed(0)} | ` +
        `${last.opsPerPage === undefined ? '—' : median(xs.map((x) => x.opsPerPage)).toFixed(1)} | ` +
        `${last.scriptsPerPage === undefined ? '—' : median(xs.map((x) => x.scriptsPerPage)).toFixed(2)} |`,
    );
  }
  await politeness(port, Number(opts['politeness-seconds']));
} finally {
  redis.stop();
}
