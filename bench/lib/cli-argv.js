/**
 * The command line that runs the collector CLI as its `collector` command does: what the bin's
 * second line (`':' //; exec env [VAR=value …] node <flags> "$0" "$@"`, run by /bin/sh) runs —
 * `env` with its assignments, node with its flags — then the bin and its arguments. Benchmarks
 * measure what users run.
 */
import { readFileSync } from 'node:fs';

/** The words of `bin`'s exec line between `exec env` and `"$0"` (none without one). */
function execWords(bin) {
  const second = readFileSync(bin, 'utf8').split('\n')[1] ?? '';
  const m = /^':' \/\/; exec env (.*?) "\$0" "\$@"$/.exec(second);
  return m === null ? [] : m[1].trim().split(/\s+/);
}

/** The Node.js flags `bin` starts node with (the words after `node`). */
export function binFlags(bin) {
  const words = execWords(bin);
  return words.slice(words.indexOf('node') + 1);
}

/** The environment assignments `bin` starts node with (the words before `node`). */
export function binEnv(bin) {
  const words = execWords(bin);
  return words.slice(0, Math.max(0, words.indexOf('node')));
}

/** argv for spawning the CLI `bin` with `args` (through `env` when it sets variables). */
export function cliArgv(bin, ...args) {
  const env = binEnv(bin);
  const node = [process.execPath, ...binFlags(bin), bin, ...args];
  return env.length === 0 ? node : ['/usr/bin/env', ...env, ...node];
}
