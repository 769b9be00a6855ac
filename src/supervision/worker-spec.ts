/**
 * One worker process to run (a plan is a list of them), and the per-process politeness of a
 * worker type whose processes share one host (`partition: url`).
 */
import type { CrawlOptions } from '../config/crawl-options.js';
import type { SourceRef } from '../sources/load-source.js';
import { hostKey } from '../url/canonicalize.js';

/** One worker process to run. */
export interface WorkerSpec {
  /** e.g. `crawl-0`: names its items file, state dir and log. */
  id: string;
  /** Source name. */
  type: string;
  /** Worker type name (the processes that share ownership of URLs), e.g. `crawl` or `docs`. */
  group: string;
  /** Position among the processes of its type. */
  index: number;
  /** Processes of its type. */
  count: number;
  partition: 'host' | 'url';
  /** Its options, parsed (plain JSON: sent as they are). */
  options: CrawlOptions;
  /** All seeds of the type; each worker queues those it owns. */
  seeds: string[];
  /** The type's source, as each worker loads it. */
  source: SourceRef;
  /** The source's options as written. */
  sourceOptions: Record<string, unknown>;
  /** Pause between rounds for continuous sources, ms; undefined = one round (one-shot). */
  intervalMs?: number;
  /** Names of the environment variables holding the source's credentials (its `credentialEnv`). */
  credentialEnv?: string[];
}

/**
 * The partition of a worker type when none is given: `url` when all seeds are on one host (one big
 * site: its processes share it), else `host` (each host's politeness lives in one process).
 */
export function defaultPartition(seeds: string[]): 'host' | 'url' {
  return new Set(seeds.map((s) => hostKey(s))).size <= 1 ? 'url' : 'host';
}

/**
 * Options of one of `processes` workers that share a host (`partition: url`): each keeps
 * delay × processes and hostConcurrency / processes (at least 1), so the host still sees the
 * configured rate and concurrency in total.
 * @param options the type's options (delay in ms); not changed.
 * @returns the options of each of its processes.
 */
export function splitPoliteness(options: CrawlOptions, processes: number): CrawlOptions {
  if (processes <= 1) return options;
  return {
    ...options,
    delay: options.delay * processes,
    hostConcurrency: Math.max(1, Math.floor(options.hostConcurrency / processes)),
  };
}
