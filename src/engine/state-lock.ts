/**
 * The lock a worker process holds on its state dir (`state/<worker-id>/worker.lock`) for its
 * whole life, so no other process reads or writes that worker's frontier log, items or handoff
 * logs while it runs — not a second collector, and not a new run while a worker of the previous
 * one (orphaned by a killed supervisor) is still finishing its requests.
 */
import path from 'node:path';
import { acquireLock, type HeldLock, LockHeldError } from '../sinks/lock-file.js';
import { describeProcess } from '../sinks/process-identity.js';

/** Name of the lock file inside a worker's state dir. */
export const WORKER_LOCK_FILE = 'worker.lock';

/**
 * How long a worker waits for the previous holder of its state dir to exit, ms. The supervisor
 * has already waited for the previous run's workers (output-lock.ts); this only covers a holder
 * that appeared since.
 */
export const WORKER_LOCK_WAIT_MS = 15_000;

/** Poll period while waiting, ms. */
const POLL_MS = 100;

/**
 * Take `<stateDir>/worker.lock`, waiting up to `waitMs` for a running holder to exit.
 * @throws Error naming the holder when it is still running after `waitMs`; the fs error (e.g.
 *   ENOSPC) when the lock cannot be written.
 */
export async function lockWorkerState(stateDir: string, waitMs = WORKER_LOCK_WAIT_MS): Promise<HeldLock> {
  const file = path.join(stateDir, WORKER_LOCK_FILE);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await acquireLock(file);
    } catch (e) {
      if (!(e instanceof LockHeldError) || Date.now() >= deadline) {
        if (e instanceof LockHeldError) {
          const who = e.holder ? describeProcess(e.holder) : 'another process';
          throw new Error(`${stateDir} is in use by ${who}, which did not exit within ${waitMs} ms`);
        }
        throw e;
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}
