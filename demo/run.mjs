#!/usr/bin/env node
/**
 * `npm run demo`: an offline try-out from the clone. Builds a documentation corpus from the
 * packages `npm ci` installed (demo/corpus.mjs), serves it on loopback with gzip
 * (demo/serve.mjs), crawls it with `collector crawl` as a user would, and prints where the
 * output is. Nothing leaves the machine.
 *
 *   npm run demo                       crawl into a new temporary directory, then exit
 *   npm run demo -- --out DIR          crawl into DIR (new or empty)
 *   npm run demo -- --serve            keep serving the corpus after the crawl (Ctrl-C ends)
 *   npm run demo -- --warc             also record the crawl as WARC files (docs/warc.md)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildCorpus } from './corpus.mjs';
import { serveDirectory } from './serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    out: { type: 'string' },
    serve: { type: 'boolean', default: false },
    warc: { type: 'boolean', default: false },
  },
});

const bin = path.join(root, 'bin', 'collector.js');
if (!fs.existsSync(path.join(root, 'dist', 'bundle', 'main.js'))) {
  process.stderr.write('demo: the collector is not built yet: run `npm ci` (or `npm run build`) first\n');
  process.exit(2);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-demo-'));
const corpusDir = path.join(work, 'site');
const out = path.resolve(args.out ?? path.join(work, 'data'));
const pages = buildCorpus(path.join(root, 'node_modules'), corpusDir);
const { server, url } = await serveDirectory(corpusDir);
const seed = `${url}/docs/`;
process.stderr.write(
  `demo: serving ${pages} documentation pages of the packages in node_modules/ at ${seed} (gzip)\n` +
    `demo: collector crawl ${seed} --out ${out} --markdown all --delay 0 --host-concurrency 8${args.warc ? ' --warc' : ''}\n`,
);

// Ctrl-C reaches the crawl too (same process group): it stops gracefully and the demo ends after
// it, with the server still up meanwhile.
let onSignal = () => {};
process.on('SIGINT', () => onSignal());
process.on('SIGTERM', () => onSignal());
// The real command line, as a user types it: its progress line and summary are the demo's output.
const child = spawn(
  process.execPath,
  [
    bin,
    'crawl',
    seed,
    '--out',
    out,
    '--markdown',
    'all',
    '--delay',
    '0',
    '--host-concurrency',
    '8',
    '--processes',
    '1',
    ...(args.warc ? ['--warc'] : []),
  ],
  { stdio: 'inherit' },
);
const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));

const items = path.join(out, 'items');
process.stderr.write(
  `demo: output in ${out}\n` +
    `demo:   items (one JSON line per URL): ${items}/crawl-0.jsonl\n` +
    `demo:   pages as served, each with its main content as Markdown beside it (.md): ${path.join(out, 'files')}/\n` +
    `demo:   log: ${path.join(out, 'logs', 'crawl-0.log')}\n` +
    (args.warc ? `demo:   WARC files and their CDXJ indexes: ${path.join(out, 'warc')}/\n` : ''),
);

if (args.serve) {
  process.stderr.write(
    `demo: still serving ${seed} — try: npx collector crawl ${seed} --out /tmp/docs --delay 0; Ctrl-C ends\n`,
  );
  await new Promise((resolve) => {
    onSignal = resolve;
  });
}
server.close();
fs.rmSync(corpusDir, { recursive: true, force: true });
if (args.out === undefined) process.stderr.write(`demo: remove ${work} when done with it\n`);
process.exitCode = code;
