/**
 * The command line that runs the collector CLI as its `collector` command does: what the bin's
 * shebang line (`#!/usr/bin/env -S [VAR=value …] node <flags>`) runs — `env` with its assignments,
 * node with its flags — then the bin and its arguments. Benchmarks measure what users run.
 */
import { readFileSync } from 'node:fs';

/** The words of `bin`'s `env -S` shebang line after `-S` (none without one). */
function shebangWords(bin) {
  const first = readFileSync(bin, 'utf8').split('\n')[0];
  const m = /^#!\/usr\/bin\/env -S\s+(.*)$/.exec(first);
  return m === null ? [] : m[1].trim().split(/\s+/);
}

/** The Node.js flags on the shebang line of `bin` (the words after `node`). */
export function shebangFlags(bin) {
  const words = shebangWords(bin);
  return words.slice(words.indexOf('node') + 1);
}

/** The environment assignments on the shebang line of `bin` (the words before `node`). */
export function shebangEnv(bin) {
  const words = shebangWords(bin);
  return words.slice(0, Math.max(0, words.indexOf('node')));
}

/** argv for spawning the CLI `bin` with `args` (through `env` when its shebang sets variables). */
export function cliArgv(bin, ...args) {
  const env = shebangEnv(bin);
  const node = [process.execPath, ...shebangFlags(bin), bin, ...args];
  return env.length === 0 ? node : ['/usr/bin/env', ...env, ...node];
}
