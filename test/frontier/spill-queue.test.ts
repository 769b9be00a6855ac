import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpillQueue } from '../../src/frontier/spill-queue.js';

describe('SpillQueue', () => {
  it('returns what was pushed, in order, across many reads and interleaved pushes, then removes its file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-spill-'));
    const file = path.join(dir, 'spill.log');
    const q = await SpillQueue.open(file);
    const want: Array<[string, number]> = [];
    const got: Array<[string, number]> = [];
    let n = 0;
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 7000; i++, n++) {
        const e: [string, number] = [`http://127.0.0.1:9/p/${n}?q=${'x'.repeat(n % 50)}`, n % 7];
        want.push(e);
        q.push(e[0], e[1]);
      }
      expect(q.size).toBe(want.length - got.length);
      got.push(...(await q.take(3000)));
    }
    while (q.size > 0) got.push(...(await q.take(4096)));
    expect(got).toEqual(want);
    expect(await q.take(10)).toEqual([]);
    await q.close();
    expect(fs.existsSync(file)).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
