/**
 * The package as a user gets it: `npm pack` of this repository, installed into a project outside
 * it, then a script there imports the library by the package's name and crawls with `crawl()`
 * and a source of its own, its types check against the declarations, and its `collector` binary
 * answers. The install is offline: the project gets a lockfile made from this repository's (the
 * dependencies' exact versions and integrity hashes), so `npm ci --offline` takes them from the
 * npm cache that installed this repository.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const NAME: string = pkg.name;
let site: FixtureServer;

beforeAll(async () => {
  site = await startServer({
    '/p/': html(page('Home', ['a.html', 'b.html'])),
    '/p/a.html': html(page('A', ['b.html'])),
    '/p/b.html': html(page('B')),
  });
});
afterAll(() => site.close());

/** A lockfile for a project depending on the packed tarball: this repository's entries for its dependencies. */
function projectLock(tarball: string): object {
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    '': { name: 'user-project', version: '1.0.0', dependencies: { [NAME]: spec } },
    [`node_modules/${NAME}`]: {
      version: pkg.version,
      resolved: spec,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [k, v] of Object.entries(lock.packages as Record<string, { dev?: boolean }>)) {
    if (k.startsWith('node_modules/') && !v.dev) packages[k] = v;
  }
  return { name: 'user-project', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

describe('the packed package, installed in a project outside the repository', () => {
  it('imports by its name, crawls with crawl() and its own source, type-checks, and runs its CLI', async () => {
    const project = tempDir('collector-user-');
    const { stdout } = await run(
      'npm',
      ['pack', '--ignore-scripts', '--silent', '--pack-destination', project],
      {
        cwd: ROOT,
      },
    );
    const tarball = stdout.trim().split('\n').pop() as string;
    expect(tarball).toBe(`${NAME}-${pkg.version}.tgz`);
    fs.writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({
        name: 'user-project',
        version: '1.0.0',
        type: 'module',
        dependencies: { [NAME]: `file:${tarball}` },
      }),
    );
    fs.writeFileSync(path.join(project, 'package-lock.json'), JSON.stringify(projectLock(tarball)));
    await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: project,
    });
    const installed = path.join(project, 'node_modules', NAME);
    expect(fs.existsSync(path.join(installed, 'dist', 'index.d.ts'))).toBe(true);

    fs.writeFileSync(
      path.join(project, 'use.mjs'),
      `import { crawl, defineSource, crawlSource } from '${NAME}';
const tagged = defineSource({
  name: 'tagged',
  handle: (page, ctx) => ({ ...crawlSource.handle(page, ctx), data: { len: page.text().length } }),
});
const a = await crawl({ seeds: [process.argv[2]], out: 'out-a', processes: 1, delay: 0, robots: false });
const b = await crawl({ seeds: [process.argv[2]], out: 'out-b', source: tagged, delay: 0, robots: false });
console.log(JSON.stringify([a, b]));
`,
    );
    const used = await run(process.execPath, ['use.mjs', `${site.origin}/p/`], { cwd: project });
    const [a, b] = JSON.parse(used.stdout);
    expect(a).toMatchObject({ items: 3, errors: 0, completed: true });
    expect(b).toMatchObject({ items: 3, errors: 0, completed: true });
    const item = JSON.parse(
      fs.readFileSync(path.join(project, 'out-b', 'items', 'crawl-0.jsonl'), 'utf8').split('\n')[0],
    );
    expect(item).toMatchObject({ source: 'tagged', data: { len: expect.any(Number) } });

    // The declarations the package's `exports` name.
    fs.writeFileSync(
      path.join(project, 'check.ts'),
      `import { crawl, defineSource, type Item, type Page, type CrawlSummary } from '${NAME}';
const s = defineSource({ name: 'x', handle: (p: Page) => ({ title: p.label ?? String(p.body.length), follow: [{ url: 'a', label: 'l' }] }) });
const summary: Promise<CrawlSummary> = crawl({ seeds: ['http://127.0.0.1/'], source: s, maxPages: 1 });
const it: Item | null = null;
void summary;
void it;
`,
    );
    // The tsconfig a new project gets from `tsc --init`, as it is (no "types": ["node"]).
    await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '--init'], {
      cwd: project,
    });
    await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], {
      cwd: project,
    });

    const cli = await run(process.execPath, [path.join(installed, 'bin', 'collector.js'), '--version']);
    expect(cli.stdout.trim()).toBe(pkg.version);
  });
});
