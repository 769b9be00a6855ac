/**
 * A worker process's side of the supervisor protocol (`ipc.ts`): it queues messages until its
 * engine has loaded its state, reports counters every second and when it goes idle or busy, sends
 * handoffs to their owner, obeys stop/pause/complete/resend, and exits by itself when the supervisor
 * goes away (the IPC channel closes). A full disk ends it with `diskFull` and exit code
 * DISK_FULL_EXIT_CODE, not as a crash.
 */
import type { Logger } from 'pino';
import { asSharedCrawlFault, faultExitCode } from '../backends/redis/redis-faults.js';
import type { Crawler, Partition } from '../engine/crawler.js';
import type { BudgetEvent, RateBudgets } from '../engine/rate-gate.js';
import { DISK_FULL_EXIT_CODE, diskFullPath, isDiskFull } from '../sinks/disk-full.js';
import { SOURCE_STOPPED_EXIT_CODE } from '../sources/source-stop.js';
import type { FromWorker, ToWorker, WorkerInit } from './ipc.js';
import { RemoteRateBudgets } from './rate-budget-client.js';
import { type CountedItem, CounterSet } from './worker-counters.js';

/** Extra time a worker whose supervisor died gives itself beyond its join timeout, ms. */
const ORPHAN_GRACE_MS = 2000;

/** Counters reported every this often, ms. */
const STATS_PERIOD_MS = 1000;

/** Slowed hosts reported in each stats message (status shows them), the longest gap first. */
const SLOWED_HOSTS_REPORTED = 10;

/**
 * Whether all of the crawler's pending work waits on its hosts — politeness, Retry-After, a
 * slow-down or a retry's back-off: URLs queued, none in flight or being stored, and no host ready
 * now. Such a worker is waiting, not stalled (a stall is eligible work not being done).
 */
export function waitingOnHosts(c: Pick<Crawler, 'busy' | 'frontier'>): boolean {
  return c.busy === 0 && c.frontier.queued > 0 && c.frontier.nextReadyIn() > 0;
}

/** What the protocol hands the composition root to build the engine with. */
export interface WorkerWiring {
  /** The worker's place among its siblings, reporting through the supervisor. */
  partition: Partition;
  /** Call on every item written (progress, for the stall watch; counters for status and metrics). */
  onItem(item: CountedItem): void;
  /** Call after every HTTP request with its duration, ms (metrics). */
  onFetch(ms: number): void;
  /** Call when a host is paused by Retry-After or rate-limit headers, ms (metrics). */
  onRateLimitWait(ms: number): void;
  /** Call when a source's rate budget holds a request back, or a response was a rate-limit refusal. */
  onBudget(event: BudgetEvent): void;
  /** Call with a warning line for a person (the supervisor shows it). */
  onWarning(line: string): void;
  /** Call on every line the source logs (warnings and errors are counted). */
  onSourceLog(level: 'info' | 'warn' | 'error'): void;
  /** The collector's rate budgets, held by the supervisor. */
  rateBudgets: RateBudgets;
}

/** The engine of a worker, with its log. */
export interface OpenedWorker {
  crawler: Crawler;
  /** The worker restores its state from disk (`--resume`, or a restart). */
  resume: boolean;
  /** Time its in-flight requests get at stop, ms. */
  joinTimeoutMs: number;
  log: Logger;
  /** What stopped the worker from outside its engine (a shared crawl's fault), once something did. */
  failure?: () => Error | null;
  /** Flush and close the log. */
  closeLog(): Promise<void>;
}

/**
 * Send to the supervisor. The channel can close at any moment (the supervisor was killed): the
 * worker then stops by itself (see 'disconnect'), and a send that fails (EPIPE) is dropped.
 */
function send(msg: FromWorker): void {
  if (!process.connected) return;
  try {
    process.send?.(msg, undefined, {}, () => {});
  } catch {
    // ERR_IPC_CHANNEL_CLOSED: closed between the check and the send
  }
}

/** Send a last message, then exit with `code` (once the message is out, or at once without IPC). */
function exitAfter(msg: FromWorker, code: number): void {
  if (!process.connected) process.exit(code);
  try {
    process.send?.(msg, undefined, {}, () => process.exit(code));
  } catch {
    process.exit(code);
  }
}

/**
 * Serve the supervisor from this process: wait for `init`, build the engine with `open` (which may
 * load the source first), run it. The process exits 0 when the run is over, 1 (after a `fatal`
 * message) when it failed, DISK_FULL_EXIT_CODE (after a `diskFull` message) when a full disk
 * stopped it, and after a `sharedFault` message the fault's code (76 the shared crawl's state lost, 1
 * Redis out of memory past its bound) when its shared backend stopped it.
 */
