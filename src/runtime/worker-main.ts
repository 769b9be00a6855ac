/**
 * Entry point of a worker process (forked by the supervisor): its own HTTP session, state dir
 * and log. It crawls the URLs it owns, hands the others to their owner through the supervisor,
 * reports counters every second, and exits by itself when the supervisor goes away.
 */
import { parseCrawlOptions } from '../config/crawl-options.js';
import { DISK_FULL_EXIT_CODE, diskFullPath, isDiskFull } from '../sinks/disk-full.js';
import { Crawler } from './crawler.js';
import type { FromWorker, ToWorker, WorkerInit } from './ipc.js';
import { openWorkerLog } from './logger.js';
import { createSource } from './source-registry.js';

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

let crawler: Crawler | null = null;
let received = 0;
let idle = false;
let lastProgressAt = Date.now();
const early: ToWorker[] = [];

function stats(): FromWorker {
  const c = crawler as Crawler;
  const s = c.stats;
  return {
    t: 'stats',
    items: s.items,
    itemsThisRun: s.itemsThisRun,
    errors: s.errors,
    queued: c.frontier.queued,
    inFlight: c.busy,
    bytes: s.bytes,
    received,
    idle,
    rss: process.memoryUsage.rss(),
    lastProgressAt,
    skipped: s.skipped,
  };
}

function handle(msg: ToWorker): void {
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
    case 'finish':
      c.finishWhenIdle();
      break;
    case 'stop':
      c.stop();
      break;
    case 'pause':
      c.setPaused(msg.paused);
      break;
  }
}

async function main(init: WorkerInit): Promise<void> {
  const opts = parseCrawlOptions(init.options);
  const { log, close: closeLog } = openWorkerLog(opts.out, init.id);
  const source = createSource(init.type);
  const c = new Crawler(opts, {
    workerId: init.id,
    source,
    log,
    onItem: () => {
      lastProgressAt = Date.now();
    },
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
  });
  // The supervisor died (IPC closed): stop by ourselves, never linger as an orphan.
  process.on('disconnect', () => {
    if (crawler === null) process.exit(0);
    c.stop();
    setTimeout(() => process.exit(0), opts.joinTimeout + 2000).unref();
  });
  const onSignal = () => c.stop();
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', () => {
    // The terminal's Ctrl-C reaches the whole process group; the supervisor decides.
  });
  await c.start(init.seeds);
  // Messages that arrived while the state was loading are handled now, in order.
  crawler = c;
  for (const m of early.splice(0)) handle(m);
  send({ t: 'ready' });
  if (opts.resume) {
    // Links this worker handed off just before it stopped may never have reached their owner
    // (batched, or in flight when it died): send its handoff logs again; owners drop duplicates.
    for (let owner = 0; owner < init.count; owner++) {
      if (owner !== init.index) await c.resendHandoffs(owner);
    }
  }
  const timer = setInterval(() => send(stats()), 1000);
  timer.unref();
  let finished = false;
  let closeError: unknown = null;
  try {
    finished = await c.run();
  } finally {
    clearInterval(timer);
    await c.close().catch((e) => {
      closeError = e;
    });
    send(stats());
    send({ t: 'done', finished });
    log.info({ finished, ...c.stats }, 'worker done');
    await closeLog();
  }
  const failure = c.writeError ?? closeError;
  if (failure !== null) throw failure;
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

process.on('message', (msg: ToWorker) => {
  if (msg.t === 'init') {
    main(msg).then(
      () => {
        if (process.connected) process.disconnect?.();
        process.exitCode = 0;
      },
      (e: Error) => {
        // A full disk is not a crash: the supervisor stops the crawl and says so in one line.
        if (isDiskFull(e)) {
          exitAfter({ t: 'diskFull', path: diskFullPath(e, msg.options.out ?? '.') }, DISK_FULL_EXIT_CODE);
          return;
        }
        send({ t: 'fatal', message: e.message });
        process.stderr.write(`collector worker: ${e.stack ?? e.message}\n`);
        process.exit(1);
      },
    );
  } else handle(msg);
});
