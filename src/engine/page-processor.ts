/**
 * Where responses are decoded, hashed, parsed and stored: a page thread (a worker_threads
 * Worker) when the machine has a core for it, else inline on the crawler's thread. Either way
 * the crawler sees the same {@link PageProcessor}: `work` a response, then `store` or `drop` the
 * decoded body it keeps. This module holds the contract and the messages to the page thread
 * (`openPageProcessor` in `page-processor-choice.ts` picks the implementation).
 *
 * With the thread, the crawler's event loop only moves bytes and runs the frontier: a page's
 * decompression, SHA-256, charset decoding and HTML tokenizing (about 40% of its CPU on the
 * PostgreSQL docs) run on the other core; files are written by a third, body-writer thread, so
 * file creation (50–1,100 µs on a slow disk) stalls neither. Messages are batched per event-loop
 * turn in both directions.
 */
import type { MessagePort } from 'node:worker_threads';
import type { VersionOptions } from '../sinks/file-sink.js';
import type { SourceRef } from '../sources/load-source.js';
import type { WorkerInfo } from '../sources/source.js';
import type { PageJob, WorkedPage } from './page-work.js';

/** Handles responses for the crawler (see the module comment). */
export interface PageProcessor {
  /**
   * Decode, hash and (when `job.extract`) parse one response. The decoded body is kept under
   * `job.id` until {@link store} or {@link drop}. `job.body` may be detached afterwards.
   * @throws when the page thread died (the job's body is lost with it).
   */
  work(job: PageJob): Promise<WorkedPage>;
  /**
   * Store the body kept under `id` for `url` and release it.
   * @param extension the stored file's extension chosen by the source (without the dot).
   * @returns the path relative to `<out>`, e.g. `files/host/a.html`.
   * @throws when storing fails or there is no body store (`storeBodies` off).
   */
  store(id: number, url: string, extension?: string): Promise<string>;
  /** Release the body kept under `id` without storing it. */
  drop(id: number): void;
  /** Wait for pending stores, then release everything (the thread ends). */
  close(): Promise<void>;
}

/** Settings of {@link openPageProcessor}. */
export interface PageProcessorOptions {
  /** `<out>`; bodies go to `<out>/files`. */
  outDir: string;
  /** Whether bodies are stored at all (`--no-store` turns it off). */
  storeBodies: boolean;
  /** Use a page thread (when the source allows it and the compiled worker file exists). */
  thread: boolean;
  /** Largest decoded body, bytes (sizes the thread's heap). */
  maxBytes: number;
  /** Page threads (with `thread`): more than one makes a pool (`page-pool.ts`). Default 1. */
  threads?: number;
  /** Store pages as versions (`page-versions.ts`: jobs that fetch pages again); absent: one body per page. */
  versions?: VersionOptions;
}

/** A message to the page thread. */
export type PageRequest =
  | { op: 'work'; job: PageJob }
  | { op: 'store'; id: number; url: string; extension?: string }
  | { op: 'drop'; id: number };

/** A message from the page thread. */
export type PageReply =
  | { op: 'worked'; worked: WorkedPage }
  | { op: 'stored'; id: number; file: string }
  | { op: 'stored'; id: number; error: string };

/** The worker's source as a page thread loads it again: where from, and its context. */
export interface PageThreadSource {
  ref: SourceRef;
  /** The source's options as written (parsed again in the thread). */
  options: Record<string, unknown>;
  seeds: string[];
  worker: WorkerInfo;
}

/** What the page thread is set up with (its first message, `PageSetup` of page-threads.ts). */
export interface PageThreadData {
  source: PageThreadSource;
  /** The body-writer thread's request port; absent when bodies are not stored. */
  writer?: MessagePort;
  /** One Int32: the id of the job the thread is working on, 0 between jobs. */
  progress: SharedArrayBuffer;
}

/**
 * Rejection of the pages (and stores) a dead page thread held. `innocent` is true for all but
 * the page it was working on when it died: those are fetched again without counting a try.
 */
export class PageThreadLost extends Error {
  constructor(
    message: string,
    readonly innocent: boolean,
  ) {
    super(message);
  }
}
