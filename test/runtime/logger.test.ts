import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkerLog } from '../../src/runtime/logger.js';

describe('worker log rotation', () => {
  it('rotates by size and keeps a bounded number of files', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-log-'));
    const { log, close } = openWorkerLog(out, 'crawl-0', { maxBytes: 2000, keep: 2 });
    for (let i = 0; i < 200; i++) log.info({ i, pad: 'x'.repeat(50) }, 'line');
    await close();
    const files = fs.readdirSync(path.join(out, 'logs')).sort();
    expect(files).toEqual(['crawl-0.log', 'crawl-0.log.1', 'crawl-0.log.2']);
    let total = 0;
    for (const f of files) {
      const text = fs.readFileSync(path.join(out, 'logs', f), 'utf8');
      total += text.length;
      for (const line of text.split('\n').filter(Boolean)) expect(JSON.parse(line).worker).toBe('crawl-0');
    }
    // three files of about maxBytes each (one line may overshoot)
    expect(total).toBeLessThan(3 * 2200);
    const last = fs
      .readFileSync(path.join(out, 'logs', 'crawl-0.log'), 'utf8')
      .trim()
      .split('\n')
      .pop() as string;
    expect(JSON.parse(last).i).toBe(199);
    // ISO 8601 time (pino's isoTime), not epoch ms
    expect(JSON.parse(last).time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    fs.rmSync(out, { recursive: true, force: true });
  });

  // A log file that is the full device (a node of its own: a link to /dev/full is never opened)
  it.skipIf(process.getuid?.() !== 0)(
    'drops lines it cannot write (a full disk) without throwing, and closes',
    async () => {
      const out = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-log-'));
      fs.mkdirSync(path.join(out, 'logs'));
      const full = fs.statSync('/dev/full').rdev; // every write: ENOSPC
      execFileSync('mknod', [
        path.join(out, 'logs', 'crawl-0.log'),
        'c',
        String(full >> 8),
        String(full & 0xff),
      ]);
      const { log, close } = openWorkerLog(out, 'crawl-0', { maxBytes: 500, keep: 1 });
      for (let i = 0; i < 50; i++) log.info({ i, pad: 'x'.repeat(50) }, 'line');
      log.error('still no throw');
      await close();
      fs.rmSync(out, { recursive: true, force: true });
    },
  );
});

describe('worker log rotation at the documented defaults (10 MiB, 3 old files)', () => {
  it('keeps x.log and x.log.1..3 of about 10 MiB each, dropping the oldest lines', async () => {
    const MiB = 1024 * 1024;
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-log-'));
    try {
      const { log, close } = openWorkerLog(out, 'crawl-0');
      // 1,000 bytes in 700 characters: rotation counts bytes (by characters, files would be ~14 MiB)
      const pad = `${'x'.repeat(550)}${'é'.repeat(150)}`;
      const lines = 46 * 1024; // ~46 MiB: more than the 40 MiB kept
      for (let i = 0; i < lines; i++) log.info({ i, pad }, 'line');
      await close();
      const dir = path.join(out, 'logs');
      expect(fs.readdirSync(dir).sort()).toEqual([
        'crawl-0.log',
        'crawl-0.log.1',
        'crawl-0.log.2',
        'crawl-0.log.3',
      ]);
      const first = (f: string) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8').split('\n')[0]).i;
      for (const f of ['crawl-0.log.1', 'crawl-0.log.2', 'crawl-0.log.3']) {
        // rotated once past 10 MiB: by at most one line
        const size = fs.statSync(path.join(dir, f)).size;
        expect(size, f).toBeGreaterThanOrEqual(10 * MiB);
        expect(size, f).toBeLessThan(10 * MiB + 2048);
      }
      // oldest first: .3 then .2 then .1 then the current file, and the first ~6 MiB are gone
      expect(first('crawl-0.log.3')).toBeGreaterThan(0);
      expect(first('crawl-0.log.3')).toBeLessThan(first('crawl-0.log.2'));
      expect(first('crawl-0.log.2')).toBeLessThan(first('crawl-0.log.1'));
      expect(first('crawl-0.log.1')).toBeLessThan(first('crawl-0.log'));
      const last = fs.readFileSync(path.join(dir, 'crawl-0.log'), 'utf8').trim().split('\n').pop() as string;
      expect(JSON.parse(last).i).toBe(lines - 1);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
