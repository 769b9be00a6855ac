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
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('drops lines it cannot write (a full disk) without throwing, and closes', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-log-'));
    fs.mkdirSync(path.join(out, 'logs'));
    fs.symlinkSync('/dev/full', path.join(out, 'logs', 'crawl-0.log')); // every write: ENOSPC
    const { log, close } = openWorkerLog(out, 'crawl-0', { maxBytes: 500, keep: 1 });
    for (let i = 0; i < 50; i++) log.info({ i, pad: 'x'.repeat(50) }, 'line');
    log.error('still no throw');
    await close();
    fs.rmSync(out, { recursive: true, force: true });
  });
});
