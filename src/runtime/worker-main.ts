/**
 * Entry point of a worker process (forked by the supervisor): its own HTTP session, state dir and
 * log. This is the worker's composition root: it loads the worker type's source (a built-in, or a
 * module by path) and builds the crawl engine on the backend picked here; the supervisor protocol
 * (`supervision/worker-protocol.ts`) drives it.
 */
import type { SharedCrawlFault } from '../backends/redis/redis-faults.js';
import type { EngineBackend } from '../engine/crawler.js';
import { Crawler } from '../engine/crawler.js';
import { loadSource } from '../sources/load-source.js';
import { parseSourceOptions } from '../sources/source-options.js';
import { serveSupervisor } from '../supervision/worker-protocol.js';
import { embeddedBackend } from './backend.js';
import { openWorkerLog } from './logger.js';

serveSupervisor(async (init, wiring) => {
  const opts = init.options;
  // Checked in full before the start (unknown keys, clashes); parsed again here.
  const loaded = await loadSource(init.source);
  const options = parseSourceOptions(loaded.def, init.sourceOptions, new Set(), { prefix: '', base: [] });
  const { log, close } = openWorkerLog(opts.out, init.id);
  const live: { crawler?: Crawler } = {};
  let fault: SharedCrawlFault | null = null;
  let backend: EngineBackend;
  let partition = wiring.partition;
  let rateBudgets = wiring.rateBudgets;
  if (opts.backend === 'embedded') backend = embeddedBackend(opts);
  else {
    // Each process of the type is a machine of its shared crawl: its own leases and heartbeat.
    const shared = (await import('./shared-backend.js')).redisBackend(opts, opts.crawlId ?? 'default', {
      log,
      onStop: () => live.crawler?.stop(),
      // The worker stops, and ends with the fault (the supervisor stops the others and says it).
      onFatal: (f) => {
        fault ??= f;
        live.crawler?.stop();
      },
      say: (line) => wiring.onWarning(line),
      status: () => ({
        items: live.crawler?.stats.itemsThisRun ?? 0,
        errors: live.crawler?.stats.errors ?? 0,
        state: live.crawler?.isStopping ? 'stopping' : 'running',
      }),
    });
    await shared.start();
    backend = shared.backend;
    // A source's rate budgets (GitHub's) are the crawl's, across machines, not this collector's.
    rateBudgets = shared.rateBudgets;
    // Every URL comes from the shared frontier: this process owns them all and hands none off.
    partition = { ...wiring.partition, index: 0, count: 1 };
  }
  const crawler = new Crawler(opts, {
    workerId: init.id,
    source: { loaded, options, rawOptions: init.sourceOptions, seeds: init.seeds },
    log,
    backend,
    ...wiring,
    partition,
    rateBudgets,
  });
  live.crawler = crawler;
  return {
    crawler,
    log,
    closeLog: close,
    resume: opts.resume,
    joinTimeoutMs: opts.joinTimeout,
    failure: () => fault,
  };
});
