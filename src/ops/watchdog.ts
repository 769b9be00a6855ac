/**
 * `collector watchdog`, run from cron every few minutes: silent while the collector on a data dir
 * is healthy; when its supervisor is dead or hung, its workers stay down, or it makes no progress
 * with work pending, it stops what is left (only processes proven to be this collector's),
 * starts it again as recorded, waits until it is healthy, and says in one line what it found and
 * did. It never starts a second copy (the data-dir lock) and never loops: after `maxRestarts`
 * restarts within an hour it says "giving up" once per incident (until a restart is tried again,
 * or the collector is healthy), with the last error, and waits for the hour to pass. Nor does it
 * restart onto a full disk: below {@link RESTART_MIN_FREE_BYTES} or {@link RESTART_MIN_FREE_INODES}
 * free on the data dir's filesystem it says which (once an hour) and restarts when space is freed.
 */
import path from 'node:path';
import { checkOutputFree } from '../runtime/output-lock.js';
import { type DiskSpace, diskSpace, freeMegabytes, isDiskFull } from '../sinks/disk-full.js';
import { credentialWarnings } from '../supervision/launch-record.js';
import { readStatusFile, type StatusFile } from '../supervision/status-format.js';
import { restartLogPath, startCollector, stopCollector } from './collector-process.js';
import { ago, assessHealth, DEFAULT_STALL_MS, type Health } from './health.js';
import { readOpsState, writeOpsState } from './ops-state.js';

/** Default of `--max-restarts`: restarts within {@link RESTART_WINDOW_MS} before giving up. */
export const DEFAULT_MAX_RESTARTS = 3;
/** Window in which restarts are counted, and the shortest gap between two identical complaints, ms (1 h). */
export const RESTART_WINDOW_MS = 3_600_000;
/** Default of `--settle`: how long a restarted collector gets to show it is healthy, ms. */
export const DEFAULT_SETTLE_MS = 60_000;
/** Beyond two status periods, how long a restarted collector must stay healthy to count as repaired, ms. */
export const STEADY_MARGIN_MS = 1000;
/** How long a held data-dir lock is tried again before the watchdog says it is in use, ms. */
export const LOCK_RETRY_MS = 5000;
/**
 * Free space (bytes, statfs `bavail × bsize`) on the data dir's filesystem below which the watchdog
 * does not restart the collector (16 MiB): it would stop again at once with "disk full".
 */
export const RESTART_MIN_FREE_BYTES = 16 * 1048576;
/**
 * Free inodes on the data dir's filesystem below which the watchdog does not restart the collector
 * (1024): every stored page is a new file, so it would stop again at once with ENOSPC.
 */
export const RESTART_MIN_FREE_INODES = 1024;
/** Longest wait for the supervisor to bring crashed workers back before acting, ms. */
export const MAX_WORKER_GRACE_MS = 60_000;

/** Watchdog settings. */
export interface WatchdogOptions {
  /** Absolute data directory. */
  dataDir: string;
  /** Fewer live workers than this is unhealthy (default: all planned and not finished). */
  minWorkers?: number;
  /** No progress for this long with work pending is a stall, ms. */
  stallMs?: number;
  maxRestarts?: number;
  settleMs?: number;
  /** The clock, epoch ms (default `Date.now`): tests move it instead of waiting. */
  now?: () => number;
  /** Measures the data dir's filesystem (default {@link diskSpace}): tests hand in a full one. */
  diskSpace?: (p: string) => DiskSpace | null;
}

/** What the watchdog concluded: the line to tell (null: stay silent) and the exit code. */
export interface WatchdogResult {
  /** One line for a person, or null when there is nothing to say. */
  line: string | null;
  /** 0 healthy or nothing to do, 1 restarted, 3 could not restart (failed, giving up, nothing recorded). */
  exitCode: 0 | 1 | 3;
}

interface RestartRecord {
  /** Epoch ms. */
  at: number;
  ok: boolean;
  found: string;
  error: string | null;
}

