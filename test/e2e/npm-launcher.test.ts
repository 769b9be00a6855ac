import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, tempDir, waitFor } from '../fixtures/cli.js';
import { type FixtureServer, page, startServer } from '../fixtures/site-server.js';

// Issue 30: SIGTERM to `npx collector`'s own PID (what Docker, pm2, supervisord or `timeout` send)
// reached npm, which does not pass it on: the collector went on with no parent. npm runs a bin as
// `sh -c '<bin> …'` with `npm_command` in its environment; here a shell started the same way is
// killed, as npm's signal kills it, and the collector must stop by itself as for SIGTERM.
const BIN = path.resolve(import.meta.dirname, '../../bin/collector.js');
let site: FixtureServer;
const started: number[] = [];

beforeAll(async () => {
  // a big, slow site: the crawl is still running when its launcher goes away
  site = await startServer({}, (req, res) => {
    const i = Number(/^\/p\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page(`Page ${i}`, [`/p/${i + 1}`, `/p/${i + 2}`]));
    }, 100);
  });
});

afterAll(async () => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  await site.close();
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** `sh -c 'node bin/collector.js crawl …'` as npm starts a bin; the collector's pid is written to a file. */
function launch(out: string, env: NodeJS.ProcessEnv): { sh: ChildProcess; pidFile: string; errFile: string } {
  const pidFile = path.join(out, '..', `${path.basename(out)}.pid`);
  const errFile = path.join(out, '..', `${path.basename(out)}.err`);
  const cmd = `"${process.execPath}" "${BIN}" crawl ${site.origin}/p/0 --out "${out}" --delay 0 --no-robots --quiet 2>"${errFile}" & echo $! > "${pidFile}"; wait`;
  const sh = spawn('sh', ['-c', cmd], { env: { ...process.env, ...env }, stdio: 'ignore' });
  return { sh, pidFile, errFile };
}

describe('a collector started through npm', () => {
  it('stops as for SIGTERM when npm and its shell are gone: items written, lock released', async () => {
    const out = path.join(tempDir(), 'out');
    const { sh, pidFile, errFile } = launch(out, { npm_command: 'exec', npm_lifecycle_event: 'npx' });
    await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '');
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    started.push(pid);
    await waitFor(() => fs.existsSync(path.join(out, 'items')) && readItems(out).length >= 3);
    sh.kill('SIGKILL'); // npm's shell dies; nothing signals the collector
    await waitFor(() => !alive(pid), 30_000);
    expect(fs.readFileSync(errFile, 'utf8')).toContain(
      'collector: npm, which started it, is gone: stopping as for SIGTERM',
    );
    expect(fs.existsSync(path.join(out, 'collector.pid'))).toBe(false); // a graceful stop
    const urls = readItems(out).map((i) => i.url);
    expect(new Set(urls).size).toBe(urls.length);
  });

  it('a collector not started by npm goes on when its shell exits (nohup … &)', async () => {
    const out = path.join(tempDir(), 'out');
    const env = { npm_command: '', npm_lifecycle_event: '' };
    const { sh, pidFile } = launch(out, env);
    await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '');
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    started.push(pid);
    await waitFor(() => fs.existsSync(path.join(out, 'items')) && readItems(out).length >= 3);
    sh.kill('SIGKILL');
    const before = readItems(out).length;
    await waitFor(() => readItems(out).length >= before + 5, 30_000); // still collecting
    expect(alive(pid)).toBe(true);
    process.kill(pid, 'SIGTERM');
    await waitFor(() => !alive(pid), 30_000);
  });
});
