/**
 * Entry point of a worker process (forked by the supervisor): its own HTTP session, state dir and
 * log. This is the worker's composition root: it builds the crawl engine on the backend picked
 * here; the supervisor protocol (`supervision/worker-protocol.ts`) drives it.
 */
import { Crawler } from '../engine/crawler.js';
import { createSource } from '../sources/registry.js';
import { serveSupervisor } from '../supervision/worker-protocol.js';
import { embeddedBackend } from './backend.js';
import { openWorkerLog } from './logger.js';

serveSupervisor((init, wiring) => {
  const opts = init.options;
  const { log, close } = openWorkerLog(opts.out, init.id);
  const crawler = new Crawler(opts, {
    workerId: init.id,
    source: createSource(init.type),
    log,
    backend: embeddedBackend(opts),
    ...wiring,
  });
  return { crawler, log, closeLog: close, resume: opts.resume, joinTimeoutMs: opts.joinTimeout };
});
