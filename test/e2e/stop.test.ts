/**
 * Stopping on a signal, as docs/operating.md promises: the first SIGINT/SIGTERM lets in-flight requests
 * finish for at most 10 s (the join timeout), a second one abandons them at once; either way the
 * state stays consistent and `--resume` fetches what was abandoned, every URL exactly once. For
 * one process (`crawl --processes 1`) and for a supervisor with two workers.
 *
 * The server holds two requests open: `held.html` until the test lets it go (after the signal,
 * so its answer can only come during the drain) and `hang.html` until the server closes, so only
 * the crawler can end it. The tests run concurrently (each waits 10 s at most for the drain).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { crawlArgs, readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

/** The join timeout docs/operating.md documents, ms. */
const JOIN_TIMEOUT = 10_000;
const LEAVES = ['held.html', 'hang.html', 'l1.html', 'l2.html', 'l3.html'];

interface HoldingSite {
  server: FixtureServer;
  /** Answer `held.html` now. */
  release(): void;
  /** From now on, `hang.html` answers at once (for the resume). */
  unhang(): void;
  all(): string[];
}

/** A holding site for one test, closed when that test ends. */
async function holdingSite(ctx: TestContext): Promise<HoldingSite> {
  let release: () => void = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  let hanging = true;
  const server = await startServer(
    {
      '/': html(page('Home', LEAVES)),
      '/held.html': (req, res) => {
        if (hanging) held.then(() => html(page('Held'))(req, res));
        else html(page('Held'))(req, res);
      },
      '/hang.html': (req, res) => {
        if (!hanging) html(page('Hang'))(req, res);
        // else: accepted, never answered
      },
    },
    (req, res) => html(page(req.url ?? ''))(req, res),
  );
  // the test's own hook: with concurrent tests, the global one may belong to another test
  ctx.onTestFinished(() => server.close());
  return {
    server,
    release,
    unhang: () => {
      hanging = false;
      release();
    },
    all: () => ['/', ...LEAVES.map((l) => `/${l}`)].map((p) => server.origin + p),
  };
}

/**
 * Crawl arguments: no delay, robots off, two requests at once per process (held, hang), and a
 * request timeout far beyond the test, so only the stop can end `hang.html`.
 */
function args(site: HoldingSite, out: string, processes: number): string[] {
  return [
    ...crawlArgs(`${site.server.origin}/`, out, '--no-robots', '--timeout', '600s'),
    '--host-concurrency',
    String(2 * processes),
    '--processes',
    String(processes),
  ];
}

/**
 * A crawl still running this long after both requests were held (the test signals it then) is
 * stuck: the drain is 10 s at most, and `hang.html` would hold it for the 600 s request timeout.
 * Counted from the hold, not from the start: a loaded machine may take most of a minute to start
 * the crawl and reach the hold.
 */
const DEADLINE_MS = 4 * JOIN_TIMEOUT;

/** Start a crawl and wait until both held requests have reached the server. */
async function crawlUntilHeld(site: HoldingSite, processes: number) {
  const out = tempDir('collector-stop-');
  const child = startCli(args(site, out, processes));
  let deadline: NodeJS.Timeout | undefined;
  const exited = waitExit(child).then((r) => {
    clearTimeout(deadline);
    expect(
      r.signal,
      `ended by a signal (SIGKILL: still running ${DEADLINE_MS} ms after both requests were held)`,
    ).toBeNull();
    return r;
  });
  await waitFor(() => site.server.hits('/held.html') === 1 && site.server.hits('/hang.html') === 1);
  deadline = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
  return { out, child, exited };
}

/** URLs of the items in `out`. */
const urls = (out: string) => readItems(out).map((i) => i.url as string);

/** `--resume` fetches what the stop left, and every URL ends in the items exactly once. */
async function resumeCompletes(site: HoldingSite, out: string, processes: number): Promise<void> {
  site.unhang();
  const r = await runCli([...args(site, out, processes), '--resume']);
  expect(r.code, r.stderr).toBe(0);
  expect(urls(out).sort()).toEqual(site.all().sort());
}

