import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock, LockHeldError, lockHolder, parseLockRecord } from '../../src/sinks/lock-file.js';
import { bootId, selfIdentity } from '../../src/sinks/process-identity.js';
import { tempDir } from '../fixtures/cli.js';

const CONTENDER = path.resolve(import.meta.dirname, '../fixtures/lock-contender.mjs');

/** A pid that was just freed (its process ran and was reaped). */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout);
}

/** A lock record (JSON line) of a holder that is gone. */
function staleRecord(kind: 'dead-pid' | 'reused-pid' | 'other-boot', token: string): string {
  const me = selfIdentity();
  const rec =
    kind === 'dead-pid'
      ? { ...me, pid: deadPid() }
      : kind === 'reused-pid'
        ? { ...me, startTicks: (me.startTicks ?? 0) + 7 } // our pid, another process's start
        : { ...me, bootId: '00000000-0000-0000-0000-000000000000' };
  return `${JSON.stringify({ ...rec, token })}\n`;
}

describe('lock file', () => {
  it('is taken, names its holder (pid, start time, boot), refuses a second taker, and is released', async () => {
    const file = path.join(tempDir(), 'collector.pid');
    const lock = await acquireLock(file);
    const rec = parseLockRecord(fs.readFileSync(file, 'utf8'));
    expect(rec).toMatchObject({ pid: process.pid, startTicks: selfIdentity().startTicks, bootId: bootId() });
    await expect(acquireLock(file)).rejects.toThrow(LockHeldError);
    expect(await lockHolder(file)).toMatchObject({ pid: process.pid });
    await lock.release();
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.readdirSync(path.dirname(file))).toEqual([]); // no temp file or marker left
  });

  it.each(['dead-pid', 'reused-pid', 'other-boot'] as const)(
    'takes over a lock whose holder is gone (%s)',
    async (kind) => {
      const file = path.join(tempDir(), 'collector.pid');
      fs.writeFileSync(file, staleRecord(kind, 'aaaaaaaaaaaaaaaa'));
      const lock = await acquireLock(file);
      expect(parseLockRecord(fs.readFileSync(file, 'utf8'))?.token).toBe(lock.record.token);
      await lock.release();
    },
  );

  it("takes over an older collector's lock of a dead pid, not of a running one", async () => {
    const file = path.join(tempDir(), 'collector.pid');
    fs.writeFileSync(file, `${deadPid()}\n`);
    const lock = await acquireLock(file);
    await lock.release();
    fs.writeFileSync(file, `${process.pid}\n`);
    await expect(acquireLock(file)).rejects.toThrow(LockHeldError);
  });

  it('a lock file caught empty or half written is held until it is old, then stale', async () => {
    const file = path.join(tempDir(), 'collector.pid');
    for (const text of ['', '{"pid":12']) {
      fs.writeFileSync(file, text);
      const err = await acquireLock(file).catch((e) => e);
      expect(err).toBeInstanceOf(LockHeldError);
      expect((err as LockHeldError).holder).toBeNull();
    }
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(file, old, old);
    const lock = await acquireLock(file);
    await lock.release();
  });

  it('a takeover marker left by a process that died mid-takeover does not block, and is cleaned up', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'collector.pid');
    fs.writeFileSync(file, staleRecord('dead-pid', 'bbbbbbbbbbbbbbbb'));
    // The dead taker's marker for that token, and its temp file.
    fs.writeFileSync(`${file}.takeover-bbbbbbbbbbbbbbbb`, staleRecord('dead-pid', 'cccccccccccccccc'));
    fs.writeFileSync(`${file}.cccccccccccccccc.tmp`, staleRecord('dead-pid', 'cccccccccccccccc'));
    const lock = await acquireLock(file);
    expect(fs.readdirSync(dir)).toEqual(['collector.pid']);
    await lock.release();
  });

  it('never removes a live lock: a release by a process that lost it leaves the new holder alone', async () => {
    const file = path.join(tempDir(), 'collector.pid');
    const first = await acquireLock(file);
    fs.writeFileSync(file, staleRecord('dead-pid', 'dddddddddddddddd')); // as if taken over since
    await first.release();
    expect(parseLockRecord(fs.readFileSync(file, 'utf8'))?.token).toBe('dddddddddddddddd');
  });

  it('6 processes racing for a stale lock, 24 times: exactly one takes it each time', async () => {
    const dir = tempDir();
    const kinds = ['dead-pid', 'reused-pid', 'other-boot'] as const;
    const files = Array.from({ length: 24 }, (_, i) => {
      const f = path.join(dir, `lock-${i}`);
      fs.writeFileSync(f, staleRecord(kinds[i % 3], `${String(i).padStart(2, '0')}eeeeeeeeeeeeee`));
      return f;
    });
    const startAt = Date.now() + 2500; // all contenders are up by then, even on a loaded machine
    const children = Array.from({ length: 6 }, () =>
      spawn(process.execPath, [CONTENDER, String(startAt), '60', ...files], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    // Each reports every file; then all exit together (a winner that exited early would leave a
    // stale lock a late contender could rightly take).
    const outs = await Promise.all(
      children.map((child) => {
        let out = '';
        return new Promise<string>((resolve, reject) => {
          child.stdout.on('data', (d) => {
            out += d;
            if (out.split('\n').length > files.length) resolve(out);
          });
          child.on('exit', () => reject(new Error(`contender exited early: ${out}`)));
        });
      }),
    );
    for (const child of children) child.stdin.end();
    const lines = outs.join('').trim().split('\n');
    expect(lines.filter((l) => l.includes(' error '))).toEqual([]);
    for (const f of files) {
      const results = lines.filter((l) => l.startsWith(`${f} `)).map((l) => l.slice(f.length + 1));
      expect(results.sort(), f).toEqual(['held', 'held', 'held', 'held', 'held', 'won']);
    }
  });
});
