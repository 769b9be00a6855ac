/**
 * A seed host that does not answer (issue 15, points 1 and 2): `collector crawl` says why at once
 * — a warning line per retry, with the real cause, not a robots.txt verdict — gives up after the
 * documented retry schedule, and exits 69 (nothing collected: every seed failed), naming the
 * seed and the cause. A crawl where some seed succeeded exits 0.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, startCli, tempDir, waitExit } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

/** A loopback port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** Run a crawl, noting when its first stderr line came (ms after the start). */
async function crawl(args: string[]) {
  const out = tempDir('collector-dead-');
  const t0 = performance.now();
  const child = startCli(['crawl', ...args, '--out', out]);
  const first: { ms: number | null } = { ms: null };
  child.stderr?.on('data', () => {
    first.ms ??= performance.now() - t0;
  });
  const result = await waitExit(child);
  return { result, firstLineMs: first.ms, items: readItems(out), ms: performance.now() - t0 };
}

describe('a seed host that does not answer', () => {
  it('connection refused: a warning at once, the real cause after the retries, exit 69', async () => {
    const port = await deadPort();
    // Default options: robots.txt obeyed, --retries 3, --retry-backoff 1s.
    const r = await crawl([`http://127.0.0.1:${port}/`, '--processes', '1']);
    expect(r.result.code).toBe(69);
    const lines = r.result.stderr.trim().split('\n');
    // "says why within 10 s": the first line is the warning, long before the retries are over
    expect(r.firstLineMs).not.toBeNull();
    expect(r.firstLineMs as number).toBeLessThan(10_000);
    expect(lines[0]).toMatch(
      new RegExp(
        `^collector: 127\\.0\\.0\\.1:${port}: connection refused, retrying in \\d+\\.\\d s \\(1/3\\)$`,
      ),
    );
    expect(lines[1]).toMatch(/connection refused, retrying in \d+\.\d s \(2\/3\)$/);
    expect(lines[2]).toMatch(/connection refused, retrying in \d+\.\d s \(3\/3\)$/);
    expect(lines[3]).toMatch(/^collector: 1 items this run \(1 total\), 1 errors, 0 queued/);
    expect(lines[4]).toBe(
      `collector: nothing collected: every seed failed: http://127.0.0.1:${port}/: connection refused (connect ECONNREFUSED 127.0.0.1:${port}); fetching robots.txt`,
    );
    expect(lines).toHaveLength(5);
    expect(r.items).toHaveLength(1);
    expect(r.items[0]).toMatchObject({
      status: null,
      error: {
        kind: 'network',
        message: expect.stringMatching(/^connection refused \(connect ECONNREFUSED/),
      },
    });
  });

  it('a name that cannot resolve (.invalid, RFC 6761, answered without a query): kind dns, exit 69', async () => {
    const r = await crawl([
      'http://nonexistent.invalid/docs/',
      '--processes',
      '1',
      '--retry-backoff',
      '50ms',
    ]);
    expect(r.result.code).toBe(69);
    expect(r.result.stderr).toMatch(
      /^collector: nonexistent\.invalid: name not resolved, retrying in 0\.\d s \(1\/3\)$/m,
    );
    expect(r.result.stderr).toMatch(
      /nothing collected: every seed failed: http:\/\/nonexistent\.invalid\/docs\/: name not resolved \(getaddrinfo ENOTFOUND nonexistent\.invalid\); fetching robots\.txt$/m,
    );
    expect(r.items[0]).toMatchObject({ status: null, error: { kind: 'dns' } });
  });

  it('with several processes and without robots.txt: the same warning and exit 69', async () => {
    const port = await deadPort();
    const r = await crawl([
      `http://127.0.0.1:${port}/a/`,
      `http://127.0.0.2:${port}/b/`,
      '--processes',
      '2',
      '--no-robots',
      '--retries',
      '1',
      '--retry-backoff',
      '50ms',
    ]);
    expect(r.result.code).toBe(69);
    expect(r.result.stderr).toMatch(
      new RegExp(`^collector: 127\\.0\\.0\\.1:${port}: connection refused, retrying in`, 'm'),
    );
    expect(r.result.stderr).toMatch(
      new RegExp(`^collector: 127\\.0\\.0\\.2:${port}: connection refused, retrying in`, 'm'),
    );
    expect(r.result.stderr).toMatch(
      /nothing collected: every seed failed: http:\/\/127\.0\.0\.\d:\d+\/[ab]\/: connection refused/,
    );
    expect(r.items.map((i) => i.error?.kind)).toEqual(['network', 'network']);
  });
});

describe('seeds that fail with an answer', () => {
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startServer({ '/ok/': html(page('OK')) });
  });
  afterAll(async () => {
    await site.close();
  });

  it('a 404 seed: exit 69, and no warning (the host answered)', async () => {
    const r = await crawl([`${site.origin}/missing/`, '--processes', '1', '--delay', '0']);
    expect(r.result.code).toBe(69);
    expect(r.result.stderr).not.toMatch(/retrying/);
    expect(r.result.stderr).toMatch(
      /nothing collected: every seed failed: http:\/\/127\.0\.0\.1:\d+\/missing\/: HTTP 404$/m,
    );
  });

  it('one seed collected, one failed: exit 0', async () => {
    const r = await crawl([
      `${site.origin}/ok/`,
      `${site.origin}/missing/`,
      '--processes',
      '1',
      '--delay',
      '0',
    ]);
    expect(r.result.code).toBe(0);
    expect(r.result.stderr).not.toMatch(/nothing collected/);
  });
});
