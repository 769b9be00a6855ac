import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  bootId,
  describeProcess,
  isRunning,
  parseProcStat,
  procStat,
  selfIdentity,
} from '../../src/sinks/process-identity.js';

describe('process identity', () => {
  it('parses /proc/<pid>/stat from the last ")" (command names may hold spaces and parentheses)', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    fields[0] = 'S';
    fields[19] = '123456';
    // field 4 is the parent (4 here), field 5 the process group (5)
    expect(parseProcStat(`42 (a) b (c)) ${fields.join(' ')}\n`)).toEqual({
      state: 'S',
      ppid: 4,
      pgrp: 5,
      startTicks: 123456,
    });
    expect(parseProcStat('garbage')).toBeNull();
  });

  it('names this process by pid, start time and boot', () => {
    const me = selfIdentity();
    expect(me.pid).toBe(process.pid);
    expect(me.startTicks).toBe(procStat(process.pid)?.startTicks);
    expect(me.bootId).toMatch(/^[0-9a-f-]{36}$/);
    expect(isRunning(me)).toBe(true);
    expect(describeProcess(me)).toMatch(new RegExp(`^pid ${process.pid}, started \\d{4}-\\d\\d-\\d\\dT`));
  });

  it('a reused pid (another start time), another boot, or a gone pid is not the holder', () => {
    const me = selfIdentity();
    expect(isRunning({ ...me, startTicks: (me.startTicks ?? 0) + 1 })).toBe(false);
    expect(isRunning({ ...me, bootId: '00000000-0000-0000-0000-000000000000' })).toBe(false);
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    expect(isRunning({ pid: Number(gone.stdout), startTicks: null, bootId: bootId() })).toBe(false);
    // an older lock file records the pid alone: a running pid is taken as its holder
    expect(isRunning({ pid: process.pid, startTicks: null, bootId: null })).toBe(true);
  });

  it('a zombie is not running', async () => {
    // `sleep 1` exits after its parent shell became `sleep 60` (exec; killed at the end), which never
    // reaps it: a zombie. (`sleep 0` could exit before the exec, and the shell reaped it.)
    const parent = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 60'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const pid = Number(await new Promise<string>((r) => parent.stdout.once('data', (d) => r(String(d)))));
      let stat = procStat(pid);
      for (let i = 0; i < 500 && stat?.state !== 'Z'; i++) {
        await new Promise((r) => setTimeout(r, 20));
        stat = procStat(pid);
      }
      expect(stat?.state).toBe('Z');
      expect(isRunning({ pid, startTicks: stat?.startTicks ?? null, bootId: bootId() })).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
