/**
 * Picks the implementations the crawl engine runs on: the embedded ones (the in-memory frontier
 * with its politeness clock, the fingerprint seen-set, the content index over the worker's items
 * file; their state made crash-safe by the engine's journal). The shared one (`--backend
 * redis://…`) is picked in `shared-backend.ts`, loaded only when asked for.
 */
import type { CrawlOptions } from '../config/crawl-options.js';
import { ContentIndex } from '../dedup/content-index.js';
import { FingerprintSet } from '../dedup/fingerprint-set.js';
import type { EngineBackend } from '../engine/crawler.js';
import { Frontier } from '../frontier/frontier.js';

/** Seen-set members one worker is sized for before its table first grows. */
const SEEN_INITIAL_CAPACITY = 1 << 14;

/** The embedded backend of one worker, with its politeness from `opts`. */
export function embeddedBackend(opts: CrawlOptions): EngineBackend {
  return {
    frontier: new Frontier({
      delayMs: opts.delay,
      jitter: opts.jitter,
      hostConcurrency: opts.hostConcurrency,
      maxPenaltyMs: opts.maxRetryAfter,
    }),
    seen: new FingerprintSet(SEEN_INITIAL_CAPACITY),
    openContentIndex: (files) => new ContentIndex(files),
  };
}
