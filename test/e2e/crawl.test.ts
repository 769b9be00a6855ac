import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlArgs, readItems, runCli, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

// A small site exercising the crawl engine end to end.
let site: FixtureServer;
const PDF = Buffer.from('%PDF-1.4\n%binary\x00\x01\x02 not parsed <a href="/site/never.html">\n');

beforeAll(async () => {
  site = await startServer({
    '/robots.txt': (_q, r) => {
      r.writeHead(200, { 'content-type': 'text/plain' });
      r.end('User-agent: *\nDisallow: /site/private/\n');
    },
    '/site/': html(
      page('Home &amp; Start', [
        'a.html',
        '/site/b.html',
        './c/',
        'http://127.0.0.1:1/elsewhere.html',
        '/outside.html',
        'mailto:x@example.org',
        'javascript:void(0)',
        'a.html#frag',
        'private/secret.html',
        'dup.html',
        'missing.html',
        'doc.pdf',
        'moved.html',
      ]),
    ),
    '/site/a.html': html(page('A', ['b.html', 'deep/d1.html'])),
    '/site/b.html': html(page('B', ['a.html'])),
    '/site/c/': html(page('C dir', ['../a.html'])),
    '/site/deep/d1.html': html(page('D1', ['d2.html'])),
    '/site/deep/d2.html': html(page('D2', [])),
    '/site/dup.html': html(page('A', ['b.html', 'deep/d1.html'])), // same bytes as a.html
    '/site/doc.pdf': (_q, r) => {
      r.writeHead(200, { 'content-type': 'application/pdf' });
      r.end(PDF);
    },
    '/site/moved.html': (_q, r) => {
      r.writeHead(301, { location: '/site/target.html' });
      r.end();
    },
    '/site/target.html': html(page('Target', [])),
    '/outside.html': html(page('Outside', [])),
  });
});

afterAll(async () => {
  await site.close();
});

function byUrl(items: Array<Record<string, any>>): Map<string, Record<string, any>> {
  return new Map(items.map((i) => [i.url, i]));
}

