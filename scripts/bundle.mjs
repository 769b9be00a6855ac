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
import { readFileSync, rmSync } from 'node:fs';
import { constants as http2Constants } from 'node:http2';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = (p) => path.join(root, 'src', p);

const outdir = path.join(root, 'dist/bundle');

/**
 * undici's HTTP/2 client module loads `node:http2` (and with it `node:tls`) when it is evaluated,
 * for its `connect` and ten protocol constants: ~7 ms of every process start, for a client the
 * collector never uses (HTTP/2 only with undici's `allowH2`, which it does not set). This plugin
 * rewrites that module's head: the constants become literals (their values read here from
 * `node:http2`, RFC 9113 names and error codes) and `http2.connect` loads the module on first
 * call. It fails the build when undici's text no longer matches, rather than bundle a module
 * that would load `node:http2` anyway or miss a use of it.
 */
const lazyHttp2 = {
  name: 'undici-lazy-http2',
  setup(b) {
    b.onLoad({ filter: /undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const head =
        /let http2\ntry \{\n {2}http2 = require\(.node:http2.\)\n\} catch \{\n(?: {2}.*\n)*\}\n\nconst \{\n {2}constants: \{\n([^}]*)\n {2}\}\n\} = http2\n/;
      const m = head.exec(text);
      if (m === null) throw new Error(`${args.path}: the require of node:http2 changed; update lazyHttp2 in scripts/bundle.mjs`);
      const names = m[1].split(',').map((n) => n.trim());
      const literals = names.map((n) => {
        if (!(n in http2Constants)) throw new Error(`${args.path}: node:http2 has no constant ${n}`);
        return `const ${n} = ${JSON.stringify(http2Constants[n])}`;
      });
      const contents = text.replace(
        m[0],
        `let http2Module\nconst http2 = { connect: (...a) => (http2Module ??= require('node:http2')).connect(...a) }\n${literals.join('\n')}\n`,
      );
      const uses = contents.match(/\bhttp2\.\w+/g) ?? [];
      if (uses.some((u) => u !== 'http2.connect')) throw new Error(`${args.path}: uses ${uses.join(', ')} of node:http2; update lazyHttp2`);
      return { contents, loader: 'js' };
    });
  },
};
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
  plugins: [lazyHttp2],
  // CommonJS dependencies call require(): give each output file one, as Node's ESM has none.
  banner: {
    js: "import { createRequire as __collectorRequire } from 'node:module'; const require = __collectorRequire(import.meta.url);",
  },
});