/** `<data>/state/watchdog.json`. */
interface WatchdogState {
  version: 1;
  restarts: RestartRecord[];
  /**
   * The last line said without an action (not running, giving up, disk full) and when: the same
   * incident is not said again within the window. `incident` names it (a line's numbers change
   * from run to run: "heartbeat 7m ago", "3.2 MB free"); absent in files of older versions, where
   * the text is the incident.
   */
  lastComplaint: { text: string; at: number; incident?: string } | null;
}

const EMPTY: WatchdogState = { version: 1, restarts: [], lastComplaint: null };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function loadState(dataDir: string, now: number): Promise<WatchdogState> {
  const s = await readOpsState<WatchdogState>(
    dataDir,
    'watchdog',
    EMPTY,
    (v) => (v as WatchdogState)?.version === 1 && Array.isArray((v as WatchdogState).restarts),
  );
  return { ...s, restarts: s.restarts.filter((r) => now - r.at < RESTART_WINDOW_MS) };
}

/**
 * A complaint said once per incident and at most once per window (cron would otherwise mail it
 * every 5 minutes): `incident` names what is wrong without the numbers that change between runs.
 */
async function complain(
  dataDir: string,
  state: WatchdogState,
  incident: string,
  text: string,
  now: number,
): Promise<WatchdogResult> {
  const last = state.lastComplaint;
  const repeat =
    last !== null && (last.incident ?? last.text) === incident && now - last.at < RESTART_WINDOW_MS;
  if (!repeat) {
    try {
      await writeOpsState(dataDir, 'watchdog', { ...state, lastComplaint: { text, at: now, incident } });
    } catch (e) {
      // On a full disk the complaint cannot be remembered: it is said at every run until there is room.
      if (!isDiskFull(e)) throw e;
    }
  }
  return { line: repeat ? null : text, exitCode: 3 };
}

/**
 * Why the data dir's filesystem has no room for a restarted collector (bytes or inodes), as the
 * incident and the words of the complaint; null when there is room (or it cannot be measured).
 */
function noRoom(space: DiskSpace | null, dataDir: string): { incident: string; text: string } | null {
  if (space === null) return null;
  const mb = freeMegabytes(space.freeBytes);
  if (space.freeBytes < RESTART_MIN_FREE_BYTES)
    return { incident: 'disk-full', text: `disk full at ${dataDir} (${mb} MB free): free space` };
  if (space.freeInodes !== null && space.freeInodes < RESTART_MIN_FREE_INODES) {
    return {
      incident: 'no-inodes',
      text: `no free inodes on ${dataDir} (${space.freeInodes} left, ${mb} MB free): remove files`,
    };
  }
  return null;
}

/** The last error the workers reported, for "giving up" and failed restarts. */
function lastError(status: StatusFile | null): string | null {
  const w = status?.workers.filter((x) => x.lastError).at(-1);
  return w ? `${w.id}: ${w.lastError}` : null;
}

/**
 * Wait up to `ms` for the collector to be healthy again under a new supervisor, and to stay so
 * for two status periods with no worker starting or restarted meanwhile (a worker that crashes as
 * it starts is up for a moment: that is not a repair). A restarted crawl that finishes meanwhile counts as healthy.
 * `child.exited` is set (by the caller) when the started process exits; the status read after
 * that is the one returned, since a collector writes its last status.json before it exits.
 * Exported for tests. Never throws for a missing or damaged status.json (it waits, then says so).
 */
