#!/usr/bin/env node
/**
 * The `prepare` script of a clone: builds `dist/` (`npm run build`) when it is missing or older
 * than the build's inputs, and does nothing otherwise. `npm ci` runs it (a fresh clone builds);
 * so does `npx collector` in a clone, whose first run links the clone into npx's cache and runs
 * its `prepare` — a rebuild there would delete `dist/` under a running crawl or test suite.
 * Same rule as the test harness's `test/fixtures/build-once.ts`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INPUTS = ['src', 'scripts/bundle.mjs', 'tsconfig.build.json', 'tsconfig.json', 'package.json'];
const OUTPUTS = ['dist/bundle/main.js', 'dist/bundle/worker-main.js', 'dist/cli/main.js'];

/** Newest modification time under `p` (a folder too: a deleted file changes it), ms; 0 if absent. */
function newest(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let t = st.mtimeMs;
  for (const name of fs.readdirSync(p)) t = Math.max(t, newest(path.join(p, name)));
  return t;
}

function oldestOutput() {
  let t = Number.POSITIVE_INFINITY;
  for (const o of OUTPUTS) {
    try {
      t = Math.min(t, fs.statSync(path.join(root, o)).mtimeMs);
    } catch {
      return Number.NEGATIVE_INFINITY;
    }
  }
  return t;
}

const input = Math.max(...INPUTS.map((i) => newest(path.join(root, i))));
if (oldestOutput() < input) execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
