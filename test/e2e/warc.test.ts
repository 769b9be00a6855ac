import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlArgs, readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type FixtureServer, page, startServer } from '../fixtures/site-server.js';
import { expectSoundWarc, members } from '../fixtures/warc-files.js';

// Issue 29: --warc records every fetch (robots.txt, each redirect hop, each page) as WARC 1.1,
// read back by warcio and by a parser of the test's own; each item names its records; after a
// kill -9 and --resume the files hold whole records only, each of an item.
const N = 150;
let site: FixtureServer;

beforeAll(async () => {
  site = await startServer({}, (req, res) => {
    const url = req.url ?? '';
    if (url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nDisallow: /private/\n');
      return;
    }
    if (url === '/moved') {
      res.writeHead(301, { location: '/p/1.html', 'content-type': 'text/html' });
      res.end('<a href="/p/1.html">moved</a>');
      return;
    }
    const m = /^\/p\/(\d+)\.html$/.exec(url);
    if (!m) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>not here</h1>');
      return;
    }
    const i = Number(m[1]);
    const links = [i + 1, i + 2, i + 3].filter((j) => j < N).map((j) => `${j}.html`);
    if (i === 0) links.push('/moved', '/missing.html', '/private/x.html');
    const body = page(`Page ${i}`, links, `<p>${'text '.repeat(50 + i)}</p>`);
    setTimeout(() => {
      if (i % 3 === 0) {
        // Content-Encoding: the record keeps the gzip bytes as transferred.
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        res.end(zlib.gzipSync(body));
      } else if (i % 3 === 1) {
        // Chunked: the record holds the body without its framing.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.write(body.slice(0, 100));
        res.end(body.slice(100));
      } else {
        res.writeHead(200, {
          'content-type': 'text/html',
          'content-length': String(Buffer.byteLength(body)),
        });
        res.end(body);
      }
    }, 3);
  });
});

afterAll(async () => {
  await site.close();
});

const args = (out: string, ...extra: string[]) =>
  crawlArgs(`${site.origin}/p/0.html`, out, '--warc', '--scope', 'host', ...extra);

describe('--warc', () => {
  it('records each fetch as request + response, readable by warcio, digests matching, each item naming its records', async () => {
    const out = tempDir();
    const r = await runCli(args(out));
    expect(r.code, r.stderr).toBe(0);
    const items = readItems(out);
    expect(items.filter((i) => /\/p\/\d+\.html$/.test(i.url))).toHaveLength(N);
    await expectSoundWarc(out);
    const records = members(out).map((m) => m.record);
    const uris = (type: string) =>
      records.filter((x) => x.fields['warc-type'] === type).map((x) => x.fields['warc-target-uri']);
    // robots.txt once, the redirect hop and the 404 recorded like any fetch; nothing for the
    // robots-disallowed URL; every page once.
    expect(uris('response').filter((u) => u.endsWith('/robots.txt'))).toHaveLength(1);
    expect(uris('response')).toContain(`${site.origin}/moved`);
    expect(uris('response')).toContain(`${site.origin}/missing.html`);
    expect(uris('request')).not.toContain(`${site.origin}/private/x.html`);
    expect(new Set(uris('response')).size).toBe(uris('response').length);
    // A chunked response keeps its Transfer-Encoding under the name Common Crawl uses.
    const chunked = records.find(
      (x) =>
        x.fields['warc-target-uri'] === `${site.origin}/p/1.html` && x.fields['warc-type'] === 'response',
    );
    expect(chunked?.httpHead).toMatch(/\r\nX-Crawler-Transfer-Encoding: chunked/i);
    // The page's outlinks are in a metadata record.
    const meta = records.find(
      (x) =>
        x.fields['warc-type'] === 'metadata' && x.fields['warc-target-uri'] === `${site.origin}/p/0.html`,
    );
    expect(meta?.block.toString()).toContain(`outlink: ${site.origin}/p/1.html\r\n`);
    // The warcinfo says what made the file.
    expect(records[0].fields['warc-type']).toBe('warcinfo');
    expect(records[0].block.toString()).toMatch(/^software: .+\r\n/);
    expect(records[0].block.toString()).toContain('robots: obey\r\n');
  });

  it('after kill -9 and --resume: whole records only, every item has its records, none twice', async () => {
    for (const killAfter of [15, 70]) {
      const out = tempDir();
      const child = startCli(args(out));
      const exited = waitExit(child);
      const itemsFile = path.join(out, 'items', 'crawl-0.jsonl');
      await waitFor(
        () => fs.existsSync(itemsFile) && fs.readFileSync(itemsFile, 'utf8').split('\n').length > killAfter,
      );
      child.kill('SIGKILL');
      expect((await exited).signal).toBe('SIGKILL');
      const r = await runCli([...args(out), '--resume']);
      expect(r.code, r.stderr).toBe(0);
      const urls = readItems(out).map((i) => i.url);
      expect(new Set(urls).size).toBe(urls.length);
      expect(urls.filter((u) => /\/p\/\d+\.html$/.test(u))).toHaveLength(N);
      await expectSoundWarc(out);
    }
  });
});
