/**
 * Messages between the supervisor and its worker processes (Node IPC, JSON). Shared state is
 * only counters, the stop signal and status; links travel only to their owner.
 */
import type { CrawlOptionsInput } from '../config/crawl-options.js';

/** Everything a worker needs to start. Options are sent as written (JSON-safe) and parsed there. */
export interface WorkerInit {
  t: 'init';
  /** e.g. `crawl-1`: names its items file, state dir and log. */
  id: string;
  /** Worker type (source name). */
  type: string;
  index: number;
  count: number;
  partition: 'host' | 'url';
  options: CrawlOptionsInput;
  /** All seeds of the type; each worker queues those it owns. */
  seeds: string[];
}

/** Supervisor → worker. */
export type ToWorker =
  | WorkerInit
  | { t: 'links'; links: Array<[string, number]> }
  | { t: 'resend'; owner: number }
  | { t: 'finish' }
  | { t: 'stop' }
  | { t: 'pause'; paused: boolean };

/** A worker's counters, sent every second and on idle changes. */
export interface WorkerStats {
  items: number;
  itemsThisRun: number;
  errors: number;
  queued: number;
  inFlight: number;
  bytes: number;
  /** Links received from other workers (for termination detection). */
  received: number;
  /** Nothing queued or in flight. */
  idle: boolean;
  /** Resident set size, bytes. */
  rss: number;
  /** Epoch ms of the last item written. */
  lastProgressAt: number;
  skipped: Record<string, number>;
}

/** Worker → supervisor. */
export type FromWorker =
  | { t: 'ready' }
  | { t: 'handoff'; to: number; links: Array<[string, number]> }
  | ({ t: 'stats' } & WorkerStats)
  | { t: 'done'; finished: boolean }
  /** All handoffs to `owner` were sent again (answer to `resend`; the end of a one-shot crawl waits for it). */
  | { t: 'resent'; owner: number; count: number }
  | { t: 'fatal'; message: string }
  /** The disk is full at `path`: this worker stopped (exit code DISK_FULL_EXIT_CODE); stop them all. */
  | { t: 'diskFull'; path: string };
