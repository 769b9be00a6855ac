import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, runCli, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, page, startServer } from '../fixtures/site-server.js';

// Issue 17 (3, 4): state files are trusted no further than they can be checked. A lost or
// garbage state/plan.json is recovered from the state dirs (or the resume refused), and lines
// appended to a frontier log — not a URL, an out-of-scope URL, a depth that is not a number, a
// URL listed twice — are skipped and reported once, never fetched, never a hang.
// Issue 28 (7): a frontier log that lost lines (emptied, truncated) is said at resume, and the
// URLs it held are found again on the worker's stored pages; what cannot be found is said too.
const N = 120;
let site: FixtureServer;
let other: FixtureServer; // out of scope: nothing may ever be requested from it

beforeAll(async () => {
  site = await startServer({}, (req, res) => {
    const m = /^\/p\/(\d+)\.html$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404);
      res.end();
      return;
    }
    const i = Number(m[1]);
    const links = [i + 1, i + 2, Math.floor(i / 2)].filter((j) => j < N).map((j) => `${j}.html`);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(page(`Page ${i}`, links));
  });
  other = await startServer(
    {},
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page('elsewhere'));
    },
    '127.0.0.2',
  );
});

afterAll(async () => {
  await site.close();
  await other.close();
});

const allUrls = () => Array.from({ length: N }, (_, i) => `${site.origin}/p/${i}.html`);
const args = (out: string, ...extra: string[]) => [
  'crawl',
  `${site.origin}/p/0.html`,
  '--processes',
  '2',
  '--delay',
  '0',
  '--no-robots',
  '--quiet',
  '--out',
  out,
  ...extra,
];

function expectExactlyOnce(out: string): void {
  const urls = readItems(out).map((i) => i.url);
  expect(urls.length).toBe(N);
  expect([...urls].sort()).toEqual(allUrls().sort());
}

/** A 2-process crawl stopped after about 40 pages (--max-pages is split among the processes). */
async function partialCrawl(): Promise<string> {
  const out = tempDir();
  const r = await runCli(args(out, '--max-pages', '40'));
  expect(r.code).toBe(0);
  const n = readItems(out).length;
  expect(n).toBeGreaterThan(10);
  expect(n).toBeLessThan(N);
  return out;
}