describe('collector crawl (end to end)', () => {
  it('crawls a site: one item per URL, scope, robots, dedup, files, redirects', async () => {
    const out = tempDir();
    const before = site.requests.length;
    const r = await runCli(crawlArgs(`${site.origin}/site/`, out));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const items = readItems(out);
    const m = byUrl(items);
    const o = site.origin;
    expect(new Set(items.map((i) => i.url)).size).toBe(items.length); // exactly once each
    expect([...m.keys()].sort()).toEqual(
      [
        '/site/',
        '/site/a.html',
        '/site/b.html',
        '/site/c/',
        '/site/deep/d1.html',
        '/site/deep/d2.html',
        '/site/dup.html',
        '/site/doc.pdf',
        '/site/missing.html',
        '/site/moved.html',
        '/site/private/secret.html',
      ]
        .map((p) => o + p)
        .sort(),
    );
    const home = m.get(`${o}/site/`)!;
    expect(home).toMatchObject({
      status: 200,
      title: 'Home & Start',
      depth: 0,
      source: 'crawl',
      worker: 'crawl-0',
    });
    expect(home.file).toBe(`files/127.0.0.1_${site.port}/site/index.html`);
    expect(fs.readFileSync(path.join(out, home.file), 'utf8')).toContain('Home &amp; Start');
    expect(home.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(new Date(home.fetchedAt).toString()).not.toBe('Invalid Date');

    expect(m.get(`${o}/site/deep/d2.html`)!.depth).toBe(3);
    // robots.txt disallow: an item with error, never requested
    expect(m.get(`${o}/site/private/secret.html`)!.error.kind).toBe('robots-disallowed');
    expect(site.hits('/site/private/secret.html')).toBe(0);
    // content dedup: one of the two identical pages is stored, the other points to it
    const a = m.get(`${o}/site/a.html`)!;
    const dup = m.get(`${o}/site/dup.html`)!;
    const [orig, copy] = a.data?.duplicateOf ? [dup, a] : [a, dup];
    expect(copy.data.duplicateOf).toBe(orig.url);
    expect(copy.file).toBeUndefined();
    expect(copy.sha256).toBe(orig.sha256);
    expect(orig.file).toBeDefined();
    // 404 recorded as an error item
    expect(m.get(`${o}/site/missing.html`)).toMatchObject({ status: 404, error: { kind: 'http-status' } });
    // non-HTML stored byte for byte, not parsed
    const pdf = m.get(`${o}/site/doc.pdf`)!;
    expect(fs.readFileSync(path.join(out, pdf.file)).equals(PDF)).toBe(true);
    expect(pdf.bytes).toBe(PDF.length);
    expect(site.hits('/site/never.html')).toBe(0);
    // redirect followed, finalUrl set
    expect(m.get(`${o}/site/moved.html`)).toMatchObject({
      status: 200,
      finalUrl: `${o}/site/target.html`,
      title: 'Target',
    });
    // out of scope never fetched
    expect(site.hits('/outside.html')).toBe(0);
    // every request after robots.txt was for a distinct URL
    const paths = site.requests.slice(before).map((q) => q.path);
    expect(paths.filter((p) => p === '/robots.txt').length).toBe(1);
    expect(new Set(paths).size).toBe(paths.length);
    // layout
    expect(fs.existsSync(path.join(out, 'state', 'crawl-0', 'frontier.log'))).toBe(true);
    expect(fs.existsSync(path.join(out, 'logs', 'crawl-0.log'))).toBe(true);
    expect(fs.existsSync(path.join(out, 'collector.pid'))).toBe(false);
  });

  it('honours --max-depth, --max-pages and --scope host', async () => {
    const out1 = tempDir();
    await runCli(crawlArgs(`${site.origin}/site/`, out1, '--max-depth', '1'));
    const depths = readItems(out1).map((i) => i.depth);
    expect(Math.max(...depths)).toBe(1);
    expect(readItems(out1).some((i) => i.url.endsWith('/deep/d1.html'))).toBe(false);

    const out2 = tempDir();
    const budget = await runCli(
      crawlArgs(`${site.origin}/site/`, out2, '--max-pages', '3').filter((a) => a !== '--quiet'),
    );
    expect(readItems(out2)).toHaveLength(3);
    // the summary says why URLs were left, and what continues them
    expect(budget.stderr).toMatch(
      /queued \(stopped: --max-pages 3 reached; --resume with a larger --max-pages or none continues\)/,
    );

    const out3 = tempDir();
    await runCli(crawlArgs(`${site.origin}/site/`, out3, '--scope', 'host'));
    expect(readItems(out3).some((i) => i.url === `${site.origin}/outside.html`)).toBe(true);
  });

  it('keeps the politeness delay between requests to one host', async () => {
    const links = Array.from({ length: 6 }, (_, i) => `/p${i}.html`);
    const s = await startServer({ '/': html(page('root', links)) }, html(page('leaf', [])));
    try {
      const out = tempDir();
      const r = await runCli(
        crawlArgs(
          `${s.origin}/`,
          out,
          '--delay',
          '150',
          '--jitter',
          '0',
          '--host-concurrency',
          '1',
          '--no-robots',
        ),
      );
      expect(r.code).toBe(0);
      expect(s.requests).toHaveLength(7);
      // Counted from when the server ended the previous response: the crawler got it no earlier,
      // and waits --delay from then too, so this bound holds however loaded the machine is.
      s.requests.slice(1).forEach((q, i) => {
        expect(q.at - (s.requests[i].endedAt as number)).toBeGreaterThanOrEqual(150);
      });
    } finally {
      await s.close();
    }
  });
});

describe('--include / --exclude in a crawl', () => {
  it('follows only links matching an --include and none matching an --exclude, redirects included', async () => {
    const s = await startServer({
      '/': html(
        page('Home', ['docs/a.html', 'docs/b.html', 'blog/x.html', 'docs/old-c.html', 'docs/moved.html']),
      ),
      '/docs/a.html': html(page('A', ['c.html', '../blog/y.html', 'old-d.html'])),
      '/docs/b.html': html(page('B')),
      '/docs/c.html': html(page('C')),
      '/docs/moved.html': (_q, r) => {
        r.writeHead(301, { location: '/blog/z.html' });
        r.end();
      },
      '/blog/x.html': html(page('X')),
      '/blog/y.html': html(page('Y')),
      '/blog/z.html': html(page('Z')),
      '/docs/old-c.html': html(page('Old C')),
      '/docs/old-d.html': html(page('Old D')),
    });
    try {
      const out = tempDir();
      const r = await runCli([
        ...crawlArgs(`${s.origin}/`, out, '--no-robots', '--scope', 'host'),
        '--include',
        '/docs/',
        '--include',
        '/nothing-matches/',
        '--exclude',
        '/old-',
      ]);
      expect(r.code).toBe(0);
      // the seed is fetched (a seed is chosen, not followed); of the links, only /docs/ minus /old-
      const paths = ['/', '/docs/a.html', '/docs/b.html', '/docs/c.html', '/docs/moved.html'];
      expect(s.requests.map((q) => q.path).sort()).toEqual(paths.sort());
      const items = byUrl(readItems(out));
      expect([...items.keys()].sort()).toEqual(paths.map((p) => s.origin + p).sort());
      // a redirect out of the included space is not followed either
      expect(items.get(`${s.origin}/docs/moved.html`)).toMatchObject({
        status: 301,
        error: { kind: 'out-of-scope', message: `redirect to ${s.origin}/blog/z.html (excluded)` },
      });
      // the links left out are counted as such (blog/x, old-c, ../blog/y, old-d)
      const quiet = tempDir();
      const loud = await runCli(
        [
          ...crawlArgs(`${s.origin}/`, quiet, '--no-robots', '--include', '/docs/', '--exclude', '/old-'),
        ].filter((a) => a !== '--quiet'),
      );
      expect(loud.stderr).toMatch(/links skipped: excluded 4\b/);
    } finally {
      await s.close();
    }
  });
});

describe('bad input', () => {
  it('rejects an unknown flag with one line and exit 2', async () => {
    const r = await runCli(['crawl', 'http://127.0.0.1:9/', '--frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--frobnicate');
  });

  it('rejects a bad URL', async () => {
    const out = tempDir();
    const r = await runCli(['crawl', 'not a url', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^collector: bad URL "not a url"/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('rejects a non-http scheme and a bad number', async () => {
    expect((await runCli(['crawl', 'ftp://127.0.0.1/x'])).code).toBe(2);
    const r = await runCli(['crawl', 'http://127.0.0.1:9/', '--concurrency', 'four']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('four');
  });

  it('rejects an --out that is a file, or under one, saying so', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, 'x');
    const r = await runCli(['crawl', `${site.origin}/site/`, '--out', file, '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`collector: --out ${file}: is a file, not a directory; choose a directory\n`);
    const sub = await runCli(['crawl', `${site.origin}/site/`, '--out', path.join(file, 'sub'), '--quiet']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toMatch(/--out .*a-file\/sub: is under .*a-file, a file, not a directory/);
    expect(sub.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('leaves no --out behind after a usage error (no URL, a metrics address in use)', async () => {
    const out = path.join(tempDir(), 'new', 'out');
    const none = await runCli(['crawl', '--out', out, '--quiet']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no URL given/);
    expect(fs.existsSync(path.dirname(out))).toBe(false);
    // The metrics address is refused once --out exists: what this command made goes again.
    const busy = await startServer({});
    const r = await runCli(crawlArgs(`${site.origin}/site/`, out, '--metrics', busy.origin.slice(7)));
    await busy.close();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/metrics .*EADDRINUSE; choose another metrics address/);
    expect(fs.existsSync(path.dirname(out))).toBe(false);
  });

  it('shows byte sizes and counts in --help as docs/config.md writes them', async () => {
    const r = await runCli(['crawl', '--help']);
    const help = r.stdout.replace(/\s+/g, ' ');
    expect(help).toContain('largest response body (10MB, 512KB) (default: 10MB)');
    expect(help).toMatch(/--max-queued-in-memory <n> .* \(default: 100000\)/);
    expect(help).not.toMatch(/\(default \d/);
  });

  it('refuses --max-bytes over 1GB, and a one-process plan over --memory-limit, writing nothing', async () => {
    for (const extra of [
      ['--max-bytes', '100GB'],
      ['--memory-limit', '1K'],
    ]) {
      const out = path.join(tempDir(), 'out');
      const r = await runCli(crawlArgs(`${site.origin}/site/`, out, ...extra));
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(extra[0] === '--max-bytes' ? /--max-bytes: expected at most 1GB/ : /memory/);
      expect(fs.existsSync(out)).toBe(false);
    }
  });

  it('refuses an --out holding another crawl without --resume, touching nothing', async () => {
    const out = tempDir();
    await runCli(crawlArgs(`${site.origin}/site/`, out, '--max-pages', '2'));
    const itemsFile = path.join(out, 'items', 'crawl-0.jsonl');
    const before = fs.readFileSync(itemsFile);
    const r = await runCli(['crawl', `${site.origin}/site/`, '--processes', '1', '--out', out, '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--resume/);
    expect(fs.readFileSync(itemsFile).equals(before)).toBe(true);
  });
});