export function serveSupervisor(
  open: (init: WorkerInit, wiring: WorkerWiring) => OpenedWorker | Promise<OpenedWorker>,
): void {
  let crawler: Crawler | null = null;
  let received = 0;
  let idle = false;
  let lastProgressAt = Date.now();
  let waitingAt = 0;
  const counters = new CounterSet();
  const early: ToWorker[] = [];
  const budgets = new RemoteRateBudgets(send);

  const stats = (): FromWorker => {
    const c = crawler as Crawler;
    const s = c.stats;
    if (waitingOnHosts(c)) waitingAt = Date.now();
    return {
      t: 'stats',
      items: s.items,
      itemsThisRun: s.itemsThisRun,
      errors: s.errors,
      queued: c.pending,
      inFlight: c.busy,
      bytes: s.bytes,
      received,
      idle,
      rss: process.memoryUsage.rss(),
      lastProgressAt,
      waitingAt: waitingAt || undefined,
      slowedHosts: c.frontier.politeness?.(SLOWED_HOSTS_REPORTED),
      skipped: s.skipped,
      collected: s.collected,
      failedSeeds: s.failedSeeds,
      counters: counters.snapshot(),
      ...(c.rendering === null ? {} : { rendered: c.rendering.rendered, browserPid: c.rendering.browserPid }),
    };
  };

  const handle = (msg: ToWorker): void => {
    const c = crawler;
    if (c === null) {
      early.push(msg);
      return;
    }
    switch (msg.t) {
      case 'links':
        received += msg.links.length;
        c.receive(msg.links);
        // Idle and staying idle (every link already known): say so now, so the supervisor can
        // see the crawl is over without waiting for the next periodic report.
        if (idle) setImmediate(() => idle && send(stats()));
        break;
      case 'resend': {
        const owner = msg.owner;
        void c.resendHandoffs(owner).then(
          (count) => send({ t: 'resent', owner, count }),
          () => send({ t: 'resent', owner, count: 0 }),
        );
        break;
      }
      case 'complete':
        c.endWhenIdle();
        break;
      case 'stop':
        c.stop();
        break;
      case 'pause':
        c.setPaused(msg.paused);
        break;
    }
  };

  const main = async (init: WorkerInit): Promise<string | null> => {
    const {
      crawler: c,
      log,
      closeLog,
      resume,
      joinTimeoutMs,
      failure: stoppedBy,
    } = await open(init, {
      partition: {
        index: init.index,
        count: init.count,
        by: init.partition,
        handoff: (to, links) => send({ t: 'handoff', to, links }),
        onIdle: (isIdle) => {
          idle = isIdle;
          send(stats());
        },
      },
      onItem: (item) => {
        lastProgressAt = Date.now();
        counters.item(item);
      },
      onFetch: (ms) => counters.fetch(ms),
      onRateLimitWait: (ms) => counters.rateLimitWait(ms),
      onBudget: (event) => counters.budget(event),
      onWarning: (line) => send({ t: 'warning', line }),
      onSourceLog: (level) => counters.sourceLog(level),
      rateBudgets: budgets,
    });
    // The supervisor died (IPC closed): stop by ourselves, never linger as an orphan.
    process.on('disconnect', () => {
      budgets.close();
      if (crawler === null) process.exit(0);
      c.stop();
      setTimeout(() => process.exit(0), joinTimeoutMs + ORPHAN_GRACE_MS).unref();
    });
    process.on('SIGTERM', () => c.stop());
    process.on('SIGINT', () => {
      // The terminal's Ctrl-C reaches the whole process group; the supervisor decides.
    });
    await c.start();
    // Messages that arrived while the state was loading are handled now, in order.
    crawler = c;
    for (const m of early.splice(0)) handle(m);
    send({ t: 'ready' });
    if (resume) {
      // Links this worker handed off just before it stopped may never have reached their owner
      // (batched, or in flight when it died): send its handoff logs again; owners drop duplicates.
      for (let owner = 0; owner < init.count; owner++) {
        if (owner !== init.index) await c.resendHandoffs(owner);
      }
    }
    const timer = setInterval(() => send(stats()), STATS_PERIOD_MS);
    timer.unref();
    let completed = false;
    let closeError: unknown = null;
    try {
      completed = await c.run();
    } finally {
      clearInterval(timer);
      await c.close().catch((e) => {
        closeError = e;
      });
      send(stats());
      send({ t: 'exiting', completed });
      log.info({ completed, ...c.stats }, 'worker done');
      await closeLog();
    }
    const failure = stoppedBy?.() ?? c.writeError ?? closeError;
    if (failure !== null) throw failure;
    return c.stoppedBySource;
  };

  process.on('message', (msg: ToWorker) => {
    if (msg.t === 'budget-grant') {
      budgets.settle(msg.id, msg.grant);
      return;
    }
    if (msg.t !== 'init') {
      handle(msg);
      return;
    }
    main(msg).then(
      (stoppedBySource) => {
        // Its source cannot go on (a credential refused): not a crash, and not to be restarted.
        if (stoppedBySource !== null) {
          exitAfter({ t: 'sourceStopped', message: stoppedBySource }, SOURCE_STOPPED_EXIT_CODE);
          return;
        }
        if (process.connected) process.disconnect?.();
        process.exitCode = 0;
      },
      (e: Error) => {
        // A shared crawl's fault is not a crash either (a restart would crawl again from nothing).
        const fault = asSharedCrawlFault(e);
        if (fault !== null) {
          exitAfter(
            { t: 'sharedFault', kind: fault.kind, message: fault.message },
            faultExitCode(fault.kind),
          );
          return;
        }
        // A full disk is not a crash: the supervisor stops the crawl and says so in one line.
        if (isDiskFull(e)) {
          exitAfter({ t: 'diskFull', path: diskFullPath(e, msg.options.out) }, DISK_FULL_EXIT_CODE);
          return;
        }
        send({ t: 'fatal', message: e.message });
        process.stderr.write(`collector worker: ${e.stack ?? e.message}\n`);
        process.exit(1);
      },
    );
  });
}
