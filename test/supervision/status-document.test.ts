/**
 * The supervisor's status document: a worker whose process has ended reports no pages/s (its last
 * rate is not its rate), a live one its rate; the totals sum what the workers report.
 */
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { statusDocument } from '../../src/supervision/status-file.js';
import { WorkerProcess } from '../../src/supervision/worker-process.js';
import type { WorkerSpec } from '../../src/supervision/worker-spec.js';

const spec = (index: number): WorkerSpec =>
  ({ id: `crawl-${index}`, type: 'crawl', group: 'crawl', index, count: 2, partition: 'host' }) as WorkerSpec;

describe('statusDocument', () => {
  it('gives a worker that has ended 0 pages/s and a live one its rate', () => {
    const ended = new WorkerProcess(spec(0));
    ended.state = 'done';
    ended.pagesPerSec = 3.24;
    const live = new WorkerProcess(spec(1));
    live.state = 'running';
    live.pagesPerSec = 3.24;
    live.child = { pid: 4242 } as ChildProcess;
    const sup = { startedAt: new Date(), stopping: false, memoryLimitBytes: 2 ** 31, diskFull: null };
    const doc = statusDocument([ended, live], sup);
    expect(doc.workers.map((w) => w.pagesPerSec)).toEqual([0, 3.2]);
    expect(doc.totals.pagesPerSec).toBe(3.2);
    ended.child = null;
    live.child = null;
    live.state = 'done';
    const over = statusDocument([ended, live], sup);
    expect(over.state).toBe('finished');
    expect(over.totals.pagesPerSec).toBe(0);
  });
});
