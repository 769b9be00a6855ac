/**
 * The V8 flags a collector process runs with: the `collector` command's shebang passes exactly
 * PROCESS_V8_FLAGS, a process started by it really has them, and worker processes get them
 * unless their parent's command line set the same flag.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROCESS_V8_FLAGS, withProcessV8Flags } from '../../src/supervision/v8-flags.js';

const BIN = path.resolve('bin/collector.js');

describe('the V8 flags of a collector process', () => {
  it('are the bin shebang flags, and the process it starts runs with them', () => {
    const shebang = fs.readFileSync(BIN, 'utf8').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S node ${PROCESS_V8_FLAGS.join(' ')}`);
    // env -S splits the line as Linux does not: the flags reach node (they show in execArgv).
    const script = `process.stdout.write(JSON.stringify(process.execArgv))`;
    const probe = path.resolve('test/.v8-flags-probe.mjs');
    fs.writeFileSync(probe, `${shebang}\n${script}\n`, { mode: 0o755 });
    try {
      expect(JSON.parse(execFileSync(probe, { encoding: 'utf8' }))).toEqual([...PROCESS_V8_FLAGS]);
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