describe('damaged state', () => {
  it('frontier log with a line that is not a URL, an out-of-scope URL and a bad depth: skipped, reported once, no hang', async () => {
    const out = await partialCrawl();
    const log = path.join(out, 'state', 'crawl-0', 'frontier.log');
    const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
    const listed = lines[lines.length - 1].split('\t')[1]; // a URL already listed: listed again below
    const marks = site.requests.length;
    fs.appendFileSync(
      log,
      [
        '0\tnot a url',
        `1\t${other.origin}/outside.html`,
        `x\t${site.origin}/p/5.html`,
        `3\t${listed}`,
        '',
      ].join('\n'),
    );
    const r = await runCli(args(out, '--resume'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      `collector: state/crawl-0/frontier.log: 3 invalid lines skipped (not a URL 1, out-of-scope 1, bad depth 1)`,
    ]);
    expectExactlyOnce(out);
    expect(other.requests).toHaveLength(0);
    // every URL fetched once over both runs: the one listed twice too
    const fetched = site.requests.slice(marks).map((q) => q.path);
    expect(fetched.length).toBe(new Set(fetched).size);
  });

  it('lost state/plan.json: the layout is recovered from the state; another --processes is refused, the same resumes exactly once', async () => {
    const out = await partialCrawl();
    const before = fs.readFileSync(path.join(out, 'items', 'crawl-0.jsonl'));
    fs.rmSync(path.join(out, 'state', 'plan.json'));
    const three = await runCli(args(out, '--resume', '--processes', '3'));
    expect(three.code).toBe(2);
    expect(three.stderr).toMatch(
      /plan\.json was missing; layout recovered from the state: crawl: 2 processes, partition url/,
    );
    expect(three.stderr).toMatch(
      /this crawl was written with --processes 2 --partition url; resume with the same/,
    );
    expect(fs.readFileSync(path.join(out, 'items', 'crawl-0.jsonl')).equals(before)).toBe(true);
    expect(fs.existsSync(path.join(out, 'items', 'crawl-2.jsonl'))).toBe(false);
    const again = await runCli(
      args(out, '--resume').filter((a, i, all) => a !== '--processes' && all[i - 1] !== '--processes'),
    );
    expect(again.code, again.stderr).toBe(0);
    expectExactlyOnce(out);
    expect(JSON.parse(fs.readFileSync(path.join(out, 'state', 'plan.json'), 'utf8'))).toEqual({
      crawl: { processes: 2, partition: 'url' },
    });
  });

  it('garbage state/plan.json and a state that fits no layout: the resume is refused, naming the file and what to do', async () => {
    const out = await partialCrawl();
    const plan = path.join(out, 'state', 'plan.json');
    fs.writeFileSync(plan, '{"crawl": {"processes": 2, "part');
    fs.mkdirSync(path.join(out, 'state', 'crawl-2')); // a third worker's dir: 3 processes cannot own these logs
    const before = readItems(out).length;
    const r = await runCli(args(out, '--resume'));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${plan} is damaged and the process layout of "crawl" cannot be recovered`);
    expect(r.stderr).toMatch(/restore it, e\.g\. \{"crawl": \{"processes": N, "partition": "host"\}\}/);
    expect(readItems(out).length).toBe(before);
    // written back by hand as the message says: the crawl resumes
    fs.writeFileSync(plan, '{"crawl": {"processes": 2, "partition": "url"}}\n');
    fs.rmdirSync(path.join(out, 'state', 'crawl-2'));
    const ok = await runCli(args(out, '--resume'));
    expect(ok.code, ok.stderr).toBe(0);
    expectExactlyOnce(out);
  });

  it.each([
    ['emptied', (_text: string) => ''],
    ['truncated to its first 5 lines', (text: string) => `${text.split('\n').slice(0, 5).join('\n')}\n`],
  ])(
    'a frontier log %s (one of two processes): said, the URLs found again on its stored pages, every page exactly once',
    async (_how, damage) => {
      const out = await partialCrawl();
      const log = path.join(out, 'state', 'crawl-0', 'frontier.log');
      const text = fs.readFileSync(log, 'utf8');
      const had = text.trim().split('\n').length;
      const kept = damage(text);
      fs.writeFileSync(log, kept);
      const marks = site.requests.length;
      const r = await runCli(args(out, '--resume'));
      expect(r.code, r.stderr).toBe(0);
      const said = r.stderr.trim().split('\n');
      const lost = had - (kept === '' ? 0 : 5);
      expect(said[0]).toBe(
        `collector: state/crawl-0/frontier.log lost ${lost} of its ${had} lines since its last save (truncated or replaced?): ` +
          "the URLs it held are looked for again in this worker's stored pages",
      );
      expect(said[1]).toMatch(
        /^collector: state\/crawl-0\/frontier\.log: \d+ stored pages read again, \d+ URLs? queued again$/,
      );
      expect(said).toHaveLength(2);
      expectExactlyOnce(out);
      const fetched = site.requests.slice(marks).map((q) => q.path);
      expect(fetched.length).toBe(new Set(fetched).size);
      expect(fs.existsSync(path.join(out, 'state', 'crawl-0', 'relink.json'))).toBe(false);
      // and the next resume finds the state whole
      const again = await runCli(args(out, '--resume'));
      expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
    },
  );

  it('bodies not stored (--no-store): the loss is said, and that the URLs found only on those pages stay lost', async () => {
    const out = tempDir();
    const noStore = (...extra: string[]) => [
      'crawl',
      `${site.origin}/p/0.html`,
      '--delay',
      '0',
      '--no-robots',
      '--quiet',
      '--no-store',
      '--out',
      out,
      ...extra,
    ];
    const first = await runCli(noStore('--max-pages', '20'));
    expect(first.code, first.stderr).toBe(0);
    const done = readItems(out).length;
    fs.writeFileSync(path.join(out, 'state', 'crawl-0', 'frontier.log'), '');
    const r = await runCli(noStore('--resume'));
    expect(r.code, r.stderr).toBe(0);
    const said = r.stderr.trim().split('\n');
    expect(said[0]).toMatch(
      /^collector: state\/crawl-0\/frontier\.log lost \d+ of its \d+ lines since its last save/,
    );
    expect(said[1]).toBe(
      `collector: state/crawl-0/frontier.log: 0 stored pages read again, 0 URLs queued again; ${done} pages have no stored body: URLs found only there stay lost`,
    );
  });
});
