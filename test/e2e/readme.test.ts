/**
 * The README as a new user meets it in a fresh clone: the set-up is two commands (`npm run demo`
 * is run by demo.test.ts; `npm ci` and `npm test` are what CI does on a clean clone), the first
 * recipe runs with `npx collector` from the clone (against a local site instead of the example
 * one), and the item the README shows has the fields such a crawl writes. Every other command of
 * README.md and docs/ is run by test/docs/commands.test.ts, and their links are checked by
 * test/docs/links.test.ts.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, html, startServer } from '../fixtures/site-server.js';

const root = path.resolve(import.meta.dirname, '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

/** The README's fenced blocks whose info string is `info`, each as its lines (blank ones out). */
function blocks(info: string): string[][] {
  return [...readme.matchAll(new RegExp(`^\`\`\`${info}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((m) =>
    m[1].split('\n').filter((l) => l.trim()),
  );
}

/** A line without its trailing `# comment`. */
function command(line: string): string {
  return line.replace(/\s+#.*$/, '').trim();
}

/** A documentation page with a language, prose and code, as the README's example item comes from. */
function docPage(title: string, links: string[] = []): string {
  const prose =
    'Install the collector from a clone, build it once, and point it at the documentation you want to keep. Every page it fetches is stored as served, with its main content as Markdown beside it.';
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${prose}</p><pre><code class="language-sh">npm ci</code></pre>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;
}

describe('README set-up and first recipe', () => {
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startServer({
      '/docs/': html(docPage('Docs', ['install.html'])),
      '/docs/install.html': html(docPage('Installing')),
    });
  });
  afterAll(async () => {
    await site.close();
  });

  it('is two commands, install and run the demo, then the tests', () => {
    expect(blocks('sh')[0].map(command)).toEqual(['npm ci && npm run demo', 'npm test']);
    expect(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.demo).toBe(
      'node demo/run.mjs',
    );
  });

  it('its first recipe runs from the clone with npx, and writes items like the one it shows', async () => {
    const recipe = blocks('sh runnable').slice(0, 2).flat().map(command);
    expect(recipe).toEqual([
      'npx collector crawl https://www.example.org/docs/ --out data',
      'npx collector crawl https://www.example.org/docs/ --out docs-data --markdown all',
    ]);
    const shown = JSON.parse(blocks('json')[0].join('\n'));
    for (const line of recipe) {
      const out = path.join(tempDir('collector-readme-'), 'out');
      const args = line
        .split(/\s+/)
        .slice(2)
        .map((a) =>
          a.startsWith('https://') ? `${site.origin}/docs/` : a === 'data' || a === 'docs-data' ? out : a,
        );
      const built = () => fs.statSync(path.join(root, 'dist/cli/main.js')).mtimeMs;
      const before = built();
      const r = await promisify(execFile)('npx', ['collector', ...args], { cwd: root });
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
      if (line.includes('--markdown all')) {
        // The README's item has exactly the fields of the same page's item, data included.
        const install = items.find((i) => i.url.endsWith('/docs/install.html'));
        expect(Object.keys(install ?? {}).sort()).toEqual(Object.keys(shown).sort());
        expect(Object.keys(install?.data ?? {}).sort()).toEqual(Object.keys(shown.data).sort());
        expect(install?.file).toMatch(/\/docs\/install\.html$/);
        expect(install?.data.markdown).toMatch(/\/docs\/install\.html\.md$/);
      }
    }
  });

  it("its recipes write nowhere in the clone's own files (run from the clone, --out docs wrote into docs/)", () => {
    // the top-level names of the files git tracks (a stray ./data or pages.csv of a reader's own run is no matter)
    const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n');
    const tracked = new Set(files.filter(Boolean).map((f) => f.split('/')[0]));
    expect(tracked.has('README.md')).toBe(true);
    const dirs = blocks('sh runnable')
      .flat()
      .map(command)
      .flatMap((line) => [...line.matchAll(/(?:^|\s)(?:--out|-o|--data)\s+(\S+)/g)].map((m) => m[1]));
    expect(dirs.length).toBeGreaterThan(3);
    for (const dir of dirs) expect(tracked.has(dir.split('/')[0]), dir).toBe(false);
  });
});
