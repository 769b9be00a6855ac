/**
 * The README's commands, as a new user meets them in a fresh clone: the set-up blocks are the ones
 * tested here (the crawl run with `npx collector`, against a local fixture instead of the example
 * site; `npm run demo` in demo.test.ts; `npm ci` and `npm test` are what .ci/run does on a clean
 * clone), every `collector` subcommand the README shows exists, and no link or command points
 * outside the repository.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, runCli, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

const root = path.resolve(import.meta.dirname, '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

/** The ```sh blocks of the README (or every fenced block), each as its lines. */
function shBlocks(all = false): string[][] {
  const fence = all ? /```\w*\n([\s\S]*?)```/g : /```sh\n([\s\S]*?)```/g;
  return [...readme.matchAll(fence)].map((m) => m[1].split('\n').filter((l) => l.trim()));
}

/** A line without its trailing `# comment`. */
function command(line: string): string {
  return line.replace(/\s+#.*$/, '').trim();
}

describe('README set-up', () => {
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startServer({
      '/docs/': html(page('Docs', ['a.html'])),
      '/docs/a.html': html(page('A')),
    });
  });
  afterAll(async () => {
    await site.close();
  });

  it('is two commands, install and run the demo, then the tests; then a crawl with npx collector', () => {
    expect(shBlocks()[0].map(command)).toEqual(['npm ci && npm run demo', 'npm test']);
    expect(shBlocks()[1].map(command)).toEqual([
      'npx collector crawl https://www.example.org/docs/ --out data',
      'npx collector crawl https://www.example.org/docs/ --out data --markdown all',
    ]);
    expect(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.demo).toBe(
      'node demo/run.mjs',
    );
  });

  it('its crawl commands run from the clone with npx (the site replaced by a local one)', async () => {
    for (const line of shBlocks()[1].map(command)) {
      const out = path.join(tempDir('collector-readme-'), 'data');
      const args = line
        .split(/\s+/)
        .slice(2)
        .map((a) => (a.startsWith('https://') ? `${site.origin}/docs/` : a === 'data' ? out : a));
      const built = () => fs.statSync(path.join(root, 'dist/cli/main.js')).mtimeMs;
      const before = built();
      const r = await promisify(execFile)('npx', ['collector', ...args, '--delay', '0'], { cwd: root });
      // npx links the clone into its cache and runs its prepare: a fresh dist/ is not rebuilt.
      expect(built()).toBe(before);
      expect(r.stderr).toMatch(/2 items this run \(2 total\), 0 errors/);
      const items = readItems(out);
      expect(items.map((i) => i.status)).toEqual([200, 200]);
      // with --markdown all, each page's main content beside it
      const markdown = items.filter((i) => i.data?.markdown !== undefined);
      expect(markdown.length).toBe(line.includes('--markdown all') ? 2 : 0);
      for (const i of markdown)
        expect(fs.readFileSync(path.join(out, i.data.markdown), 'utf8')).toMatch(/^# /);
    }
  });
});

describe('README commands and links', () => {
  it('shows only collector subcommands that exist', async () => {
    const subs = new Set<string>();
    for (const block of shBlocks(true)) {
      for (const line of block) {
        const m = /^(?:\$ )?(?:sudo )?(?:npx )?collector (\w[\w-]*)/.exec(command(line));
        if (m) subs.add(m[1]);
      }
    }
    expect([...subs]).toEqual(expect.arrayContaining(['crawl', 'run', 'status', 'plan', 'install']));
    for (const sub of subs) {
      const r = await runCli([sub, '--help']);
      expect(r.code, `collector ${sub} --help`).toBe(0);
      // An unknown command would print the program's help instead.
      expect(r.stdout).toMatch(new RegExp(`^Usage: collector ${sub} `));
    }
  });

  it('links only to files of the repository, and runs nothing outside it', () => {
    expect(readme).not.toMatch(/\.\.\/shared|\]\(\.\.\//);
    const targets = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1])
      .filter((t) => !/^[a-z]+:/i.test(t));
    expect(targets.length).toBeGreaterThan(0);
    for (const t of targets) expect(fs.existsSync(path.join(root, t)), t).toBe(true);
  });
});
