import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELP_EXAMPLES } from '../../src/cli/help-examples.js';
import { buildProgram } from '../../src/cli/program.js';
import { readItems, runCli, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

// Issue 30: no examples in any --help, no short flags, and `run` had no --metrics.
let site: FixtureServer;
beforeAll(async () => {
  site = await startServer({
    '/': html(page('Home', ['/a', '/b', '/c'])),
    '/a': html(page('A')),
    '/b': html(page('B')),
    '/c': html(page('C')),
  });
});
afterAll(async () => {
  await site.close();
});

describe('--help', () => {
  const program = buildProgram();

  it('every command ends with examples whose flags it has', () => {
    for (const command of program.commands) {
      const lines = HELP_EXAMPLES[command.name()];
      expect(lines, `examples of ${command.name()}`).toBeDefined();
      expect(lines!.length).toBeGreaterThanOrEqual(1);
      const flags = new Set(command.options.flatMap((o) => [o.long, o.short]).filter(Boolean));
      for (const line of lines!) {
        expect(line, line).toMatch(new RegExp(`^(sudo )?collector ${command.name()}\\b`));
        const used = line.replace(/#.*$/, '').match(/(?<=\s)--?[a-z][a-z-]*/g) ?? [];
        for (const flag of used) expect(flags.has(flag), `${command.name()} ${flag}`).toBe(true);
      }
    }
  });

  it('is printed with the examples, and a closed pipe ends it quietly', async () => {
    const r = await runCli(['crawl', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /\nExamples:\n {2}\$ collector crawl https:\/\/docs\.example\.org\/ -o docs-data --markdown all/,
    );
  });
});

describe('short flags', () => {
  it('crawl: -o for --out, -n for --max-pages, -q for --quiet', async () => {
    const out = tempDir();
    const r = await runCli([
      'crawl',
      `${site.origin}/`,
      '-o',
      out,
      '-n',
      '2',
      '-q',
      '--delay',
      '0',
      '--no-robots',
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(readItems(out)).toHaveLength(2);
  });

  it('run: -c for --config, -q for --quiet, and --metrics like crawl', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'c.yaml');
    fs.writeFileSync(
      file,
      `data: ${dir}/data\nworkers:\n  - source: crawl\n    robots: false\n    delay: 0\n    seeds: ["${site.origin}/"]\n`,
    );
    const r = await runCli(['run', '-c', file, '--metrics', '127.0.0.1:0']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/metrics at http:\/\/127\.0\.0\.1:\d+\/metrics/);
    expect(readItems(path.join(dir, 'data'))).toHaveLength(4);
    const bad = await runCli(['run', '-c', file, '--metrics', 'nowhere']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^collector: option '--metrics <host:port>' argument 'nowhere' is invalid\. expected HOST:PORT/,
    );
    const open = await runCli(['run', '-c', file, '-q', '--metrics', '0.0.0.0:0']);
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/metrics 0\.0\.0\.0:0: not a loopback address/);
  });
});

describe('--data of the ops commands', () => {
  it('a file, or a path under one, is one usage line (exit 2), never an ENOTDIR stack trace', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, 'not a data directory');
    const runs = ['status', 'watchdog', 'size', 'export'].flatMap((command) =>
      [file, path.join(file, 'sub')].map(async (data) => ({
        command,
        data,
        r: await runCli([command, '--data', data]),
      })),
    );
    for (const { command, data, r } of await Promise.all(runs)) {
      expect(r.code, `${command} --data ${data}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(
        /^collector: --data \S+: (is a file, not a directory|is under a file|not found)/,
      );
      expect(r.stderr.trim().split('\n'), `${command}: ${r.stderr}`).toHaveLength(1);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('not a data directory');
  });
});
