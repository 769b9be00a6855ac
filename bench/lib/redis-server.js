/**
 * A redis-server of the benchmarks' own (Debian's package): no persistence, on a free loopback
 * port, data dir in a temp dir; `stop()` ends it by PID and removes the dir. Waits (at most 10 s)
 * until it answers PING.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sleep } from './proc.js';

/** A free TCP port on 127.0.0.1 (bound, then released: redis-server cannot take port 0). */
export async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** `redis-cli -p PORT ARGS…`, its stdout (throws when redis-cli fails). */
export function redisCli(port, ...args) {
  return execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });
}

/**
 * Start redis-server. @returns {{ port: number, url: string, stop(): void }}
 * @throws when it does not answer within 10 s (not installed: apt-get install redis-server).
 */
export async function startBenchRedis() {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'collector-bench-redis-'));
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const stop = () => {
    if (server.exitCode === null && server.pid) process.kill(server.pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 100; i++) {
    try {
      if (redisCli(port, 'ping').trim() === 'PONG') return { port, url: `redis://127.0.0.1:${port}/0`, stop };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  stop();
  throw new Error('redis-server did not answer within 10 s (apt-get install redis-server redis-tools)');
}
