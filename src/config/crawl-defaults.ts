/**
 * The default values of the crawl options, in the schema's units (ms, bytes): applied by the
 * schema (`crawl-options.ts`, which documents each option) and shown by `collector crawl --help`.
 * A module of its own, without zod, so that the help and other commands start fast.
 */
import { availableParallelism } from 'node:os';
import { SCOPE_DEFAULTS } from '../url/scope.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './package-info.js';

/**
 * Default User-Agent: product token `collector` (matched by robots.txt groups), the version's
 * major.minor, and the package's page for a site owner who wants to know who is calling.
 */
export const DEFAULT_USER_AGENT = `collector/${PACKAGE_VERSION.split('.').slice(0, 2).join('.')} (+https://www.npmjs.com/package/${PACKAGE_NAME})`;

/** Every fixed default of the crawl options (see `CrawlOptionsSchema` for what each means). */
export const CRAWL_DEFAULTS = {
  out: './data',
  memoryLimitFraction: 0.8,
  concurrency: 16,
  hostConcurrency: 2,
  /** ms */
  delay: 500,
  jitter: 0.5,
  /** bytes */
  maxBytes: 10 * 1024 * 1024,
  scope: 'prefix',
  /** ms */
  timeout: 15_000,
  retries: 3,
  /** ms */
  retryBackoff: 1000,
  /** ms */
  maxRetryAfter: 600_000,
  userAgent: DEFAULT_USER_AGENT,
  maxUrlLength: SCOPE_DEFAULTS.maxUrlLength,
  maxPathRepeat: SCOPE_DEFAULTS.maxPathRepeat,
  maxQueryVariants: SCOPE_DEFAULTS.maxQueryVariants,
  /** 0 = no cap per URL shape */
  maxShapeVariants: 0,
  /**
   * bytes: Node's and undici's 16 KiB is passed by real sites (Content-Security-Policy and Link
   * headers of 30–40 KB are seen); browsers accept 256 KiB (Chromium's limit).
   */
  maxHeaderBytes: 256 * 1024,
  maxQueuedInMemory: 100_000,
  saveEveryItems: 50,
  /** ms: at a low item rate each page is acknowledged on its own within this delay */
  saveInterval: 200,
  /** ms */
  joinTimeout: 10_000,
  /** bytes */
  maxPendingBytes: 64 * 1024 * 1024,
  /** bytes: a WARC file is closed, and the next begun, once it holds this much (the usual 1 GB) */
  warcMaxSize: 1024 ** 3,
  backend: 'embedded',
  /** ms: a machine silent this long (no heartbeat in Redis) is dead and its leases are taken back */
  leaseTimeout: 30_000,
  /** ms: longest wait between two claims of a machine while other machines still work */
  claimPoll: 250,
  /** the shared seen-set with a Redis backend: exact fingerprints, or a Bloom filter */
  seenSet: 'exact',
  /** URLs a Bloom seen-set is sized for: 10 million take 18 MB at 0.1 % */
  bloomCapacity: 10_000_000,
  /** false-positive rate of a Bloom seen-set at its capacity */
  bloomErrorRate: 0.001,
  /** HTML pages loaded in headless Chromium: never (HTTP only), auto (when a page needs it), always */
  render: 'never',
  /** pages rendered at once per process */
  renderConcurrency: 2,
  /** ms: a rendered page's time limit (navigation to ready) */
  renderTimeout: 30_000,
} as const;

/**
 * Default process count of `crawl`: one per two CPUs, at least one. A process keeps about two
 * cores busy (its fetch loop and its page thread), so on a 2-core box a second process only adds
 * start-up and JIT warm-up: measured 0.7× the pages/s of one (bench/RESULTS.md).
 */
export function defaultProcesses(cpus = availableParallelism()): number {
  return Math.max(1, Math.floor(cpus / 2));
}

/**
 * Whether `processes` workers on this machine get page threads by default: when each can have a
 * second core (2 × processes ≤ CPUs). Otherwise pages are handled inline, on the fetch loop.
 */
export function pageThreadByDefault(processes: number, cpus = availableParallelism()): boolean {
  return 2 * processes <= cpus;
}
