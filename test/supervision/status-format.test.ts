/** status.json format 2 (a worker's `type` is its worker type, `source` its source); format 1 read as 2. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStatusFile, STATUS_FILE_FORMAT } from '../../src/supervision/status-format.js';
import { tempDir } from '../fixtures/cli.js';

const doc = (format: number, worker: Record<string, unknown>) => ({
  format,
  launch: {},
  supervisor: {},
  timings: {},
  workers: [{ id: 'docs-0', ...worker }],
});

describe('status.json', () => {
  it('is written as format 2 and read as it is', async () => {
    expect(STATUS_FILE_FORMAT).toBe(2);
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'status.json'),
      JSON.stringify(doc(2, { type: 'docs', source: 'crawl' })),
    );
    const s = await readStatusFile(dir);
    expect(typeof s === 'object' && s.workers[0]).toMatchObject({ type: 'docs', source: 'crawl' });
  });

  it('reads format 1 (source in type, worker type in group) as format 2', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'status.json'), JSON.stringify(doc(1, { type: 'crawl', group: 'docs' })));
    const s = await readStatusFile(dir);
    expect(typeof s === 'object' && s.workers[0]).toEqual({ id: 'docs-0', type: 'docs', source: 'crawl' });
  });
});
