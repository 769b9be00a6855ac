/**
 * `collector crawl <url...>`: a one-shot crawl (like `wget -r` / `scrapy crawl`) with the
 * options of DESIGN §3; exits 0 when the frontier is empty or after a graceful stop.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { CrawlOptionsInput } from '../config/crawl-options.js';
import { parseDuration, parseSize } from '../config/units.js';

/** Largest count accepted by integer flags: beyond it a value is a typo, not a plan. */
const MAX_COUNT = 1_000_000_000;

function int(_name: string, min: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v.trim()) || n < min || n > MAX_COUNT) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${MAX_COUNT}, got "${v}"`);
    }
    return n;
  };
}

function num(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError(`expected a number ≥ 0, got "${v}"`);
  return n;
}

/** Validate a duration flag and pass it on in ms, unambiguous whatever the flag's default unit. */
function dur(unit: 'ms' | 's') {
  return (v: string): string => {
    try {
      return `${parseDuration(v, unit)}ms`;
    } catch (e) {
      throw new InvalidArgumentError((e as Error).message);
    }
  };
}

function size(v: string): number {
  try {
    return parseSize(v);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

function collect(v: string, prev: string[]): string[] {
  try {
    new RegExp(v);
  } catch (e) {
    throw new InvalidArgumentError(`invalid regular expression: ${(e as Error).message}`);
  }
  return [...prev, v];
}

/** Register the `crawl` command on the program. */
export function registerCrawl(program: Command): void {
  program
    .command('crawl')
    .description('crawl from seed URLs until the frontier is empty')
    .argument('[url...]', 'seed URLs (http/https); optional with --resume')
    .option('--out <dir>', 'output directory', './data')
    .option('--processes <n>', 'worker processes (default: CPU count / 2, at least 1)', int('--processes', 1))
    .addOption(
      new Option(
        '--partition <by>',
        'split URLs among processes by host or url (default: url for one seed host)',
      ).choices(['host', 'url']),
    )
    .option('--memory-limit <size>', 'memory limit of the process tree (default: cgroup limit or RAM)', size)
    .option('--concurrency <n>', 'fetch slots per process', int('--concurrency', 1), 16)
    .option('--host-concurrency <n>', 'simultaneous requests per host', int('--host-concurrency', 1), 2)
    .option('--delay <ms>', 'minimum gap between requests to one host (500, 500ms, 2s)', dur('ms'), '500ms')
    .option('--jitter <f>', 'random extra gap, 0..F × delay', num, 0.5)
    .option('--max-pages <n>', 'stop after this many URLs attempted', int('--max-pages', 1))
    .option('--max-depth <n>', 'do not follow links deeper than this', int('--max-depth', 0))
    .option('--max-bytes <bytes>', 'largest response body (10MB, 512KB)', size, 10 * 1024 * 1024)
    .addOption(
      new Option('--scope <mode>', 'which links to follow')
        .choices(['prefix', 'host', 'domain', 'any'])
        .default('prefix'),
    )
    .option('--include <regex>', 'follow only URLs matching (repeatable)', collect, [])
    .option('--exclude <regex>', 'never follow URLs matching (repeatable)', collect, [])
    .option('--timeout <s>', 'whole-request time limit (15, 15s, 500ms)', dur('s'), '15s')
    .option('--retries <n>', 'retries of a failed request', int('--retries', 0), 3)
    .option('--retry-backoff <ms>', 'first retry backoff, doubling each retry (1s, 200ms)', dur('ms'), '1s')
    .option(
      '--max-retry-after <s>',
      'longest wait honoured from Retry-After, rate-limit resets, Crawl-delay (600, 10m)',
      dur('s'),
      '600s',
    )
    .option('--max-url-length <n>', 'skip longer URLs as traps', int('--max-url-length', 1), 2048)
    .option(
      '--max-path-repeat <n>',
      'skip URLs repeating a run of path segments more often',
      int('--max-path-repeat', 1),
      3,
    )
    .option(
      '--max-query-variants <n>',
      'distinct queries followed per path, 0 = unlimited',
      int('--max-query-variants', 0),
      1000,
    )
    .option(
      '--max-shape-variants <n>',
      'distinct URLs followed per URL shape (digits generalised), 0 = unlimited',
      int('--max-shape-variants', 0),
      0,
    )
    .option(
      '--keep-param <name>',
      'keep this session-id-like parameter in URLs (repeatable)',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option('--no-cookies', 'keep no cookie jar (cookies are on by default, never stored)')
    .option('--max-header-bytes <size>', 'largest response header section (256KB)', size, 256 * 1024)
    .option(
      '--max-queued-in-memory <n>',
      'URLs queued in memory per process; more spill to disk (default 100000)',
      int('--max-queued-in-memory', 10),
    )
    .option('--user-agent <s>', 'User-Agent header')
    .option('--no-robots', 'ignore robots.txt')
    .option('--proxy <url>', 'proxy for all requests (default: HTTP_PROXY/HTTPS_PROXY)')
    .option('--no-store', 'do not store bodies under <out>/files')
    .option('--resume', 'continue the crawl stored in --out', false)
    .option('--quiet', 'no progress line', false)
    .action(async (urls: string[], o: Record<string, unknown>) => {
      const input: CrawlOptionsInput = {
        seeds: urls,
        out: o.out as string,
        processes: o.processes as number | undefined,
        partition: o.partition as 'host' | 'url' | undefined,
        memoryLimit: o.memoryLimit as number | undefined,
        concurrency: o.concurrency as number,
        hostConcurrency: o.hostConcurrency as number,
        delay: o.delay as string,
        jitter: o.jitter as number,
        maxPages: o.maxPages as number | undefined,
        maxDepth: o.maxDepth as number | undefined,
        maxBytes: o.maxBytes as number,
        scope: o.scope as 'prefix',
        include: o.include as string[],
        exclude: o.exclude as string[],
        timeout: o.timeout as string,
        retries: o.retries as number,
        retryBackoff: o.retryBackoff as string,
        maxRetryAfter: o.maxRetryAfter as string,
        maxUrlLength: o.maxUrlLength as number,
        maxPathRepeat: o.maxPathRepeat as number,
        maxQueryVariants: o.maxQueryVariants as number,
        maxShapeVariants: o.maxShapeVariants as number,
        keepParams: o.keepParam as string[],
        cookies: o.cookies as boolean,
        maxHeaderBytes: o.maxHeaderBytes as number,
        maxQueuedInMemory: o.maxQueuedInMemory as number | undefined,
        userAgent: o.userAgent as string | undefined,
        robots: o.robots as boolean,
        proxy: o.proxy as string | undefined,
        storeBodies: o.store as boolean,
        resume: o.resume as boolean,
        quiet: o.quiet as boolean,
      };
      // Loaded on use, so `collector --help` and other commands start fast.
      const { runCrawl } = await import('../runtime/crawl-job.js');
      process.exitCode = await runCrawl(input);
    });
}
