/**
 * Whether a clone's `dist/` is missing or older than the build's inputs: the one rule behind the
 * `prepare` script (`scripts/prepare.mjs`, build only when stale) and the test harness's
 * stale-build guard (`test/fixtures/build-once.ts`).
 */
import fs from 'node:fs';
import path from 'node:path';

/** Files and folders whose change means a rebuild (folders too: a deleted file changes its folder). */
const INPUTS = ['src', 'scripts/bundle.mjs', 'tsconfig.build.json', 'tsconfig.json', 'package.json'];

/** Outputs of `npm run build`: the bundle the CLI runs, and tsc's output the thread tests load. */
const OUTPUTS = ['dist/bundle/main.js', 'dist/bundle/worker-main.js', 'dist/cli/main.js'];

/** Newest modification time under `p` (a file, or a folder and everything in it), ms; 0 if absent. */
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

/** Oldest modification time of the build outputs under `root`, ms; -Infinity when one is missing. */
function oldestOutput(root) {
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

/**
 * Whether `<root>/dist/` is missing or older than one of the build's inputs.
 * @param {string} root the repository's root directory.
 * @returns {boolean}
 */
export function distIsStale(root) {
  const input = Math.max(...INPUTS.map((i) => newest(path.join(root, i))));
  return oldestOutput(root) < input;
}
