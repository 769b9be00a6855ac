/**
 * status.json of a one-process crawl: its pages/s while it runs, and 0 once it has ended (its last
 * rate is not its rate), with a fake clock (Date only: the file is written for real).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseCrawlOptions } from '../../src/config/crawl-options.js';
import type { Crawler } from '../../src/engine/crawler.js';
import { InProcessStatus } from '../../src/runtime/in-process-status.js';
import type { LaunchRecord } from '../../src/supervision/launch-record.js';
import { CounterSet } from '../../src/supervision/worker-counters.js';
import { tempDir } from '../fixtures/cli.js';

/** The parts of a crawler the status reads. */
function crawlerStub() {
  return {
    stats: { items: 0, itemsThisRun: 0, errors: 0, skipped: {} },
    frontier: { queued: 0 },
    busy: 0,
    rendering: null,
  };
}

const readStatus = (out: string) => JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8'));

describe('InProcessStatus', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reports pages/s while the crawl runs and 0 once it has finished', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-04T00:00:00Z'));
    const out = tempDir();
    const crawler = crawlerStub();
    const status = new InProcessStatus(
      'crawl-0',
      crawler as unknown as Crawler,
      new CounterSet(),
      parseCrawlOptions({ seeds: ['http://127.0.0.1:9/'], out }),
      { command: 'crawl', cmdline: [], restartArgv: [], cwd: out, dataDir: out } as unknown as LaunchRecord,
      2 ** 30,
    );
    crawler.stats.items = 20;
    vi.setSystemTime(new Date('2026-12-04T00:00:02Z'));
    expect(status.status().workers[0].pagesPerSec).toBe(10);
    crawler.stats.items = 30;
    vi.setSystemTime(new Date('2026-12-04T00:00:03Z'));
    await status.end(true);
    const ended = readStatus(out);
    expect(ended.state).toBe('finished');
    expect(ended.workers[0].pagesPerSec).toBe(0);
    expect(ended.totals.pagesPerSec).toBe(0);
    expect(ended.workers[0].items).toBe(30);
  });
});
