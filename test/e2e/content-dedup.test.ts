/**
 * Content dedup across a resume: after `--resume` the original of a body is known only by its
 * line in the items file, and its URL is read back from disk (sparse line offsets, multi-byte
 * titles before it).
 */
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlArgs, readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type FixtureServer, page, startServer } from '../fixtures/site-server.js';

const N = 600;
const ORIGINAL = 400;
let site: FixtureServer;

const body = (i: number) =>
  page(
    `Päge ${i} — 日本語 🎉`,
    [i + 1, i + 2].filter((j) => j < N).map((j) => `${j}.html`),
  );

beforeAll(async () => {
  site = await startServer({}, (req, res) => {
    const m = /^\/d\/(\d+|copy)\.html$/.exec(req.url ?? '');
    const i = m ? (m[1] === 'copy' ? ORIGINAL : Number(m[1])) : N;
    if (i >= N) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body(i));
  });
});

afterAll(async () => {
  await site.close();
});

const args = (out: string, seed: string) => crawlArgs(`${site.origin}/d/${seed}`, out, '--no-robots');

describe('content dedup', () => {
  it('points a duplicate found after --resume to the original stored before it', async () => {
    const out = tempDir();
    expect((await runCli(args(out, '0.html'))).code).toBe(0);
    expect(readItems(out)).toHaveLength(N);
    const r = await runCli([...args(out, 'copy.html'), '--resume']);
    expect(r.code).toBe(0);
    const items = readItems(out);
    expect(items).toHaveLength(N + 1);
    const orig = items.find((i) => i.url === `${site.origin}/d/${ORIGINAL}.html`)!;
    const copy = items.find((i) => i.url === `${site.origin}/d/copy.html`)!;
    expect(orig.file).toBeDefined();
    expect(copy.sha256).toBe(orig.sha256);
    expect(copy.data).toEqual({ duplicateOf: orig.url });
    expect(copy.file).toBeUndefined();
    expect(site.hits('/d/copy.html')).toBe(1);
    fs.rmSync(out, { recursive: true, force: true });
  });
});

describe("a duplicate whose original's line cannot be read back", () => {
  it('gets duplicateOf: null and duplicateSha256, and no second file', async () => {
    const same = page('Same body');
    let releaseCopy: () => void = () => {};
    const copyHeld = new Promise<void>((r) => {
      releaseCopy = r;
    });
    const send = (res: http.ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(same);
    };
    const s = await startServer({
      '/orig.html': (_req, res) => send(res),
      // held until the test has damaged the original's line
      '/copy.html': (_req, res) => void copyHeld.then(() => send(res)),
    });
    const out = tempDir();
    try {
      const args = (seed: string) => crawlArgs(`${s.origin}/${seed}`, out, '--no-robots');
      expect((await runCli(args('orig.html'))).code).toBe(0);
      // After --resume the original is known only by its line: read back from the items file when
      // the copy's body turns out the same.
      const child = startCli([...args('copy.html'), '--resume']);
      const exited = waitExit(child);
      await waitFor(() => s.hits('/copy.html') === 1);
      // Change the original's line behind the crawler's back, keeping its length: its sha256 no
      // longer matches, so the line read back is not the original's.
      const file = path.join(out, 'items', 'crawl-0.jsonl');
      const text = fs.readFileSync(file, 'utf8');
      const orig = JSON.parse(text.split('\n')[0]);
      const flipped = `${orig.sha256[0] === '0' ? '1' : '0'}${orig.sha256.slice(1)}`;
      const fd = fs.openSync(file, 'r+');
      fs.writeSync(fd, text.replace(orig.sha256, flipped).split('\n')[0], 0, 'utf8');
      fs.closeSync(fd);
      releaseCopy();
      expect((await exited).code).toBe(0);
      const copy = readItems(out).find((i) => i.url === `${s.origin}/copy.html`)!;
      expect(copy.sha256).toBe(orig.sha256);
      expect(copy.data).toEqual({ duplicateOf: null, duplicateSha256: orig.sha256 });
      expect(copy.file).toBeUndefined();
      const log = fs.readFileSync(path.join(out, 'logs', 'crawl-0.log'), 'utf8');
      expect(log).toMatch(/original of duplicate body not found/);
    } finally {
      releaseCopy();
      await s.close();
    }
  });
});

describe('bodies that cannot be stored', () => {
  it('count as errors, keep storeError, and do not make a later copy a duplicate of a URL with no file', async () => {
    const same = page('Same body', ['b.html']);
    const out = tempDir();
    const s = await startServer({
      '/a.html': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(same);
      },
      // The same bytes, answered once a's store has failed (the worker log says so): a copy
      // found while its original is still being stored is another case (see the report of #16).
      '/b.html': async (_req, res) => {
        const log = path.join(out, 'logs', 'crawl-0.log');
        await waitFor(
          () => fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('storing body failed'),
        );
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(same);
      },
    });
    try {
      // A file where the host's directory must go: every store for this host fails (ENOTDIR).
      const host = new URL(s.origin).host.replace(':', '_');
      fs.mkdirSync(`${out}/files`, { recursive: true });
      fs.writeFileSync(`${out}/files/${host}`, 'not a directory');
      const args = crawlArgs(`${s.origin}/a.html`, out, '--no-robots');
      const r = await runCli(args.filter((a) => a !== '--quiet'));
      expect(r.code).toBe(0);
      expect(r.stderr + r.stdout).toMatch(/2 items this run \(2 total\), 2 errors/);
      const items = readItems(out);
      expect(items).toHaveLength(2);
      for (const it of items) {
        expect(it.file).toBeUndefined();
        expect(it.data.storeError).toMatch(/ENOTDIR|EEXIST/);
        // b is not marked a duplicate of a, which has no file: it was stored as an original.
        expect(it.data.duplicateOf).toBeUndefined();
      }
    } finally {
      await s.close();
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
