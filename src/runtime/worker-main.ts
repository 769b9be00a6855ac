/**
 * Entry point of a worker process (forked by the supervisor): its own HTTP session, state dir and
 * log. This is the worker's composition root: it loads the worker type's source (a built-in, or a
 * module by path) and builds the crawl engine on the backend picked here; the supervisor protocol
 * (`supervision/worker-protocol.ts`) drives it.
 */
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
  const crawler = new Crawler(opts, {
    workerId: init.id,
    source: { loaded, options, rawOptions: init.sourceOptions, seeds: init.seeds },
    log,
    backend: embeddedBackend(opts),
    ...wiring,
  });
  return { crawler, log, closeLog: close, resume: opts.resume, joinTimeoutMs: opts.joinTimeout };
});
