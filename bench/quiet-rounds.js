#!/usr/bin/env node
/**
 * What a round of `collector run` costs when nothing changed (issue 27): three worker types in one
 * run — `feed` and `sitemap` on a fixture site (bench/lib/rounds-site.js: honest hubs with ETags,
 * a feed that re-dates every entry at every fetch, a sitemap whose `<lastmod>` is always now) and
 * `github-search` on a local GitHub stand-in (bench/lib/github-site.js: two topics, two result
 * pages each, a README per repository through the API, ETags and 304s) — collected for `--rounds`
 * rounds `--interval` apart. Nothing changes after round 1. The bytes each round put on the wire
 * are measured by the fixtures (socket bytes, headers included), per worker type, rounds cut by
 * each type's own round starts in the fixtures' logs; the target is every later round < 5% of
 * round 1.
 *
 *   npm run build && node bench/quiet-rounds.js [--rounds 8] [--interval 10] [--revisit 1h]
 *   npm run build && node bench/quiet-rounds.js --minutes 30      # real-use intervals, see below
 *   options: [--articles 40] [--page-bytes 6000] [--repos 60] [--readme-bytes 4000]
 *            [--no-search-etags] [--json FILE] [--keep]
 *
 * Short rounds (the default, ~2 min): `revisit` 1h, so no page is due again meanwhile. The
 * collector's decisions (304, what a hub leads to, which dates it believes) do not depend on the
 * length of the interval. `--minutes M` runs M minutes with the proportions of real use: 12
 * rounds (`interval` M/12: 2.5 min for 30), `revisit` 16/60 of M (8 min for 30), so each page and
 * README is due again twice within the run — in round 5 (after 8 min), then in round 10 (its
 * interval grown ×1.5 to 12 min as it did not change) — and the run shows that revisits are
 * asked conditionally, not skipped. `--interval S`/`--revisit D` override either.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startGithubSite } from './lib/github-site.js';
import { roundsByHub, startRoundsSite } from './lib/rounds-site.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string' },
    interval: { type: 'string' },
    revisit: { type: 'string' },
    minutes: { type: 'string' },
    articles: { type: 'string', default: '40' },
    'page-bytes': { type: 'string', default: '6000' },
    repos: { type: 'string', default: '60' },
    'readme-bytes': { type: 'string', default: '4000' },
    'no-search-etags': { type: 'boolean', default: false },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

/** `90`, `90s`, `8m`, `1h` → seconds (`--minutes`: a plain number is minutes). */
function seconds(text, name) {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(text);
  if (!m || Number(m[1]) <= 0) {
    process.stderr.write(`quiet-rounds: --${name} ${text}: expected a positive number, with s, m or h\n`);
    process.exit(2);
  }
  return Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] ?? (name === 'minutes' ? 'm' : 's')];
}

const minutes = opts.minutes === undefined ? null : seconds(opts.minutes, 'minutes') / 60;
const intervalS =
  opts.interval !== undefined
    ? seconds(opts.interval, 'interval')
    : minutes !== null
      ? (minutes * 60) / 12
      : 10;
const revisitS =
  opts.revisit !== undefined ? seconds(opts.revisit, 'revisit') : minutes !== null ? minutes * 16 : 3600;
const rounds =
  opts.rounds !== undefined
    ? Number(opts.rounds)
    : minutes !== null
      ? Math.max(2, Math.floor((minutes * 60) / intervalS))
      : 8;
const TOKEN = 'ghp_quietRoundsBenchToken0000000000000'; // accepted by the loopback stand-in only
const TOPICS = ['llm', 'crawler'];
const PER_PAGE = 30;

