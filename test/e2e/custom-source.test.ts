/**
 * The Source contract end to end, with the example source `examples/sources/hn-api.mjs` on a
 * paginated JSON API served on loopback: through `collector crawl --source` and through
 * `collector run` with 2 processes, with labels, request headers and userData surviving a
 * kill -9 and a resume; the token added by `authorize()` on every API request and nowhere in the
 * output.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type JsonApi, startJsonApi } from '../fixtures/json-api.js';
import { pidAlive, readStatus } from '../fixtures/ops.js';

const HN = path.resolve(import.meta.dirname, '../../examples/sources/hn-api.mjs');
const TOKEN = 'test-token-7f3a9c';
const apis: JsonApi[] = [];

afterAll(async () => {
  for (const a of apis) await a.close();
});

async function api(o: Parameters<typeof startJsonApi>[0] = {}): Promise<JsonApi> {
  const a = await startJsonApi(o);
  apis.push(a);
  return a;
}

/** Every list page and every story once, each with its label, userData and data. */
function expectAllOnce(a: JsonApi, out: string): void {
  const items = readItems(out);
  const urls = items.map((i) => i.url);
  expect(new Set(urls).size, 'an item written twice').toBe(urls.length);
  const lists = items.filter((i) => i.label === 'list');
  const stories = items.filter((i) => i.label === 'item');
  expect(lists.length + stories.length, 'items without their label').toBe(items.length);
  expect(lists.map((i) => i.userData.page).sort((x, y) => x - y)).toEqual(
    Array.from({ length: a.pages }, (_, i) => i + 1),
  );
  for (const l of lists) {
    expect(l.url).toBe(`${a.api}/stories?page=${l.userData.page}`);
    expect(l.data).toEqual({ page: l.userData.page, stories: a.ids.length / a.pages });
    expect(l.error).toBeUndefined();
  }
  expect(stories.map((s) => s.data.id).sort((x, y) => x - y)).toEqual(a.ids);
  const perPage = a.ids.length / a.pages;
  for (const s of stories) {
    const at = a.ids.indexOf(s.data.id);
    const story = a.story(s.data.id);
    expect(s.error).toBeUndefined();
    expect(s.source).toBe('hn-api');
    expect(s.userData).toEqual({ page: Math.floor(at / perPage) + 1, rank: (at % perPage) + 1 });
    expect(s.title).toBe(story.title);
    expect(s.data).toEqual({ id: story.id, by: story.by, score: story.score });
    if (story.text !== undefined) {
      // Stored as Markdown: the bytes the source chose, and the item's hash is theirs.
      expect(s.file).toBe(`files/127.0.0.1_${a.server.port}/api/item/${story.id}.json.md`);
      expect(fs.readFileSync(path.join(out, s.file), 'utf8')).toBe(story.text);
      expect(s.bytes).toBe(Buffer.byteLength(story.text));
    } else {
      expect(JSON.parse(fs.readFileSync(path.join(out, s.file), 'utf8'))).toEqual(story);
    }
  }
}

/** Every API request asked for JSON (the request's own header), and with a token, carried it. */
function expectHeaders(a: JsonApi, token?: string): void {
  const calls = a.server.requests.filter((r) => r.path.startsWith('/api/'));
  expect(calls.length).toBeGreaterThan(0);
  for (const r of calls) {
    expect(r.headers.accept, r.path).toBe('application/json');
    expect(r.headers.authorization, r.path).toBe(token === undefined ? undefined : `Bearer ${token}`);
  }
}

/** Every file under `dir`, as text: the token must be in none. */
function expectNowhere(dir: string, secret: string): void {
  for (const f of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!f.isFile()) continue;
    const p = path.join(f.parentPath, f.name);
    expect(fs.readFileSync(p, 'latin1').includes(secret), p).toBe(false);
  }
}

const crawlArgs = (a: JsonApi, out: string, ...extra: string[]) => [
  'crawl',
  '--source',
  HN,
  '--source-option',
  `api=${a.api}`,
  '--out',
  out,
  '--delay',
  '0',
  '--quiet',
  ...extra,
];

describe('a custom source (examples/sources/hn-api.mjs) on a paginated JSON API', () => {
  it('collect --source: list pages and stories with labels, headers, userData, files; the token only on the wire', async () => {
    const a = await api({ token: TOKEN });
    const out = tempDir();
    const r = await runCli([...crawlArgs(a, out), '--processes', '1'], { HN_API_TOKEN: TOKEN });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expectAllOnce(a, out);
    expectHeaders(a, TOKEN);
    // robots.txt disallows /api/: the source's requests are API calls (robots: false).
    expect(a.server.hits('/robots.txt')).toBe(0);
    // Stories link to pages outside /api/: out of the prefix scope, not fetched.
    expect(a.server.requests.some((q) => q.path.startsWith('/story/'))).toBe(false);
    expectNowhere(out, TOKEN);
  });

  it('collector crawl --source: kill -9 mid-crawl, then --resume (the source remembered): all once, labels/headers/userData kept', async () => {
    // 110 items, ~3 s: the items file is flushed every 50 items, and killed after the first 50.
    const a = await api({ pages: 10, perPage: 10, delayMs: 50 });
    const out = tempDir();
    const child = startCli([...crawlArgs(a, out), '--processes', '1']);
    const exited = waitExit(child);
    await waitFor(() => readItems(out).length >= 50, 60_000); // a deadline for a busy machine
    child.kill('SIGKILL');
    expect((await exited).signal).toBe('SIGKILL');
    expect(readItems(out).length).toBeLessThan(110);
    const before = a.server.requests.length;
    const r = await runCli(['crawl', '--out', out, '--resume', '--delay', '0', '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(a.server.requests.length).toBeGreaterThan(before);
    expectAllOnce(a, out);
    expectHeaders(a);
  });

  describe('collector run, 2 processes', () => {
    const killed: number[] = [];
    afterEach(() => {
      for (const pid of killed.splice(0)) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    });

    it('the source by a path relative to the config file; kill -9 of every process, then run again: all once, metadata kept', async () => {
      const a = await api({ pages: 6, perPage: 5, delayMs: 40, token: TOKEN });
      const dir = tempDir();
      const data = path.join(dir, 'data');
      const config = path.join(dir, 'collector.yaml');
      fs.writeFileSync(
        config,
        [
          `data: ${data}`,
          'workers:',
          `  - source: ${path.relative(dir, HN)}`,
          '    processes: 2',
          '    delay: 0',
          `    api: ${a.api}`,
          '    listPages: 6',
          '',
        ].join('\n'),
      );
      const env = { HN_API_TOKEN: TOKEN };
      const child = startCli(['run', '--config', config, '--quiet'], env);
      const exited = waitExit(child);
      let pids: number[] = [];
      await waitFor(() => {
        pids = (readStatus(data)?.workers ?? []).map((w: { pid: number | null }) => w.pid).filter(Boolean);
        return pids.length === 2 && readItems(data).length >= 10;
      }, 60_000); // a deadline for a busy machine
      killed.push(...pids);
      child.kill('SIGKILL');
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      await exited;
      await waitFor(() => pids.every((p) => !pidAlive(p)));
      expect(readItems(data).length).toBeLessThan(36);
      const r = await runCli(['run', '--config', config, '--quiet'], env);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expectAllOnce(a, data);
      expectHeaders(a, TOKEN);
      // Both processes collected (partition by URL: no seeds to take a host from).
      const workers = new Set(readItems(data).map((i) => i.worker));
      expect([...workers].sort()).toEqual(['hn-api-0', 'hn-api-1']);
      expectNowhere(data, TOKEN);
    });
  });
});
