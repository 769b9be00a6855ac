/**
 * The command line that runs the collector CLI as its `collector` command does: node with the V8
 * flags of the bin's shebang line (`#!/usr/bin/env -S node <flags>`), then the bin and its
 * arguments. Benchmarks measure what users run.
 */
import { readFileSync } from 'node:fs';

/** The Node.js flags on the shebang line of `bin` (none when it has no `env -S node` line). */
export function shebangFlags(bin) {
  const first = readFileSync(bin, 'utf8').split('\n')[0];
  const m = /^#!\/usr\/bin\/env -S node\s+(.*)$/.exec(first);
  return m === null ? [] : m[1].trim().split(/\s+/);
}

/** argv for spawning the CLI `bin` with `args`. */
export function cliArgv(bin, ...args) {
  return [process.execPath, ...shebangFlags(bin), bin, ...args];
}
