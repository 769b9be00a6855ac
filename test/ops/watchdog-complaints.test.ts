/**
 * The watchdog's complaints (issue 28, 9 and 10): "giving up" is said once per incident however
 * its finding's numbers move between runs; a filesystem with no free inodes is not restarted onto
 * and is named as such; the stop line of a collector says which of bytes or inodes ran out. The
 * clock and the disk are the watchdog's seams: nothing waits, no disk is filled.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { opsStatePath } from '../../src/ops/ops-state.js';
import { RESTART_WINDOW_MS, runWatchdog } from '../../src/ops/watchdog.js';
import { type DiskSpace, diskFullLine } from '../../src/sinks/disk-full.js';
import { statusPath } from '../../src/supervision/status-format.js';
import { tempDir } from '../fixtures/cli.js';
import { NOW, status } from '../fixtures/status-samples.js';

const MB = 1048576;
const ROOMY: DiskSpace = { freeBytes: 5000 * MB, freeInodes: 1_000_000 };

/** A data dir whose supervisor (pid 99, start ticks 4000: not a process here) died running. */
function deadCollector(restartsAt: number[]): string {
  const dataDir = tempDir();
  fs.mkdirSync(path.join(dataDir, 'state'), { recursive: true });
  fs.writeFileSync(statusPath(dataDir), JSON.stringify(status({ launch: { ...status().launch, dataDir } })));
  const restarts = restartsAt.map((at) => ({
    at,
    ok: false,
    found: 'supervisor was dead',
    error: 'exit code 1',
  }));
  fs.writeFileSync(
    opsStatePath(dataDir, 'watchdog'),
    JSON.stringify({ version: 1, restarts, lastComplaint: null }),
  );
  return dataDir;
}

function watchdog(dataDir: string, at: number, space: DiskSpace | null = ROOMY) {
  return runWatchdog({ dataDir, maxRestarts: 3, now: () => at, diskSpace: () => space });
}

function restartsRecorded(dataDir: string): number {
  return JSON.parse(fs.readFileSync(opsStatePath(dataDir, 'watchdog'), 'utf8')).restarts.length;
}

describe('watchdog: "giving up" once per incident', () => {
  it('two runs 31 s apart, the finding changed ("heartbeat 6m" → "7m"): said once', async () => {
    const t = NOW + 6 * 60_000 + 50_000;
    const dataDir = deadCollector([t - 40 * 60_000, t - 30 * 60_000, t - 20 * 60_000]);
    const first = await watchdog(dataDir, t);
    expect(first.exitCode).toBe(3);
    expect(first.line).toMatch(
      /^giving up: 3 restarts in the last hour and still unhealthy \(supervisor was dead \(heartbeat 6m ago\)\); last error: exit code 1;/,
    );
    const second = await watchdog(dataDir, t + 31_000);
    expect(second).toEqual({ line: null, exitCode: 3 });
    // ...and at every run after it while the incident lasts
    expect((await watchdog(dataDir, t + 15 * 60_000)).line).toBeNull();
    expect(restartsRecorded(dataDir)).toBe(3);
  });

  it('a new incident (a later restart failed too) is said again', async () => {
    const t = NOW + 10 * 60_000;
    const dataDir = deadCollector([t - 50 * 60_000, t - 40 * 60_000, t - 30 * 60_000]);
    expect((await watchdog(dataDir, t)).line).toMatch(/^giving up: /);
    // The oldest restart leaves the window; the watchdog restarted once more and that failed too.
    const later = t + 15 * 60_000;
    const file = opsStatePath(dataDir, 'watchdog');
    const state = JSON.parse(fs.readFileSync(file, 'utf8'));
    state.restarts.push({
      at: later - 60_000,
      ok: false,
      found: 'supervisor was dead',
      error: 'exit code 1',
    });
    fs.writeFileSync(file, JSON.stringify(state));
    expect((await watchdog(dataDir, later)).line).toMatch(/^giving up: 3 restarts in the last hour/);
  });

  it('healthy again in between: the next giving-up is said', async () => {
    const t = NOW + 10 * 60_000;
    const dataDir = deadCollector([t - 30 * 60_000, t - 20 * 60_000, t - 10 * 60_000]);
    expect((await watchdog(dataDir, t)).line).toMatch(/^giving up: /);
    const file = opsStatePath(dataDir, 'watchdog');
    // what a healthy run leaves: the complaint forgotten
    fs.writeFileSync(
      file,
      JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), lastComplaint: null }),
    );
    expect((await watchdog(dataDir, t + 60_000)).line).toMatch(/^giving up: /);
  });
});

describe('watchdog: no room to restart into', () => {
  it('no free inodes (49 MB free): not restarted, the cause named, said once an hour, no restart counted', async () => {
    const t = NOW + 60_000;
    const dataDir = deadCollector([]);
    const full = await watchdog(dataDir, t, { freeBytes: 49 * MB, freeInodes: 0 });
    expect(full.exitCode).toBe(3);
    expect(full.line).toBe(
      `not restarted: supervisor was dead (heartbeat 1m ago); no free inodes on ${dataDir} (0 left, 49 MB free): remove files, then the next watchdog run restarts it`,
    );
    expect(restartsRecorded(dataDir)).toBe(0);
    // 31 s later, a few inodes given back and another heartbeat age: the same incident
    expect((await watchdog(dataDir, t + 31_000, { freeBytes: 49 * MB, freeInodes: 12 })).line).toBeNull();
    // an hour later it is said again
    expect(
      (await watchdog(dataDir, t + RESTART_WINDOW_MS + 1000, { freeBytes: 49 * MB, freeInodes: 0 })).line,
    ).toMatch(/; no free inodes on /);
  });

  it('bytes full: "disk full" as before, also said once however the free space moves', async () => {
    const t = NOW + 60_000;
    const dataDir = deadCollector([]);
    const full = await watchdog(dataDir, t, { freeBytes: 3.2 * MB, freeInodes: 50_000 });
    expect(full.line).toMatch(
      /; disk full at \S+ \(3\.2 MB free\): free space, then the next watchdog run restarts it$/,
    );
    expect(
      (await watchdog(dataDir, t + 31_000, { freeBytes: 2.9 * MB, freeInodes: 50_000 })).line,
    ).toBeNull();
  });

  it('a filesystem without an inode limit (btrfs: null) with room is not declined', async () => {
    const t = NOW + 60_000;
    // three restarts already: it goes on to "giving up", past the room check
    const dataDir = deadCollector([t - 3000, t - 2000, t - 1000]);
    const r = await watchdog(dataDir, t, { freeBytes: 5000 * MB, freeInodes: null });
    expect(r.line).toMatch(/^giving up: /);
  });
});

describe('the stop line of a full disk names its cause', () => {
  it('inodes out, bytes left: "no free inodes on"', () => {
    expect(diskFullLine('/srv/data/files/a', { freeBytes: 49 * MB, freeInodes: 0 })).toBe(
      'no free inodes on /srv/data/files/a (49 MB free): stopped; --resume continues',
    );
  });
  it('bytes out: "disk full at"', () => {
    expect(diskFullLine('/srv/data/items/w.jsonl', { freeBytes: 0.5 * MB, freeInodes: 90_000 })).toBe(
      'disk full at /srv/data/items/w.jsonl (0.5 MB free): stopped; --resume continues',
    );
    expect(diskFullLine('/x', null)).toBe('disk full at /x (? MB free): stopped; --resume continues');
  });
});
