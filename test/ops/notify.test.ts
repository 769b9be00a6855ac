import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { notify } from '../../src/ops/notify.js';
import { runCli, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, startServer } from '../fixtures/site-server.js';

let hook: FixtureServer;
const bodies: string[] = [];

beforeAll(async () => {
  hook = await startServer({
    '/hook': (req, res) => {
      let b = '';
      req.on('data', (d) => {
        b += d;
      });
      req.on('end', () => {
        bodies.push(b);
        res.writeHead(204);
        res.end();
      });
    },
    '/broken': (_req, res) => {
      res.writeHead(500);
      res.end();
    },
  });
});

afterAll(async () => {
  await hook.close();
});

describe('notify', () => {
  it('stdout, a command with the message on stdin, and a webhook with JSON', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'msg.txt');
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      const failures = await notify(
        'data: 412 MB',
        { command: `cat > ${out}`, webhook: `${hook.origin}/hook` },
        { kind: 'size', dataDir: '/srv/data' },
      );
      expect(failures).toEqual([]);
      expect(write).toHaveBeenCalledWith('data: 412 MB\n');
    } finally {
      write.mockRestore();
    }
    expect(fs.readFileSync(out, 'utf8')).toBe('data: 412 MB\n');
    const sent = JSON.parse(bodies.at(-1) as string);
    expect(sent).toMatchObject({ text: 'data: 412 MB', kind: 'size', dataDir: '/srv/data' });
    expect(typeof sent.host).toBe('string');
    expect(Number.isNaN(Date.parse(sent.at))).toBe(false);
    expect(hook.requestsFor('/hook').at(-1)?.headers['content-type']).toBe('application/json');
  });

  it('a failing command or webhook is one line on stderr each, and the message still went to stdout', async () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const failures = await notify(
        'x',
        { command: 'exit 7', webhook: `${hook.origin}/broken` },
        { kind: 'watchdog', dataDir: '/d' },
        false,
      );
      expect(failures.sort()).toEqual(['notify.command failed: exit 7', 'notify.webhook failed: HTTP 500']);
      expect(err).toHaveBeenCalledTimes(2);
    } finally {
      err.mockRestore();
    }
  });

  it('the watchdog sends its line to the notify: of the config the collector ran with', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'collector.yaml');
    fs.writeFileSync(
      config,
      `data: ${dir}/data\nnotify: { webhook: ${hook.origin}/hook }\nworkers:\n  - { source: crawl, seeds: [http://127.0.0.1:9/] }\n`,
    );
    fs.mkdirSync(path.join(dir, 'data'));
    const before = bodies.length;
    const r = await runCli(['watchdog', '--data', path.join(dir, 'data'), '--config', config]);
    expect(r.stdout).toMatch(/^not running: /);
    expect(bodies.length).toBe(before + 1);
    expect(JSON.parse(bodies.at(-1) as string)).toMatchObject({ kind: 'watchdog', text: r.stdout.trimEnd() });
  });
});
