import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
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
  }, 30_000);

  it('restarts a worker that has work but makes no progress', async () => {
    const { file, data } = writeConfig([
      'supervisor: { stallTimeout: 1500ms }',
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
      15_000,
    );
    expect(status(data).workers[0].lastError).toMatch(/no progress for \d+ s with work pending/);
    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
  }, 30_000);
});