export async function awaitHealthy(
  opts: WatchdogOptions,
  old: StatusFile['supervisor'],
  child: { exited: string | null },
  ms: number,
): Promise<{ status: StatusFile | null; health: Health | null; why: string | null }> {
  const end = Date.now() + ms;
  let status: StatusFile | null = null;
  let health: Health | null = null;
  let healthySince: number | null = null;
  let restartsSeen: number | null = null;
  const fromRestarted = (s: StatusFile | string): s is StatusFile =>
    typeof s !== 'string' && (s.supervisor.pid !== old.pid || s.supervisor.startTicks !== old.startTicks);
  for (;;) {
    // Read before looking at the exit: a collector writes its last status.json before it exits.
    const exitedBefore = child.exited;
    const s = await readStatusFile(opts.dataDir);
    if (fromRestarted(s)) {
      status = s;
      // No stall judgement here: a restarted collector cannot have stalled for a whole stall
      // period within the settle time; the next watchdog run judges that.
      health = assessHealth(s, { minWorkers: opts.minWorkers, stallMs: Number.POSITIVE_INFINITY });
      // A crawl that finished is repaired; one that ended with a worker type parked (crashing in
      // a loop) is not, whatever health says of a collector that is over.
      const parked = s.workers.some((w) => w.state === 'parked');
      if (health.problem === null && s.state === 'finished' && !parked) return { status, health, why: null };
      // Steady means no worker restarted meanwhile and none is still starting: a worker that
      // crashes soon after it starts may look up in every status a loaded machine writes.
      const restarts = s.workers.reduce((n, w) => n + w.restarts, 0);
      const unsteady =
        (restartsSeen !== null && restarts > restartsSeen) || s.workers.some((w) => w.state === 'starting');
      restartsSeen = restarts;
      if (health.verdict !== 'healthy' || unsteady) healthySince = null;
      else {
        healthySince ??= Date.now();
        if (Date.now() - healthySince >= 2 * s.timings.statusIntervalMs + STEADY_MARGIN_MS) {
          return { status, health, why: null };
        }
      }
    }
    if (exitedBefore !== null && (health === null || health.verdict !== 'healthy')) {
      return { status, health, why: `it exited (${child.exited})` };
    }
    if (Date.now() > end) {
      return { status, health, why: health ? health.summary : `no status.json from it within ${ago(ms)}` };
    }
    await sleep(250);
  }
}

/**
 * Whether the data-dir lock is free (taken and given back at once), retried for
 * {@link LOCK_RETRY_MS}: a supervisor that was just killed may linger as a zombie until its
 * parent reaps it, and the lock counts it as alive meanwhile.
 * @returns null when free, else the lock's message (another collector holds the data dir).
 */
async function lockFree(dataDir: string): Promise<string | null> {
  const end = Date.now() + LOCK_RETRY_MS;
  for (;;) {
    try {
      await checkOutputFree(dataDir, '--data');
      return null;
    } catch (e) {
      if (Date.now() > end) return (e as Error).message;
      await sleep(250);
    }
  }
}