const site = await startRoundsSite({
  articles: Number(opts.articles),
  pageBytes: Number(opts['page-bytes']),
});
const repos = Number(opts.repos);
const gh = await startGithubSite({
  search: Object.fromEntries(TOPICS.map((t) => [`topic:${t}`, repos])),
  readmeBytes: Number(opts['readme-bytes']),
  tokens: [TOKEN],
  searchEtags: !opts['no-search-etags'],
});
const dir = mkdtempSync(path.join(os.tmpdir(), 'collector-quiet-rounds-'));
const data = path.join(dir, 'data');
const config = path.join(dir, 'collector.yaml');
const worker = (name, source, lines) => [
  `  - name: ${name}`,
  `    source: ${source}`,
  '    processes: 1',
  '    delay: 0',
  `    interval: ${intervalS}s`,
  `    revisit: ${revisitS}s`,
  ...lines.map((l) => `    ${l}`),
];
const seeds = (paths) => `seeds: [${paths.map((s) => `"${site.origin}${s}"`).join(', ')}]`;
writeFileSync(
  config,
  [
    `data: ${data}`,
    'workers:',
    ...worker('feeds', 'feed', ['robots: false', seeds(['/feed.xml', '/redating.xml'])]),
    ...worker('sitemaps', 'sitemap', ['robots: false', seeds(['/sitemap-index.xml', '/now-sitemap.xml'])]),
    ...worker('github', 'github-search', [
      `topics: [${TOPICS.join(', ')}]`,
      `perPage: ${PER_PAGE}`,
      `searchPages: ${Math.ceil(repos / PER_PAGE)}`,
      `github: { web: "${gh.bases.web}", api: "${gh.bases.api}", raw: "${gh.bases.raw}" }`,
    ]),
    '',
  ].join('\n'),
);

const loadAtStart = os.loadavg();
const startedAt = Date.now();
const child = spawn(
  process.execPath,
  [path.join(root, 'bin/collector.js'), 'run', '--config', config, '--quiet'],
  { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, GITHUB_TOKEN: TOKEN } },
);
const exited = new Promise((resolve) => child.on('exit', resolve));
const isFirstSearchPage = (e) => e.path.startsWith('/search/repositories?') && !/[?&]page=/.test(e.path);
/** Each worker type's requests, its rounds started by the fetches of its first seed (GitHub: a topic's page 1). */
const GROUPS = [
  { name: 'feeds', log: site.log, marker: '/feed.xml', paths: ['/feed.xml', '/redating.xml', '/a/', '/r/'] },
  {
    name: 'sitemaps',
    log: site.log,
    marker: '/sitemap-index.xml',
    paths: ['/sitemap-', '/now-sitemap.xml', '/s/', '/n/'],
  },
  { name: 'github', log: gh.log, marker: isFirstSearchPage, paths: () => true },
];
const slackMs = Math.min((intervalS * 1000) / 3, 60_000);
const roundsOf = (g) => roundsByHub(g.log, [g], slackMs);
const deadline = startedAt + (rounds + 4) * intervalS * 1000 + 60_000;
let lastSaid = 0;
try {
  // wait for the start of round `rounds + 1` of each worker type: round `rounds` is then done
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1000));
    const done = GROUPS.map((g) => roundsOf(g).length - 1);
    if (done.every((n) => n >= rounds)) break;
    if (Date.now() - lastSaid >= 60_000) {
      lastSaid = Date.now();
      const min = ((Date.now() - startedAt) / 60_000).toFixed(1);
      process.stderr.write(
        `quiet-rounds: ${min} min, rounds done per worker type ${done.join('/')} of ${rounds}\n`,
      );
    }
  }
} finally {
  child.kill('SIGTERM');
  await exited;
  await site.close();
  await gh.close();
}
const wallS = (Date.now() - startedAt) / 1000;
const loadAtEnd = os.loadavg();
const load = (l) => l.map((x) => x.toFixed(2)).join(' ');