describe.concurrent.each([1, 2])('stop on a signal (%i process(es))', (processes) => {
  it('first signal: an in-flight request answering during the drain is kept; one that never answers is abandoned at 10 s', async (ctx) => {
    const site = await holdingSite(ctx);
    const { out, child, exited } = await crawlUntilHeld(site, processes);
    const t0 = performance.now();
    child.kill('SIGTERM');
    // answered 500 ms after the signal: within the drain, so it is collected
    setTimeout(site.release, 500);
    const r = await exited;
    const took = performance.now() - t0;
    expect(r.code).toBe(0);
    // it waited for hang.html up to the join timeout (the crawler's clock starts after the signal)
    expect(took).toBeGreaterThanOrEqual(JOIN_TIMEOUT - 100);
    // and then gave up on it: it exited by itself (not killed at DEADLINE_MS), long before the
    // request timeout would have ended hang.html
    const got = urls(out);
    expect(got).toContain(`${site.server.origin}/held.html`);
    expect(got).not.toContain(`${site.server.origin}/hang.html`);
    expect(new Set(got).size).toBe(got.length);
    expect(site.server.requestsFor('/hang.html')[0].closedAt).not.toBeNull();
    expect(fs.existsSync(path.join(out, 'collector.pid'))).toBe(false);
    await resumeCompletes(site, out, processes);
  });

  it('second signal: in-flight requests are abandoned at once, and --resume fetches them', async (ctx) => {
    const site = await holdingSite(ctx);
    const { out, child, exited } = await crawlUntilHeld(site, processes);
    child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    const second = performance.now();
    child.kill('SIGINT');
    const r = await exited;
    expect(r.code).toBe(0);
    // hang.html was cut by the crawler, long before the drain's 10 s would have ended
    const closed = site.server.requestsFor('/hang.html')[0].closedAt as number;
    expect(closed).not.toBeNull();
    expect(closed - second).toBeLessThan(JOIN_TIMEOUT - 1000);
    const got = urls(out);
    expect(got).not.toContain(`${site.server.origin}/held.html`);
    expect(got).not.toContain(`${site.server.origin}/hang.html`);
    expect(new Set(got).size).toBe(got.length);
    await resumeCompletes(site, out, processes);
    // the abandoned ones were fetched again; with one process, which flushes its state, nothing
    // else (killed workers also fetch again what they had not saved yet)
    expect(site.server.hits('/held.html')).toBe(2);
    expect(site.server.hits('/hang.html')).toBe(2);
    if (processes === 1) expect(site.server.requests).toHaveLength(site.all().length + 2);
  });
});

describe('stop on a signal: a worker that cannot stop by itself', () => {
  it('is killed by the supervisor at the join timeout (stragglers), and --resume completes', async (ctx) => {
    const site = await holdingSite(ctx);
    const { out, child, exited } = await crawlUntilHeld(site, 2);
    const status = JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8'));
    const pids = status.workers.map((w: { pid: number }) => w.pid) as number[];
    expect(pids).toHaveLength(2);
    // A stopped process runs no code: it can neither drain nor exit until it is killed.
    process.kill(pids[0], 'SIGSTOP');
    const t0 = performance.now();
    child.kill('SIGTERM');
    const r = await exited;
    const took = performance.now() - t0;
    expect(r.code).toBe(0);
    expect(took).toBeGreaterThanOrEqual(JOIN_TIMEOUT - 100);
    const log = fs.readFileSync(path.join(out, 'logs', 'supervisor.log'), 'utf8');
    const exits = log
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.msg === 'worker exited');
    expect(exits.find((e) => e.child === status.workers[0].id)?.signal).toBe('SIGKILL');
    await resumeCompletes(site, out, 2);
  });
});