/** Check the collector on `opts.dataDir` once, and act if it is unhealthy. */
export async function runWatchdog(opts: WatchdogOptions): Promise<WatchdogResult> {
  const stallMs = opts.stallMs ?? DEFAULT_STALL_MS;
  const clock = opts.now ?? Date.now;
  const state = await loadState(opts.dataDir, clock());
  let status = await readStatusFile(opts.dataDir);
  if (typeof status === 'string') {
    const why = {
      missing: 'no status.json: never started on this data dir, so there is no command line to restart',
      unreadable: 'status.json is damaged: restart the collector by hand once',
      'old-format': 'status.json was written by an older collector: restart it by hand once',
    }[status];
    return complain(opts.dataDir, state, `not-running:${status}`, `not running: ${why}`, clock());
  }
  let health = assessHealth(status, { minWorkers: opts.minWorkers, stallMs, now: clock() });
  if (health.problem === 'workers-down' && health.restarting + health.workersUp >= health.workersNeeded) {
    // The supervisor is bringing crashed workers back: give it its backoff before acting.
    const grace = Math.min(
      MAX_WORKER_GRACE_MS,
      2 * status.timings.restartBackoffMs + 2 * status.timings.statusIntervalMs,
    );
    await sleep(grace);
    const again = await readStatusFile(opts.dataDir);
    if (typeof again !== 'string') {
      status = again;
      health = assessHealth(status, { minWorkers: opts.minWorkers, stallMs, now: clock() });
    }
  }
  if (health.problem === null) {
    if (state.lastComplaint !== null)
      await writeOpsState(opts.dataDir, 'watchdog', { ...state, lastComplaint: null });
    return { line: null, exitCode: 0 };
  }
  const found = health.summary;
  const full = noRoom((opts.diskSpace ?? diskSpace)(opts.dataDir), opts.dataDir);
  if (full !== null) {
    // Not an attempt towards giving up: nothing was restarted.
    return complain(
      opts.dataDir,
      state,
      full.incident,
      `not restarted: ${found}; ${full.text}, then the next watchdog run restarts it`,
      clock(),
    );
  }
  const maxRestarts = opts.maxRestarts ?? DEFAULT_MAX_RESTARTS;
  if (state.restarts.length >= maxRestarts) {
    const last = state.restarts.at(-1);
    const err = last?.error ?? lastError(status) ?? 'none recorded';
    // One incident: these restarts. Its finding ("heartbeat 7m ago") changes from run to run;
    // a new restart after the window makes a new incident.
    return complain(
      opts.dataDir,
      state,
      `giving-up:${last?.at ?? 0}`,
      `giving up: ${state.restarts.length} restarts in the last hour and still unhealthy (${found}); ` +
        `last error: ${err}; see ${path.join(opts.dataDir, 'logs')}/`,
      clock(),
    );
  }
  // Counted before acting: a watchdog killed mid-restart still used up an attempt.
  const record: RestartRecord = { at: clock(), ok: false, found, error: null };
  await writeOpsState(opts.dataDir, 'watchdog', { ...state, restarts: [...state.restarts, record] });
  const stopped = await stopCollector(status, opts.dataDir);
  if (stopped.left.length > 0) {
    record.error = `processes ${stopped.left.join(', ')} would not stop`;
    await writeOpsState(opts.dataDir, 'watchdog', { ...state, restarts: [...state.restarts, record] });
    return { line: `not restarted: ${found}; ${record.error}`, exitCode: 3 };
  }
  const lockError = await lockFree(opts.dataDir);
  if (lockError !== null) {
    // Another collector runs on this data dir (started by hand, or by systemd): nothing was
    // restarted, so this is no attempt towards giving up.
    await writeOpsState(opts.dataDir, 'watchdog', state);
    return { line: `not restarted: ${found}; ${lockError}`, exitCode: 3 };
  }
  const killed = stopped.killed.length ? ` (killed ${stopped.killed.join(', ')})` : '';
  const child = { exited: null as string | null };
  try {
    const proc = startCollector(status, opts.dataDir, found);
    proc.on('exit', (code, sig) => {
      child.exited = sig ? `signal ${sig}` : `exit code ${code}`;
    });
    proc.on('error', (e) => {
      child.exited = e.message;
    });
  } catch (e) {
    child.exited = (e as Error).message;
  }
  const after = await awaitHealthy(opts, status.supervisor, child, opts.settleMs ?? DEFAULT_SETTLE_MS);
  record.ok = after.why === null;
  record.error = after.why === null ? null : (lastError(after.status) ?? after.why);
  await writeOpsState(opts.dataDir, 'watchdog', { ...state, restarts: [...state.restarts, record] });
  if (after.why === null) {
    const h = after.health as Health;
    const result =
      after.status?.state === 'finished' ? 'it finished' : `${h.workersUp}/${h.workersNeeded} workers up`;
    // Restarted with this watchdog's environment: a token it lacks, the collector lacks too.
    const without = credentialWarnings(after.status?.launch ?? {});
    const but = without.length > 0 ? `; but ${without.join('; ')}` : '';
    return { line: `restarted: ${found}${killed}; ${result}${but}`, exitCode: 1 };
  }
  return {
    line: `restart failed: ${found}${killed}; started again but ${after.why} (see ${restartLogPath(opts.dataDir)})`,
    exitCode: 3,
  };
}
