/**
 * The Source contract's guarantees on the command line: a user module loaded by path (in the page
 * thread when it says it is thread-safe), its options parsed and refused clearly, a throw on one
 * page an `error.kind: "source"` item while the crawl goes on, its log lines in the worker log and
 * counted in status.json, request metadata (label, userData, store: false) honoured, and the
 * credentials `authorize()` adds never sent across origins.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, runCli, tempDir } from '../fixtures/cli.js';
import { type JsonApi, startJsonApi, startMirror } from '../fixtures/json-api.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

const fixture = (name: string) => path.resolve(import.meta.dirname, '../fixtures/sources', name);
const PROBE = fixture('probe.mjs');
let site: FixtureServer;

beforeAll(async () => {
  site = await startServer({
    '/s/': html(page('Home', ['a.html', 'bad.html', 'nostore.html'])),
    '/s/a.html': html(page('A')),
    '/s/bad.html': html(page('Bad')),
    '/s/nostore.html': html(page('Not stored')),
  });
});
afterAll(() => site.close());

function config(dir: string, lines: string[]): string {
  const file = path.join(dir, 'collector.yaml');
  fs.writeFileSync(file, [`data: ${path.join(dir, 'data')}`, 'workers:', ...lines, ''].join('\n'));
  return file;
}

describe('a user source module', () => {
  it('thread-safe: runs in the page thread with its options and context; a throw is a source error; log lines counted', async () => {
    const dir = tempDir();
    const file = config(dir, [
      `  - source: ${PROBE}`,
      '    processes: 1',
      '    pageThread: true',
      '    delay: 0',
      '    robots: false',
      `    seeds: ["${site.origin}/s/"]`,
      '    tag: from-config',
    ]);
    const r = await runCli(['run', '--config', file, '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const data = path.join(dir, 'data');
    const items = readItems(data);
    const by = new Map(items.map((i) => [new URL(i.url).pathname, i]));
    expect([...by.keys()].sort()).toEqual(['/s/', '/s/a.html', '/s/bad.html', '/s/nostore.html']);
    for (const p of ['/s/', '/s/a.html', '/s/nostore.html']) {
      const it = by.get(p)!;
      expect(it.source).toBe('probe');
      expect(it.data).toMatchObject({
        mainThread: false,
        tag: 'from-config',
        worker: { id: 'probe-0', index: 0, count: 1 },
        seeds: 1,
      });
    }
    expect(by.get('/s/')!.title).toBe('Home');
    const bad = by.get('/s/bad.html')!;
    expect(bad.error).toEqual({
      kind: 'source',
      message: `source probe: cannot read ${site.origin}/s/bad.html`,
    });
    // Warnings from the page thread: in the worker's log, with the source's name, and counted.
    const log = fs.readFileSync(path.join(data, 'logs', 'probe-0.log'), 'utf8');
    const warned = log.split('\n').filter((l) => l.includes('"probe saw a page"'));
    expect(warned).toHaveLength(3);
    expect(JSON.parse(warned[0])).toMatchObject({ level: 40, source: 'probe' });
    const status = JSON.parse(fs.readFileSync(path.join(data, 'status.json'), 'utf8'));
    expect(status.workers[0].counters).toMatchObject({ sourceWarnings: 3, sourceErrors: 0 });
    expect(status.totals.errors).toBe(1);
  });

  it('its own seeds(): labels, userData and store: false; no URL needed on the command line', async () => {
    const out = tempDir();
    const r = await runCli([
      'crawl',
      '--source',
      path.relative(process.cwd(), PROBE),
      '--source-option',
      'own-seeds=true',
      '--source-option',
      'failOn=/never',
      '--processes',
      '1',
      '--out',
      out,
      '--delay',
      '0',
      '--no-robots',
      '--quiet',
    ]);
    // No seed URL: the source's seeds() makes them; ctx.seeds is then empty, so it has nothing.
    expect(r.code).toBe(0);
    expect(readItems(out)).toHaveLength(0);
    const out2 = tempDir();
    const r2 = await runCli([
      'crawl',
      `${site.origin}/s/`,
      '--source',
      PROBE,
      '--source-option',
      'ownSeeds=true',
      '--source-option',
      'failOn=/never',
      '--processes',
      '1',
      '--out',
      out2,
      '--delay',
      '0',
      '--no-robots',
      '--quiet',
    ]);
    expect(r2.stderr).toBe('');
    expect(r2.code).toBe(0);
    const by = new Map(readItems(out2).map((i) => [new URL(i.url).pathname, i]));
    expect([...by.keys()].sort()).toEqual(['/s/', '/s/a.html', '/s/bad.html', '/s/nostore.html']);
    const home = by.get('/s/')!;
    expect(home).toMatchObject({ label: 'home', userData: { n: 1 } });
    expect(home.data).toMatchObject({ label: 'home', userData: { n: 1 } });
    expect(home.file).toBe(`files/127.0.0.1_${site.port}/s/index.html`);
    const kept = by.get('/s/nostore.html')!;
    expect(kept.label).toBe('kept-out');
    expect(kept.file).toBeUndefined();
    expect(kept.bytes).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(out2, 'files', `127.0.0.1_${site.port}`, 's', 'nostore.html'))).toBe(
      false,
    );
    // A plain link carries nothing.
    const a = by.get('/s/a.html')!;
    expect(a.label).toBeUndefined();
    expect(a.userData).toBeUndefined();
  });

  it.each([
    [
      'a module that is not there',
      ['--source', './no/such/source.mjs'],
      /^collector: source \/.*\/no\/such\/source\.mjs: not found$/,
    ],
    [
      'a module that fails to load',
      ['--source', fixture('throws-on-load.mjs')],
      /: cannot load: this module cannot load$/,
    ],
    [
      'a module whose default export is not a source',
      ['--source', fixture('not-a-source.mjs')],
      /not-a-source\.mjs: handle: expected a function/,
    ],
    [
      'an unknown built-in',
      ['--source', 'rss-magic'],
      /unknown source "rss-magic": expected a built-in \(crawl, sitemap, feed, urls, github-trending, github-search\)/,
    ],
    [
      'an option its schema refuses',
      ['--source', PROBE, '--source-option', 'tag=5'],
      /^collector: --source-option tag: expected string, got 5$/,
    ],
    [
      'an unknown option',
      ['--source', PROBE, '--source-option', 'colour=red'],
      /^collector: --source-option: unknown key "colour" \(source probe takes failOn, tag, ownSeeds\)$/,
    ],
    [
      'an option the crawl source does not take',
      ['--source-option', 'x=1'],
      /^collector: --source-option: unknown key "x" \(source crawl takes articlePatterns, follow, feeds, sitemaps, markdown, pageRequisites\)$/,
    ],
  ])('refuses %s: one line, exit 2, nothing written', async (_name, flags, message) => {
    const out = path.join(tempDir(), 'out');
    const r = await runCli(['crawl', `${site.origin}/s/`, '--out', out, '--quiet', ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.existsSync(out)).toBe(false);
  });

  it("in a config: the source's option errors and unknown keys name the file and the worker", async () => {
    const dir = tempDir();
    const base = [`  - source: ${PROBE}`, `    seeds: ["${site.origin}/s/"]`];
    const bad = await runCli(['run', '--config', config(dir, [...base, '    tag: [1, 2]'])]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('collector: collector.yaml: workers[0].tag: expected string, got [1,2]');
    const unknown = await runCli(['run', '--config', config(dir, [...base, '    colour: red'])]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toMatch(
      /^collector: collector\.yaml: workers\[0\]: unknown key "colour" \(source probe takes failOn, tag, ownSeeds; every worker takes seeds, .*\)$/,
    );
    const near = await runCli(['run', '--config', config(dir, [...base, '    tags: x'])]);
    expect(near.stderr.trim()).toBe(
      'collector: collector.yaml: workers[0]: unknown key "tags" (did you mean "tag"?)',
    );
    const missing = await runCli([
      'run',
      '--config',
      config(dir, ['  - source: ./nowhere.mjs', ...base.slice(1)]),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(
      `collector: collector.yaml: workers[0].source: source ${path.join(dir, 'nowhere.mjs')}: not found`,
    );
    expect(fs.existsSync(path.join(dir, 'data'))).toBe(false);
  });
});

describe('authorize(): credentials at send time', () => {
  let a: JsonApi;
  let mirror: FixtureServer;
  beforeAll(async () => {
    mirror = await startMirror();
    a = await startJsonApi({
      pages: 1,
      perPage: 4,
      token: 'tok-123456',
      redirectTo: { origin: mirror.origin, ids: [101] },
    });
  });
  afterAll(async () => {
    await a.close();
    await mirror.close();
  });

  it("go to the request's own origin only: a redirect to another origin goes without them", async () => {
    const out = tempDir();
    const r = await runCli(
      [
        'crawl',
        '--source',
        path.resolve(import.meta.dirname, '../../examples/sources/hn-api.mjs'),
        '--source-option',
        `api=${a.api}`,
        '--scope',
        'any',
        '--processes',
        '1',
        '--out',
        out,
        '--delay',
        '0',
        '--quiet',
      ],
      { HN_API_TOKEN: 'tok-123456' },
    );
    expect(r.code).toBe(0);
    const hop = mirror.requestsFor('/mirror/101.json');
    expect(hop).toHaveLength(1);
    expect(hop[0].headers.authorization).toBeUndefined();
    // The request's own headers go with every hop.
    expect(hop[0].headers.accept).toBe('application/json');
    expect(a.server.requestsFor('/api/item/101.json')[0].headers.authorization).toBe('Bearer tok-123456');
    const item = readItems(out).find((i) => i.url === `${a.api}/item/101.json`)!;
    expect(item).toMatchObject({
      finalUrl: `${mirror.origin}/mirror/101.json`,
      title: 'Mirror 101',
      label: 'item',
    });
  });
});
