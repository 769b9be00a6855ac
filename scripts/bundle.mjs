#!/usr/bin/env node
/**
 * Bundles the CLI and its thread/process entry points into `dist/bundle/` (esbuild, ESM, shared
 * chunks), which `bin/collector.js` runs. One file graph instead of ~60 modules of ours and
 * several hundred of the dependencies: Node 20 has no module compile cache, and resolving and
 * compiling them took ~60 ms of every process start (the CLI, each `run` worker, each page thread).
 *
 * The entry points sit side by side in `dist/bundle/`, as they do in `dist/engine/`, so the
 * `new URL('./page-worker.js', import.meta.url)` lookups work in both layouts (the render thread's
 * `./render-worker.js`, from `dist/http/`, too).
 * `dist/` (tsc) stays: the tests of the thread entry points use it, and its `.d.ts` files are the
 * package's type declarations.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = (p) => path.join(root, 'src', p);

const outdir = path.join(root, 'dist/bundle');
// Chunk names carry content hashes: remove the last build's so none is left behind.
rmSync(outdir, { recursive: true, force: true });

await build({
  entryPoints: {
    main: src('cli/main.ts'),
    // The package entry (the library API): `exports` points here.
    index: src('index.ts'),
    'worker-main': src('runtime/worker-main.ts'),
    'page-worker': src('engine/page-worker.ts'),
    'body-writer': src('engine/body-writer.ts'),
    'render-worker': src('http/render-worker.ts'),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  // Names are kept (readable stack traces); whitespace and syntax are minified: V8 keeps each
  // loaded file's source in memory (4.7 MB → 1.7 MB of an idle worker's heap).
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  // Loaded with import() when a page is rendered (--render), from node_modules: it reads its own
  // package files at run time and is not bundled (a runtime dependency).
  external: ['puppeteer-core'],
  // CommonJS dependencies call require(): give each output file one, as Node's ESM has none.
  banner: {
    js: "import { createRequire as __collectorRequire } from 'node:module'; const require = __collectorRequire(import.meta.url);",
  },
});
