import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostKey } from '../../src/url/canonicalize.js';
import { hash32 } from '../../src/url/fingerprint.js';
import { readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type FixtureServer, html, page, type Route, startServer } from '../fixtures/site-server.js';
import { testSource } from '../fixtures/test-sources.js';

// Restarts: a worker crashing in a loop is parked and reported; a worker with work and no
// progress (a request that never answers) is restarted.
let silent: net.Server;
let silentPort = 0;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  silent = net.createServer((s) => {
    sockets.add(s); // accept, never answer
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentPort = (silent.address() as net.AddressInfo).port;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => silent.close(r));
});

function writeConfig(lines: string[]): { dir: string; file: string; data: string } {
  const dir = tempDir();
  const data = path.join(dir, 'data');
  const file = path.join(dir, 'collector.yaml');
  fs.writeFileSync(file, [`data: ${data}`, ...lines, ''].join('\n'));
  return { dir, file, data };
}

const status = (data: string) => JSON.parse(fs.readFileSync(path.join(data, 'status.json'), 'utf8'));

/** Pids of the live processes whose parent is `pid` (from /proc). */
function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid && fields[0] !== 'Z') out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe('supervisor restarts', () => {
  it('parks a worker that crashes in a loop, reports it, and exits 1', async () => {
    const { file, data } = writeConfig([
      'supervisor: { restartBackoff: 50ms, maxCrashes: 3 }',
      'workers:',
      `  - source: ${testSource('crash-loop')}`,
      '    processes: 1',
      '    robots: false',
      `    seeds: ["http://127.0.0.1:${silentPort}/"]`,
    ]);
    const r = await runCli(['run', '--config', file, '--quiet']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/worker crash-loop-0 crashed 3 times; parked/);
    const s = status(data);
    expect(s.workers[0]).toMatchObject({ id: 'crash-loop-0', state: 'parked', restarts: 2 });
    expect(s.totals.parked).toBe(1);
  });

  it('restarts a worker that has work but makes no progress', async () => {
    const { file, data } = writeConfig([
      // joinTimeout: the SIGTERM at the end need not wait out the request that never answers.
      'supervisor: { stallTimeout: 1500ms, joinTimeout: 1s }',
      'workers:',
      '  - source: crawl',
      '    processes: 1',
      '    robots: false',
      '    timeout: 60s',
      `    seeds: ["http://127.0.0.1:${silentPort}/"]`,
    ]);
    const child = startCli(['run', '--config', file, '--quiet']);
    const exited = waitExit(child);
    await waitFor(
      () => fs.existsSync(path.join(data, 'status.json')) && status(data).workers[0].restarts >= 1,
    );
    expect(status(data).workers[0].lastError).toMatch(/no progress for \d+ s with work pending/);
    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
  });
});

describe('handoff after a restart', () => {
  it("links handed to a worker while it was down reach it from the sender's handoff log", async () => {
    // Two hosts owned by different workers (partition host: hash(host) mod 2); a server's routes
    // are filled once its port, and so its owner, is known.
    const owner = (origin: string) => hash32(hostKey(`${origin}/`)) % 2;
    const servers: Array<{ server: FixtureServer; routes: Record<string, Route> }> = [];
    let releaseGate: () => void = () => {};
    const gate = new Promise<void>((r) => {
      releaseGate = r;
    });
    try {
      for (let i = 21; servers.length < 2 && i < 60; i++) {
        const routes: Record<string, Route> = {};
        const server = await startServer(routes, undefined, `127.0.0.${i}`);
        if (servers.length === 1 && owner(server.origin) === owner(servers[0].server.origin))
          await server.close();
        else servers.push({ server, routes });
      }
      const [a, b] = servers;
      const A = a.server.origin;
      const B = b.server.origin;
      expect(owner(A)).not.toBe(owner(B));
      // A's seed links gate.html, answered when the test says, which links a page on B.
      a.routes['/'] = html(page('A', ['gate.html']));
      a.routes['/gate.html'] = (req, res) =>
        void gate.then(() => html(page('Gate', [`${B}/new.html`]))(req, res));
      b.routes['/'] = html(page('B'));
      b.routes['/new.html'] = html(page('New on B'));
      const { file, data } = writeConfig([
        // B's worker stays down 15 s after its crash: the handoff happens meanwhile (checked below)
        'supervisor: { restartBackoff: 15s }',
        'workers:',
        '  - source: crawl',
        '    processes: 2',
        '    partition: host',
        '    scope: any',
        '    delay: 0',
        '    robots: false',
        `    seeds: ["${A}/", "${B}/"]`,
      ]);
      const child = startCli(['run', '--config', file, '--quiet']);
      const exited = waitExit(child);
      await waitFor(() => a.server.hits('/gate.html') === 1 && b.server.hits('/') === 1);
      await waitFor(
        () => fs.existsSync(path.join(data, 'status.json')) && status(data).workers[1].pid !== null,
      );
      const victim = status(data).workers[owner(B)];
      process.kill(victim.pid, 'SIGKILL');
      const log = path.join(data, 'logs', 'supervisor.log');
      await waitFor(
        () => fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('worker crashed; restarting'),
      );
      // B's worker is down: A's worker now finds B/new.html and hands it over; the supervisor
      // cannot deliver it, A's worker keeps it in state/<A's worker>/handoff-<B's>.log
      releaseGate();
      const items = path.join(data, 'items', `${status(data).workers[owner(A)].id}.jsonl`);
      await waitFor(() => fs.existsSync(items) && fs.readFileSync(items, 'utf8').includes('/gate.html'));
      // The handoff went out before gate.html's item was written: B's worker must still be down
      // then (the supervisor's only child is A's worker), or this test proves nothing.
      expect(childPids(child.pid as number), 'B restarted before the handoff: raise restartBackoff').toEqual([
        status(data).workers[owner(A)].pid,
      ]);
      const r = await exited;
      expect(r.code).toBe(0);
      expect(b.server.hits('/new.html')).toBe(1);
      const urls = readItems(data).map((i) => i.url);
      expect(urls.sort()).toEqual([`${A}/`, `${A}/gate.html`, `${B}/`, `${B}/new.html`].sort());
      expect(status(data).workers[owner(B)].restarts).toBe(1);
    } finally {
      releaseGate();
      await Promise.all(servers.map((s) => s.server.close()));
    }
  });
});
