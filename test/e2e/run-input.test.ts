import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, runCli, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

// `collector run` with bad input: one clear line on stderr, exit 2, nothing started or written.
function config(text: string, name = 'collector.yaml'): { dir: string; file: string } {
  const dir = tempDir();
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return { dir, file };
}

const SEED = 'http://127.0.0.1:9/docs/';

describe('collector run: bad input', () => {
  it.each([
    [
      'a bad count',
      `workers:\n  - source: crawl\n    processes: four\n    seeds: [${SEED}]\n`,
      /collector\.yaml: workers\[0\]\.processes: expected a positive integer, got "four"/,
    ],
    [
      'a zero count',
      `workers:\n  - source: crawl\n    processes: 0\n    seeds: [${SEED}]\n`,
      /workers\[0\]\.processes: expected a positive integer, got 0/,
    ],
    [
      'an unknown source',
      `workers:\n  - source: rss-magic\n    seeds: [${SEED}]\n`,
      /workers\[0\]\.source: unknown source "rss-magic": expected a built-in \(crawl, sitemap, feed, urls, github-trending, github-search\) or a module path/,
    ],
    [
      'an unknown key',
      `workers:\n  - source: crawl\n    speed: 3\n    seeds: [${SEED}]\n`,
      /workers\[0\]: unknown key "speed"/,
    ],
    [
      'a bad seed',
      `workers:\n  - source: crawl\n    seeds: [not-a-url]\n`,
      /workers\[0\]\.seeds: bad URL "not-a-url"/,
    ],
    [
      'no workers',
      'memory: { limitFraction: 0.5 }\n',
      /collector\.yaml: workers: missing \(expected array\)/,
    ],
    ['broken YAML', 'workers: [\n', /not valid YAML/],
    [
      'an unsupported backend',
      `backend: mysql://127.0.0.1:3306/0\nworkers:\n  - source: crawl\n    seeds: [${SEED}]\n`,
      /collector\.yaml: backend: expected embedded or redis:\/\/host:port\/db/,
    ],
    [
      'a backend key in a worker type (one backend per config)',
      `workers:\n  - source: crawl\n    backend: redis://127.0.0.1:6379/0\n    seeds: [${SEED}]\n`,
      /workers\[0\]: unknown key "backend"/,
    ],
  ])('refuses %s', async (_name, text, message) => {
    const { dir, file } = config(`data: ${path.join(tempDir(), 'data')}\n${text}`);
    const r = await runCli(['run', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/^collector: collector\.yaml: /);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(fs.readdirSync(dir)).toEqual(['collector.yaml']);
  });

  it('leaves no data directory behind after a usage error (a metrics address in use)', async () => {
    const busy = await startServer({});
    const { dir, file } = config(
      `data: ./data\nmetrics:\n  listen: ${busy.origin.slice('http://'.length)}\nworkers:\n  - source: crawl\n    seeds: [${SEED}]\n`,
    );
    const r = await runCli(['run', '--config', file, '--quiet']);
    await busy.close();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/choose another metrics address/);
    expect(fs.readdirSync(dir)).toEqual(['collector.yaml']);
  });

  it('refuses a missing config file and an unwritable data dir', async () => {
    const missing = await runCli(['run', '--config', '/nonexistent/collector.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--config \/nonexistent\/collector\.yaml: not found/);
    const { dir, file } = config('');
    const blocker = path.join(dir, 'file');
    fs.writeFileSync(blocker, 'x');
    fs.writeFileSync(
      file,
      `data: ${path.join(blocker, 'data')}\nworkers:\n  - source: crawl\n    seeds: [${SEED}]\n`,
    );
    const r = await runCli(['run', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /data .*file\/data: is under .*file, a file, not a directory; choose a directory/,
    );
  });

  it('refuses a changed process count for a worker type whose data already exists', async () => {
    const { dir, file } = config('');
    const data = path.join(dir, 'data');
    const write = (n: number) =>
      fs.writeFileSync(
        file,
        `data: ${data}\nworkers:\n  - name: docs\n    source: crawl\n    processes: ${n}\n    robots: false\n    seeds: ["http://127.0.0.1:9/docs/"]\n`,
      );
    write(1);
    const first = await runCli(['run', '--config', file, '--quiet']);
    expect(first.code).toBe(69); // a dead seed: nothing collected, the data written all the same
    write(3);
    const r = await runCli(['run', '--config', file, '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /worker type "docs": processes: 3, partition: url now, but .* was written with processes: 1/,
    );
    expect(fs.existsSync(path.join(data, 'collector.pid'))).toBe(false);
  });

  it("refuses a one-shot crawl's --out as its data directory, leaving the crawl as it was", async () => {
    const { dir, file } = config('');
    const data = path.join(dir, 'data');
    const crawled = await runCli(['crawl', SEED, '--out', data, '--no-robots', '--retries', '0', '--quiet']);
    expect(crawled.code).toBe(69); // a dead seed: its item written all the same
    const before = readItems(data);
    expect(before).toHaveLength(1);
    fs.writeFileSync(file, `data: ${data}\nworkers:\n  - source: crawl\n    seeds: [${SEED}]\n`);
    const r = await runCli(['run', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `collector: data ${data}: holds a one-shot crawl (state/crawl.json, written by collector crawl); ` +
        `continue it with collector crawl --resume --out ${data}, or give run another data directory`,
    );
    expect(readItems(data)).toEqual(before);
    expect(fs.existsSync(path.join(data, 'collector.pid'))).toBe(false);
  });

  it('refuses more processes than the memory guard allows, naming the safe count', async () => {
    const { dir, file } = config(
      `data: DATA\nworkers:\n  - source: crawl\n    processes: 40\n    seeds: [${SEED}]\n`,
    );
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('DATA', path.join(dir, 'data')));
    const r = await runCli(['run', '--config', file, '--memory-limit', '1G']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/plan of 40 processes needs about \d+ MB.*largest safe process count is \d+/);
    expect(fs.existsSync(path.join(dir, 'data'))).toBe(false);
  });
});

describe('collector run: relative paths in a config', () => {
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startServer({ '/docs/': html(page('Docs')) });
  });
  afterAll(async () => {
    await site.close();
  });

  it('are relative to the config file, not to the working directory (cron, systemd)', async () => {
    const { dir, file } = config(
      `data: ./data\nworkers:\n  - name: docs\n    source: crawl\n    seeds: ["${site.origin}/docs/"]\n`,
    );
    const elsewhere = tempDir();
    const r = await runCli(['run', '--config', file, '--quiet'], {}, elsewhere);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readItems(path.join(dir, 'data')).map((i) => i.status)).toEqual([200]);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    // The same file from its own directory continues the same data.
    const again = await runCli(['run', '--config', 'collector.yaml', '--quiet'], {}, dir);
    expect(again.code).toBe(0);
    expect(readItems(path.join(dir, 'data'))).toHaveLength(1);
  });
});
