/**
 * What `npm pack` ships, and that it runs on its own: the bundle, the status page, the command and
 * the README, no per-module compiler output and no source maps; only the dependencies the bundle
 * loads at run time (the rest is inside it); no install script a user must approve. The packed
 * package is unpacked beside its runtime dependencies alone (no dev dependency reachable) and
 * crawls a fixture site through every lazily loaded dependency (robots-parser, iconv-lite,
 * whatwg-encoding, tldts, tough-cookie).
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** `npm pack --dry-run --json`: the files the tarball would hold (no build: the suite built). */
function packedFiles(): Array<{ path: string; size: number }> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
  });
  return JSON.parse(out)[0].files;
}

/**
 * Bare module names the bundle loads at run time (`require("x")` through createRequire,
 * `import("x")`, and `import.meta.resolve("x")`, how language.ts finds ESM-only eld's entry to
 * load it with require(esm)).
 */
function runtimeRequires(): Set<string> {
  const names = new Set<string>();
  const dir = path.join(root, 'dist/bundle');
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.js'))) {
    const code = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const m of code.matchAll(
      /(?:\brequire\d*\(|createRequire\d*\(import\.meta\.url\)\(|\bimport\(|import\.meta\.resolve\()"([^"./][^"]*)"\)/g,
    )) {
      const spec = m[1];
      if (spec.startsWith('node:') || BUILTINS.has(spec.split('/')[0])) continue;
      names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  }
  return names;
}

const BUILTINS = new Set(
  (await import('node:module')).builtinModules.map((m) => m.replace(/^node:/, '').split('/')[0]),
);

describe('npm pack', () => {
  it('ships the bundle, the status page, the command, examples, README and docs/; no per-module output, no source maps', () => {
    const files = packedFiles().map((f) => f.path);
    for (const f of [
      'bin/collector.js',
      'dist/bundle/main.js',
      'dist/bundle/worker-main.js',
      'dist/bundle/page-worker.js',
      'dist/bundle/body-writer.js',
      'dist/status-page.html',
      'examples/collector.yaml',
      'README.md',
      'docs/cli.md',
      'docs/operating.md',
      'package.json',
    ]) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    // tsc's per-module output (dist/engine/crawler.js ...) is for the tests, not the package.
    expect(
      files.filter(
        (f) =>
          f.startsWith('dist/') &&
          !f.startsWith('dist/bundle/') &&
          f !== 'dist/status-page.html' &&
          !f.endsWith('.d.ts'),
      ),
    ).toEqual([]);
  });

  it('depends on exactly what the bundle loads at run time; everything bundled is a dev dependency', () => {
    const runtime = runtimeRequires();
    expect([...runtime].sort()).toEqual(Object.keys(pkg.dependencies).sort());
    for (const dev of Object.keys(pkg.devDependencies)) expect(runtime.has(dev)).toBe(false);
  });

  it('has no install script a user must approve (prepare is for the clone and is renamed when packed)', () => {
    for (const s of ['preinstall', 'install', 'postinstall']) expect(pkg.scripts[s]).toBeUndefined();
    expect(pkg.scripts.prepack).toMatch(/pack-manifest\.mjs disable/);
    expect(pkg.scripts.postpack).toMatch(/pack-manifest\.mjs enable/);
    // esbuild's postinstall only checks its platform binary, which npm ci installs as an optional
    // dependency: denied, so npm ci has nothing to ask.
    expect(pkg.allowScripts).toEqual({ esbuild: false });
  });

  it('prepare builds only a missing or stale dist/ (npx collector in a clone runs it)', () => {
    expect(pkg.scripts.prepare).toBe('node scripts/prepare.mjs');
    const built = () => fs.statSync(path.join(root, 'dist/cli/main.js')).mtimeMs;
    const before = built();
    execFileSync(process.execPath, [path.join(root, 'scripts/prepare.mjs')], { cwd: root, stdio: 'ignore' });
    expect(built()).toBe(before);
  });
});

describe('the packed package, installed beside its runtime dependencies only', () => {
  let site: FixtureServer;
  let prefix: string;

  beforeAll(async () => {
    prefix = tempDir('collector-pack-');
    // npm pack as `prepack` leaves it after the build (the suite built dist/): in a copy of the
    // packable files, so that this checkout's package.json is never touched while tests read it.
    const stage = path.join(prefix, 'stage');
    for (const f of [
      'package.json',
      'README.md',
      'docs',
      'bin',
      'examples',
      'dist/bundle',
      'dist/status-page.html',
      'scripts/pack-manifest.mjs',
    ]) {
      fs.cpSync(path.join(root, f), path.join(stage, f), {
        recursive: true,
        filter: (src) => !src.endsWith('.map'),
      });
    }
    execFileSync(process.execPath, [path.join(stage, 'scripts/pack-manifest.mjs'), 'disable']);
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', prefix], {
      cwd: stage,
      stdio: 'ignore',
    });
    const tgz = fs.readdirSync(prefix).find((f) => f.endsWith('.tgz'));
    const target = path.join(prefix, 'node_modules', pkg.name);
    fs.mkdirSync(target, { recursive: true });
    execFileSync('tar', ['-xzf', path.join(prefix, tgz as string), '-C', target, '--strip-components=1']);
    // The manifest as packed: prepare renamed, so npm runs nothing at install.
    const packed = JSON.parse(fs.readFileSync(path.join(target, 'package.json'), 'utf8'));
    expect(packed.scripts.prepare).toBeUndefined();
    expect(packed.scripts._prepare).toBe(pkg.scripts.prepare);
    // Runtime dependencies and theirs, copied from this checkout's node_modules (no registry).
    const copy = (name: string) => {
      const to = path.join(prefix, 'node_modules', name);
      if (fs.existsSync(to)) return;
      const from = path.join(root, 'node_modules', name);
      fs.cpSync(from, to, { recursive: true });
      const deps = JSON.parse(fs.readFileSync(path.join(from, 'package.json'), 'utf8')).dependencies ?? {};
      for (const d of Object.keys(deps)) copy(d);
    };
    for (const d of Object.keys(pkg.dependencies)) copy(d);
    site = await startServer({
      '/robots.txt': (_q, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('User-agent: *\nDisallow: /private/\n');
      },
      '/docs/': html(page('Docs', ['latin1.html', '../private/x.html'])),
      '/docs/latin1.html': (_q, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' });
        res.end(Buffer.from('<title>caf\xe9</title>', 'latin1'));
      },
    });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('crawls: robots.txt, a legacy charset and scope domain work without any dev dependency', async () => {
    const bin = path.join(prefix, 'node_modules', pkg.name, 'bin', 'collector.js');
    expect(execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }).trim()).toBe(pkg.version);
    const out = path.join(prefix, 'out');
    // Not execFileSync: the fixture server runs in this process and must answer meanwhile.
    await promisify(execFile)(
      process.execPath,
      [
        bin,
        'crawl',
        `${site.origin}/docs/`,
        '--out',
        out,
        '--processes',
        '1',
        '--delay',
        '0',
        '--quiet',
        '--scope',
        'domain',
      ],
      { cwd: prefix },
    );
    const items = readItems(out);
    const byUrl = new Map(items.map((i) => [new URL(i.url).pathname, i]));
    expect(byUrl.get('/docs/latin1.html')?.title).toBe('café');
    expect(byUrl.get('/private/x.html')?.error?.kind).toBe('robots-disallowed');
    expect(byUrl.get('/docs/')?.status).toBe(200);
  });
});
