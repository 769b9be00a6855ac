import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { awaitHealthy } from '../../src/ops/watchdog.js';
import { statusPath } from '../../src/supervision/status-format.js';
import { tempDir } from '../fixtures/cli.js';
import { status, worker } from '../fixtures/status-samples.js';

const OLD = { pid: 98, startTicks: 3000 };

describe('watchdog: waiting for a restarted collector', () => {
  it('a collector that exits just after a read: the status written before its exit is the one judged', async () => {
    const dataDir = tempDir();
    const write = (s: ReturnType<typeof status>) => {
      fs.mkdirSync(path.dirname(statusPath(dataDir)), { recursive: true });
      fs.writeFileSync(statusPath(dataDir), JSON.stringify(s));
    };
    // The restarted supervisor's first status: its worker starting, no error yet.
    write(status({}, [worker(0, { id: 'loop-0', state: 'starting' })]));
    // The process exits between the watchdog's second read and its look at the exit: its last
    // status (the worker parked, with its error) is on disk by the time the exit is seen.
    let looks = 0;
    const child = {
      get exited(): string | null {
        if (++looks < 2) return null;
        write(
          status({ state: 'finished' }, [
            worker(0, { id: 'loop-0', state: 'parked', lastError: 'exit code 3, signal null' }),
          ]),
        );
        return 'exit code 1';
      },
    };
    const after = await awaitHealthy({ dataDir }, OLD, child, 30_000);
    expect(after.why).toBe('it exited (exit code 1)');
    expect(after.status?.workers[0]).toMatchObject({
      state: 'parked',
      lastError: 'exit code 3, signal null',
    });
  });
});
