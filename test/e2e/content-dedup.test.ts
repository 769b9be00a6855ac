/**
 * Content dedup across a resume: after `--resume` the original of a body is known only by its
 * line in the items file, and its URL is read back from disk (sparse line offsets, multi-byte
 * titles before it).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlArgs, readItems, runCli, tempDir } from '../fixtures/cli.js';
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