const perGroup = GROUPS.map((g) => roundsOf(g).slice(0, rounds));
const measured = Array.from({ length: rounds }, (_, i) => {
  const parts = perGroup.map((r) => r[i] ?? { requests: [], bytes: 0, requestBytes: 0 });
  const requests = parts.flatMap((p) => p.requests);
  return {
    parts,
    requests,
    bytes: parts.reduce((a, p) => a + p.bytes, 0),
    requestBytes: parts.reduce((a, p) => a + p.requestBytes, 0),
    start: Math.min(...requests.map((e) => e.at)),
  };
});
const first = measured[0];
const pct = (n, of) => (of > 0 ? `${((100 * n) / of).toFixed(1)}%` : '-');
const clock = (ms) => {
  const s = Math.max(0, Math.round((ms - startedAt) / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};
const count = (reqs, status) => reqs.filter((e) => e.status === status).length;
process.stdout.write(
  `${[
    `| round | starts | requests | 200 | 304 | ${GROUPS.map((g) => `${g.name} bytes`).join(' | ')} | bytes | % of round 1 | request bytes | both ways, % of round 1 |`,
    `|---:|---:|---:|---:|---:|${GROUPS.map(() => '---:|').join('')}---:|---:|---:|---:|`,
    ...measured.map((r, i) =>
      [
        '',
        i + 1,
        clock(r.start),
        r.requests.length,
        count(r.requests, 200),
        count(r.requests, 304),
        ...r.parts.map((p) => p.bytes),
        r.bytes,
        pct(r.bytes, first.bytes),
        r.requestBytes,
        pct(r.bytes + r.requestBytes, first.bytes + first.requestBytes),
        '',
      ]
        .join(' | ')
        .trim(),
    ),
  ].join('\n')}\n`,
);

// Revisits: every page (not a hub) fetched in round 1, asked again later — conditionally?
const HUBS = new Set([
  '/feed.xml',
  '/redating.xml',
  '/sitemap-index.xml',
  '/sitemap-1.xml',
  '/now-sitemap.xml',
]);
const pageOf = (e) =>
  (e.service === undefined && !HUBS.has(e.path)) || (e.service !== undefined && /\/readme$/.test(e.path));
const later = measured.slice(1).flatMap((r) => r.requests.filter(pageOf));
const firstPages = new Set(first.requests.filter(pageOf).map((e) => `${e.service ?? 'site'} ${e.path}`));
const askedAgain = new Map();
for (const e of later) {
  const k = `${e.service ?? 'site'} ${e.path}`;
  askedAgain.set(k, (askedAgain.get(k) ?? 0) + 1);
}
const unconditional = later.filter((e) => e.ifNoneMatch === null && e.ifModifiedSince == null);
const not304 = later.filter((e) => e.status !== 304);
const never = [...firstPages].filter((k) => !askedAgain.has(k));
const times = [...askedAgain.values()];
const worstLater = Math.max(...measured.slice(1).map((r) => r.bytes));
const worstBoth = Math.max(...measured.slice(1).map((r) => r.bytes + r.requestBytes));
const summary = [
  `${new Date(startedAt).toISOString()}: ${rounds} rounds ${intervalS}s apart, revisit ${revisitS}s, ` +
    `${wallS.toFixed(0)} s in all on ${os.cpus().length} CPUs, load average ${load(loadAtStart)} at the start, ${load(loadAtEnd)} at the end`,
  `round 1: ${first.bytes} bytes of answers (${GROUPS.map((g, i) => `${g.name} ${first.parts[i].bytes}`).join(', ')})`,
  `pages and READMEs of round 1 asked again later: ${askedAgain.size} of ${firstPages.size}` +
    (times.length > 0 ? ` (${Math.min(...times)}–${Math.max(...times)} times each)` : '') +
    `; without a validator: ${unconditional.length}; answered other than 304: ${not304.length}` +
    (never.length > 0
      ? `; never asked again: ${never.length} (${never.slice(0, 3).join(', ')}${never.length > 3 ? ', ...' : ''})` +
        (revisitS > rounds * intervalS ? ': revisit is longer than the run' : '')
      : ''),
  `worst later round: ${pct(worstLater, first.bytes)} of round 1 (both ways: ${pct(worstBoth, first.bytes + first.requestBytes)}); target < 5%`,
];
process.stdout.write(`${summary.join('\n')}\n`);
if (opts.json !== undefined) {
  writeFileSync(
    opts.json,
    JSON.stringify(
      {
        startedAt: new Date(startedAt).toISOString(),
        intervalS,
        revisitS,
        loadAverage: { start: loadAtStart, end: loadAtEnd },
        rounds: measured.map((r) => ({
          start: r.start,
          bytes: r.bytes,
          requestBytes: r.requestBytes,
          byType: Object.fromEntries(GROUPS.map((g, i) => [g.name, r.parts[i].bytes])),
          requests: r.requests,
        })),
      },
      null,
      1,
    ),
  );
}
if (!opts.keep) rmSync(dir, { recursive: true, force: true });
else process.stdout.write(`data kept in ${data}\n`);
