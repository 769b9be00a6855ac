import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSize, milestoneLine } from '../../src/ops/size-milestones.js';
import { runCli, tempDir } from '../fixtures/cli.js';

const MB = 1024 * 1024;

function grow(dir: string, file: string, bytes: number): void {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.appendFileSync(path.join(dir, file), Buffer.alloc(bytes, 97));
}

describe('collector size', () => {
  it('the line: size, growth and rate since the last report, share of the target, ETA', () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    const since = { bytes: 312 * MB, at: now - (3 * 60 + 10) * 60_000 };
    expect(milestoneLine(412 * MB, since, now, 1024 * MB)).toBe(
      'data: 412 MB (+100 MB in 3h10m, ~32 MB/h) — 40% of 1 GB, ETA 19h22m',
    );
    expect(milestoneLine(1100 * MB, since, now, 1024 * MB)).toMatch(/— 107% of 1 GB: target reached$/);
    expect(milestoneLine(5 * MB, null, now)).toBe('data: 5 MB');
  });

  it('once per milestone, never twice for the same one; counts items and files, not logs or state', async () => {
    const dir = tempDir();
    const every = 100_000;
    grow(dir, 'logs/crawl-0.log', 5 * every);
    grow(dir, 'state/crawl-0/frontier.log', 5 * every);
    expect(await checkSize({ dataDir: dir, every })).toBe(null);
    grow(dir, 'items/crawl-0.jsonl', 60_000);
    grow(dir, 'files/example.org/a.html', 60_000);
    const first = await checkSize({ dataDir: dir, every });
    expect(first).toMatch(/^data: 117 KB \(\+117 KB in \d+s, ~[\d.]+ [KMG]?B\/h\)$/);
    expect(await checkSize({ dataDir: dir, every })).toBe(null);
    grow(dir, 'files/example.org/b.html', 50_000); // 170 KB: still the 100 KB milestone
    expect(await checkSize({ dataDir: dir, every })).toBe(null);
    grow(dir, 'files/example.org/c.html', 40_000); // 210 KB: passes 200 KB
    expect(await checkSize({ dataDir: dir, every, target: 1_000_000 })).toMatch(
      /^data: 205 KB \(\+\d+ KB in \d+s, .*\) — 21% of 977 KB/,
    );
    expect(await checkSize({ dataDir: dir, every })).toBe(null);
    const state = JSON.parse(fs.readFileSync(path.join(dir, 'state', 'size.json'), 'utf8'));
    expect(state.reported.milestone).toBe(200_000);
  });

  it('from the command line: prints once, then nothing; a missing data dir is one line, exit 2', async () => {
    const dir = tempDir();
    grow(dir, 'items/crawl-0.jsonl', 3 * 1024);
    const a = await runCli(['size', '--data', dir, '--every', '1KB', '--target', '10KB']);
    expect(a.stdout).toMatch(/^data: 3 KB \(.*\) — 30% of 10 KB/);
    expect(a.code).toBe(0);
    const b = await runCli(['size', '--data', dir, '--every', '1KB']);
    expect(b.stdout).toBe('');
    const c = await runCli(['size', '--data', path.join(dir, 'nope')]);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/^collector: --data .*nope: not found/);
    expect((await runCli(['size', '--data', dir, '--every', '0'])).code).toBe(2);
  });
});
