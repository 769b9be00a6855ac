#!/usr/bin/env node
/**
 * What a round of `collector run` costs when nothing changed (issue 27): feeds and sitemaps on a
 * fixture site (bench/lib/rounds-site.js: honest hubs with ETags, a feed that re-dates every
 * entry at every fetch, a sitemap whose `<lastmod>` is always now) collected for `--rounds`
 * rounds `--interval` apart (`revisit` 1h: no page is due again meanwhile). Nothing changes after round 1. The
 * bytes each round put on the wire are measured by the fixture (socket bytes, headers included),
 * rounds cut by the quiet gaps between them; the target is every later round < 5% of round 1.
 *
 *   npm run build && node bench/quiet-rounds.js [--rounds 8] [--interval 3] [--articles 40] [--page-bytes 6000]
 *
 * A round here is seconds, not the 30 minutes of real use: the collector's decisions (304, what a
 * hub leads to, which dates it believes) do not depend on the length of the interval.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { roundsByHub, startRoundsSite } from './lib/rounds-site.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '8' },
    interval: { type: 'string', default: '3' },
    articles: { type: 'string', default: '40' },
    'page-bytes': { type: 'string', default: '6000' },
    keep: { type: 'boolean', default: false },
  },
});
const rounds = Number(opts.rounds);
const intervalS = Number(opts.interval);

const site = await startRoundsSite({
  articles: Number(opts.articles),
  pageBytes: Number(opts['page-bytes']),
});
const dir = mkdtempSync(path.join(os.tmpdir(), 'collector-quiet-rounds-'));
const data = path.join(dir, 'data');
const config = path.join(dir, 'collector.yaml');
const worker = (name, source, seeds) => [
  `  - name: ${name}`,
  `    source: ${source}`,
  '    processes: 1',
  '    delay: 0',
  '    robots: false',
  `    interval: ${intervalS}s`,
  '    revisit: 1h',
  `    seeds: [${seeds.map((s) => `"${site.origin}${s}"`).join(', ')}]`,
];
writeFileSync(
  config,
  [
    `data: ${data}`,
    'workers:',
    ...worker('feeds', 'feed', ['/feed.xml', '/redating.xml']),
    ...worker('sitemaps', 'sitemap', ['/sitemap-index.xml', '/now-sitemap.xml']),
    '',
  ].join('\n'),
);

const child = spawn(
  process.execPath,
  [path.join(root, 'bin/collector.js'), 'run', '--config', config, '--quiet'],
  {
    stdio: ['ignore', 'ignore', 'inherit'],
  },
);
const exited = new Promise((resolve) => child.on('exit', resolve));
/** Each worker type's requests, its rounds started by the fetches of its first seed. */
const GROUPS = [
  { marker: '/feed.xml', paths: ['/feed.xml', '/redating.xml', '/a/', '/r/'] },
  { marker: '/sitemap-index.xml', paths: ['/sitemap-', '/now-sitemap.xml', '/s/', '/n/'] },
];
const deadline = Date.now() + (rounds + 4) * intervalS * 1000 + 30_000;
try {
  // wait for the start of round `rounds + 1` of each worker type: round `rounds` is then done
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    if (GROUPS.every((g) => site.requestsFor(g.marker).length > rounds)) break;
  }
} finally {
  child.kill('SIGTERM');
  await exited;
  await site.close();
}

const measured = roundsByHub(site.log, GROUPS, (intervalS * 1000) / 3).slice(0, rounds);
const first = measured[0]?.bytes ?? 0;
process.stdout.write(
  `| round | requests | 200 | 304 | bytes | % of round 1 |\n|---|---|---|---|---|---|\n` +
    measured
      .map((r, i) => {
        const by = (s) => r.requests.filter((e) => e.status === s).length;
        const pct = first > 0 ? ((100 * r.bytes) / first).toFixed(1) : '-';
        return `| ${i + 1} | ${r.requests.length} | ${by(200)} | ${by(304)} | ${r.bytes} | ${pct}% |`;
      })
      .join('\n') +
    '\n',
);
const later = measured.slice(1);
const worst = later.length > 0 ? Math.max(...later.map((r) => r.bytes)) : 0;
const settled = measured.slice(2);
const worstSettled = settled.length > 0 ? Math.max(...settled.map((r) => r.bytes)) : 0;
process.stdout.write(
  `worst later round: ${((100 * worst) / first).toFixed(1)}% of round 1; ` +
    `from round 3 on (the liars' dates no longer believed): ${((100 * worstSettled) / first).toFixed(1)}% (target < 5%)\n`,
);
if (!opts.keep) rmSync(dir, { recursive: true, force: true });
else process.stdout.write(`data kept in ${data}\n`);
