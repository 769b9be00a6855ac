/**
 * The V8 flags and malloc settings a collector process runs with: the `collector` command
 * (bin/collector.js, run by /bin/sh, which execs node) passes exactly PROCESS_V8_FLAGS and
 * PROCESS_MALLOC_ENV, a process started by it really has them, and worker processes get the flags unless their parent's command line set the same flag.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROCESS_MALLOC_ENV, PROCESS_V8_FLAGS, withProcessV8Flags } from '../../src/supervision/v8-flags.js';

const BIN = path.resolve('bin/collector.js');

describe('the V8 flags of a collector process', () => {
  it('are what the bin starts node with, and the process it starts runs with them', () => {
    const [first, second] = fs.readFileSync(BIN, 'utf8').split('\n');
    const assignments = Object.entries(PROCESS_MALLOC_ENV).map(([k, v]) => `${k}=${v}`);
    expect(first).toBe('#!/bin/sh');
    expect(second).toBe(
      `':' //; exec env ${assignments.join(' ')} node ${PROCESS_V8_FLAGS.join(' ')} "$0" "$@"`,
    );
    // The same two lines run as a program: sh replaces itself with node, which gets the flags (in
    // execArgv) and the assignments (replacing the caller's), and runs the rest as JavaScript.
    const keys = JSON.stringify(Object.keys(PROCESS_MALLOC_ENV));
    const script = `process.stdout.write(JSON.stringify([process.execArgv, ${keys}.map((k) => process.env[k]), process.argv.slice(2)]))`;
    const probe = path.resolve('test/.v8-flags-probe.mjs');
    fs.writeFileSync(probe, `${first}\n${second}\n${script}\n`, { mode: 0o755 });
    try {
      const env = { ...process.env, MALLOC_ARENA_MAX: '8' };
      expect(JSON.parse(execFileSync(probe, ['a b', '--c'], { encoding: 'utf8', env }))).toEqual([
        [...PROCESS_V8_FLAGS],
        Object.values(PROCESS_MALLOC_ENV),
        ['a b', '--c'],
      ]);
      // Run by node itself, the two lines are a shebang, a string and a comment.
      expect(JSON.parse(execFileSync(process.execPath, [probe], { encoding: 'utf8', env }))[0]).toEqual([]);
    } finally {
      fs.rmSync(probe, { force: true });
    }
  });

  it('are added to a worker process execArgv, unless a flag of the same name is given', () => {
    expect(withProcessV8Flags([])).toEqual(['--max-semi-space-size=2']);
    expect(withProcessV8Flags(['--inspect'])).toEqual(['--inspect', '--max-semi-space-size=2']);
    expect(withProcessV8Flags(['--max-semi-space-size=8'])).toEqual(['--max-semi-space-size=8']);
    expect(withProcessV8Flags(['--max_semi_space_size=8'])).toEqual(['--max_semi_space_size=8']);
  });
});
