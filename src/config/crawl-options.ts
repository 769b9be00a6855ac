/**
 * The options of one crawl worker type: one zod schema that is the single source of truth for
 * defaults, validation and documentation, shared by `collector crawl` flags and `collector.yaml`.
 * Options are parsed once, where a command starts; the parsed value ({@link CrawlOptions}) is
 * plain JSON (durations in ms, sizes in bytes, regular expressions as their validated source), so
 * worker processes receive it as it is.
 */
import { availableParallelism } from 'node:os';
import * as z from 'zod';
import { CRAWL_DEFAULTS as D, defaultProcesses, pageThreadByDefault } from './crawl-defaults.js';
import { listenAddress } from './listen-address.js';
import { parseDuration, parseSize } from './units.js';

/** Zod type of a duration (`500ms`, `15s`, `5m`; a bare number is in `unit`), parsed to ms. */
export const duration = (unit: 'ms' | 's') =>
  z.union([z.number(), z.string()]).transform((v, ctx) => {
    try {
      return parseDuration(v, unit);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      return z.NEVER;
    }
  });

/** Zod type of a byte size (`10MB`, `2G`; a bare number is bytes), parsed to bytes. */
export const size = z.union([z.number(), z.string()]).transform((v, ctx) => {
  try {
    return parseSize(v);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
    return z.NEVER;
  }
});

/** Zod type of a regular expression's source: checked to compile, kept as the string. */
const regex = z.string().superRefine((v, ctx) => {
  try {
    new RegExp(v);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: `invalid regular expression "${v}": ${(e as Error).message}` });
  }
});

/** Zod type of a count of at least 1. */
export const positiveInt = z
  .number({ error: 'expected a positive integer' })
  .int({ error: 'expected a positive integer' })
  .positive({ error: 'expected a positive integer' });

export { DEFAULT_USER_AGENT, defaultProcesses, pageThreadByDefault } from './crawl-defaults.js';

/**
 * Most page threads a process starts by default (`pageThreads`). One until a second has been
 * measured to pay for its memory (~60 MB while busy) on a quiet machine: see bench/RESULTS.md.
 */
export const MAX_DEFAULT_PAGE_THREADS = 1;

/**
 * Page threads per process by default, when it has page threads at all: its share of the CPUs, at
 * most {@link MAX_DEFAULT_PAGE_THREADS}. The fetch loop needs a share of a core too, but the
 * threads after the first take pages only while the first has a backlog (`engine/page-pool.ts`):
 * when page work is the bottleneck, the fetch loop mostly waits.
 */
export function pageThreadsByDefault(processes: number, cpus = availableParallelism()): number {
  return Math.max(1, Math.min(MAX_DEFAULT_PAGE_THREADS, Math.floor(cpus / processes)));
}

/**
 * Crawl options. Durations accept `500`, `500ms`, `15s`, `5m`; sizes accept `10MB`, `2G`.
 * Every field is documented here with its default (the values are in `crawl-defaults.ts`,
 * which `collector crawl --help` reads too).
 */
export const CrawlOptionsSchema = z.object({
  /** Seed URLs (absolute http/https); may be empty when resuming. */
  seeds: z.array(z.string()).default([]),
  /** Output directory (DESIGN §4 layout). Default `./data`. */
  out: z.string().default(D.out),
  /** Worker processes. Default: half the CPU count (at least 1), see {@link defaultProcesses}. */
  processes: z
    .number()
    .int()
    .positive()
    .default(() => defaultProcesses()),
  /**
   * How URLs are split among processes: `host` (hash of the host: each host's politeness lives
   * in one process) or `url` (hash of the URL, for one big site: each of N processes keeps
   * delay × N and host-concurrency / N, so the host still sees the configured rate).
   * Default: `url` when all seeds share one host, else `host`.
   */
  partition: z.enum(['host', 'url']).optional(),
  /** Memory limit of the whole process tree, bytes. Default: the cgroup limit, else total RAM. */
  memoryLimit: size.optional(),
  /** Share of the memory limit the process tree may use. Default 0.8. */
  memoryLimitFraction: z.number().gt(0).max(1).default(D.memoryLimitFraction),
  /** Fetch slots per process: requests in flight at once. Default 16. */
  concurrency: positiveInt.default(D.concurrency),
  /** Requests in flight at once to one host. Default 2. */
  hostConcurrency: z.number().int().positive().default(D.hostConcurrency),
  /** Minimum gap between request starts to one host, ms. Default 500. robots Crawl-delay and Retry-After raise it. */
  delay: duration('ms')
    .pipe(z.number().max(86_400_000, { error: 'expected at most 24h' }))
    .default(D.delay),
  /** Random extra gap, uniformly 0..jitter × delay. Default 0.5. */
  jitter: z.number().min(0).max(10).default(D.jitter),
  /** Stop after this many URLs attempted (items written). Default unlimited. */
  maxPages: z.number().int().positive().optional(),
  /** Do not follow links deeper than this (seeds are depth 0). Default unlimited. */
  maxDepth: z.number().int().min(0).optional(),
  /** Largest body accepted, bytes, measured after decompression. Default 10 MiB. */
  maxBytes: size
    .pipe(
      z
        .number()
        .min(1, { error: 'expected at least 1 byte' })
        // zlib's output limit and a Buffer must hold a whole body.
        .max(1024 ** 3, { error: 'expected at most 1GB' }),
    )
    .default(D.maxBytes),
  /** Which discovered links are followed: the seed's directory (like wget -np), host, registrable domain, any. */
  scope: z.enum(['prefix', 'host', 'domain', 'any']).default(D.scope),
  /** Follow only URLs matching one of these regular expressions (sources; when any are given). */
  include: z.array(regex).default([]),
  /** Never follow URLs matching any of these regular expressions (sources). */
  exclude: z.array(regex).default([]),
  /** Whole-request limit (connect + headers + body), ms. Default 15 s. */
  timeout: duration('s')
    .pipe(
      z
        .number()
        .min(100, { error: 'expected at least 100ms' })
        .max(3_600_000, { error: 'expected at most 1h' }),
    )
    .default(D.timeout),
  /** Retries of a failed request (network errors, 408, 429, 5xx). Default 3. */
  retries: z.number().int().min(0).default(D.retries),
  /** First retry backoff, ms; doubles each attempt, with jitter. Default 1 s. */
  retryBackoff: duration('ms').default(D.retryBackoff),
  /** Largest Retry-After / rate-limit pause honoured, ms. Longer ones are capped. Default 10 min. */
  maxRetryAfter: duration('s').default(D.maxRetryAfter),
  /** User-Agent header; its first token is matched against robots.txt groups. */
  userAgent: z
    .string()
    .min(1)
    .regex(/^[^\x00-\x1f\x7f]+$/, {
      error: 'expected printable characters only (no newline or control character)',
    })
    .default(D.userAgent),
  /** Obey robots.txt (RFC 9309). Default true; `--no-robots` turns it off. */
  robots: z.boolean().default(true),
  /** Continue the crawl stored in `out` instead of refusing a non-empty output. */
  resume: z.boolean().default(false),
  /** Store response bodies under `<out>/files/`. Default true. */
  storeBodies: z.boolean().default(true),
  /**
   * Record every fetch as WARC 1.1 in `<out>/warc/<worker>-<seq>.warc.gz` (request, response or
   * revisit, metadata records; one gzip member each), with a CDXJ index beside each file
   * (`docs/warc.md`). Default false.
   */
  warc: z.boolean().default(false),
  /** With `warc`: a WARC file is closed and the next begun once it holds this many bytes. Default 1 GiB. */
  warcMaxSize: size
    .pipe(z.number().min(1024 * 1024, { error: 'expected at least 1MB' }))
    .default(D.warcMaxSize),
  /**
   * Mark a page whose main text is nearly that of a page this process wrote before (SimHash
   * fingerprints in `data.simhash`, from the source, within 3 bits; Manku et al. 2007) with
   * `data.nearDuplicateOf: <url>`. Default true; `--no-near-duplicates` turns it off. Each process
   * keeps up to 1,000,000 pages (32 bytes plus the URL's each), rebuilt from its items at resume.
   */
  nearDuplicates: z.boolean().default(true),
  /**
   * Decode, hash, parse and store responses in a page thread, off the fetch loop (a second core
   * per process; ~10 MB more RSS). Default true; a plan with more processes than CPUs turns it off.
   */
  pageThread: z.boolean().default(() => pageThreadByDefault(1)),
  /**
   * With `pageThread`: page threads per process. The first takes every page; the others take
   * pages only while it has a backlog (large pages, `markdown: all`), each with ~30–60 MB of its
   * own when busy. Default 1 ({@link pageThreadsByDefault}).
   */
  pageThreads: positiveInt.pipe(z.number().max(8, { error: 'expected at most 8' })).optional(),
  /** URLs longer than this are skipped as traps. Default 2048. */
  maxUrlLength: z.number().int().positive().default(D.maxUrlLength),
  /** A path segment sequence repeated more than this is a trap (`/a/b/a/b/a/b/a/b`). Default 3. */
  maxPathRepeat: z.number().int().positive().default(D.maxPathRepeat),
  /** Distinct query strings followed per path; more are skipped as traps. 0 = unlimited. Default 1000. */
  maxQueryVariants: z.number().int().min(0).default(D.maxQueryVariants),
  /**
   * Distinct URLs followed per URL shape (host + path and query with digit runs generalised:
   * `/cal/2024/05/` ~ `/cal/1999/12/`); more are skipped as traps (`trap-shape`). 0 = no cap,
   * the default: numbered pages share one shape. Independently, a date-like shape whose pages
   * come back as near-duplicates five times in a row is closed (the calendar defence).
   */
  maxShapeVariants: z.number().int().min(0).default(D.maxShapeVariants),
  /**
   * Query and path parameters kept in URLs although they look like session ids (`jsessionid`,
   * `PHPSESSID`, `sid`, `sessionid`, `ASPSESSIONID…`, `cfid`, `cftoken`) or are tracking
   * parameters (`utm_*`, `fbclid`, ...: `url/tracking-params.ts`), case-insensitive.
   * Default: none (session ids and tracking parameters are removed in canonicalization).
   */
  keepParams: z.array(z.string().min(1)).default([]),
  /**
   * More query parameters removed as tracking parameters, beyond the built-in list
   * (`url/tracking-params.ts`; a trailing `*` is a prefix: `ref_*`), case-insensitive. Default: none.
   */
  trackingParams: z.array(z.string().regex(/^[^=&#?]+$/, 'a parameter name (no = & # ?)')).default([]),
  /**
   * More block pages: regular expressions (case-insensitive) matched against HTML bodies (their
   * first 256 KiB) of any status; a match makes the answer a `blocked` error, like the built-in
   * rules (`http/block-page.ts`: bot challenges, CAPTCHAs, login walls). Default: none.
   */
  blockPatterns: z.array(regex).default([]),
  /** Keep a cookie jar per worker (RFC 6265; cookies are never written anywhere). Default true. */
  cookies: z.boolean().default(true),
  /** Largest response header section, bytes; more is a `too-large` item. Default 256 KiB. */
  maxHeaderBytes: size
    .pipe(
      z
        .number()
        .min(16 * 1024, { error: 'expected at least 16KB' })
        .max(16 * 1024 * 1024, { error: 'expected at most 16MB' }),
    )
    .default(D.maxHeaderBytes),
  /**
   * URLs kept queued in memory; more are spilled to `state/<worker>/spill.log` and read back as
   * the queue drains. Default 100,000 (about 6 MB of URLs).
   */
  maxQueuedInMemory: z.number().int().min(10).default(D.maxQueuedInMemory),
  /** Flush state (frontier log, items) after this many items. Default 50. */
  saveEveryItems: z.number().int().positive().default(D.saveEveryItems),
  /**
   * Longest time a line of state (an item, a link) waits in memory before it is written, ms.
   * Default 200 ms: at a low item rate each page is acknowledged on its own within that delay,
   * so a crawl restarted every few seconds still makes progress; at a high rate items go in
   * batches of `saveEveryItems`.
   */
  saveInterval: duration('ms').default(D.saveInterval),
  /** Time allowed at stop for in-flight requests to finish before they are abandoned, ms. Default 10 s. */
  joinTimeout: duration('s').default(D.joinTimeout),
  /**
   * Continuous collection: the time from the start of one round to the start of the next, ms; each
   * round fetches the seeds (and `everyRound` requests) again to find new links, whatever else is
   * still queued (only new URLs are fetched; a seed still queued from an earlier round goes once).
   * Default: none (one-shot).
   */
  interval: duration('s').optional(),
  /**
   * With `interval`: fetch pages known from earlier rounds again after this long, conditionally
   * (`If-None-Match` / `If-Modified-Since`: a 304 is an item with `data.unchanged`, nothing is
   * stored), sooner for pages that change and later for pages that do not (within revisit/4 and
   * revisit×4). Default: none (a page is fetched again only when a source's `lastmod` says it
   * changed; seeds and every-round hubs are fetched each round anyway).
   */
  revisit: duration('s').optional(),
  /**
   * Revisit intervals by URL pattern (a regular expression tested on the whole URL → a
   * duration), before `revisit`: `{ '/blog/': 1h, '/docs/': 7d }`. Default: none.
   */
  revisitPatterns: z.record(regex, duration('s')).default({}),
  /** No progress line on stderr. */
  quiet: z.boolean().default(false),
  /** Body bytes held in memory waiting for the disk, across all pages; fetching pauses above it. Default 64 MiB. */
  maxPendingBytes: size.default(D.maxPendingBytes),
  /**
   * Serve Prometheus metrics at `/metrics` and the status page at `/` on this `HOST:PORT`
   * (`collector crawl --metrics`). Default: off. A non-loopback address needs COLLECTOR_METRICS_TOKEN.
   */
  metrics: listenAddress.optional(),
  /**
   * Where the frontier, seen-set, politeness clock, leases, stop and status live: `embedded`
   * (this process's memory and files) or `redis://host:port/db`, shared by every collector given
   * the same crawl id (docs/redis.md). Default embedded.
   */
  backend: z
    .string()
    .refine((v) => v === 'embedded' || /^rediss?:\/\/[^/]/.test(v), {
      error: 'expected embedded or redis://host:port/db',
    })
    .default(D.backend),
  /**
   * With a shared backend, the crawl's name: collectors with the same id share one crawl, and
   * crawls with different ids share one Redis safely. Default: derived from the seeds, scope and
   * source (`crawl-<hash>`).
   */
  crawlId: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, { error: "use 1 to 64 letters, digits, '.', '_' or '-'" })
    .optional(),
  /** With a shared backend: a machine silent this long is dead, and its leased URLs go to others, ms. Default 30 s. */
  leaseTimeout: duration('s')
    .pipe(z.number().min(1000, { error: 'expected at least 1s' }))
    .default(D.leaseTimeout),
  /** With a shared backend: longest wait between claims while other machines still work, ms. Default 250 ms. */
  claimPoll: duration('ms').default(D.claimPoll),
  /**
   * With a shared backend: the shared seen-set. `exact` keeps every URL's 64-bit fingerprint (70–93
   * bytes per URL in Redis); `bloom` a Bloom filter sized for `bloomCapacity` URLs at
   * `bloomErrorRate` (RedisBloom when the server has it): ~1.8 bytes per URL at 0.1 %, but a false
   * positive is a URL never fetched. Default exact.
   */
  seenSet: z.enum(['exact', 'bloom'], { error: 'expected exact or bloom' }).default(D.seenSet),
  /** With `seenSet: bloom`: URLs the filter is sized for (its error rate grows past them). Default 10 million. */
  bloomCapacity: z
    .number({ error: 'expected an integer from 1000 to 10000000000' })
    .int({ error: 'expected an integer from 1000 to 10000000000' })
    .min(1000, { error: 'expected an integer from 1000 to 10000000000' })
    .max(1e10, { error: 'expected an integer from 1000 to 10000000000' })
    .default(D.bloomCapacity),
  /** With `seenSet: bloom`: false-positive rate at `bloomCapacity` (URLs wrongly taken as seen). Default 0.001. */
  bloomErrorRate: z
    .number({ error: 'expected a rate from 0.000001 to 0.1' })
    .min(1e-6, { error: 'expected a rate from 0.000001 to 0.1' })
    .max(0.1, { error: 'expected a rate from 0.000001 to 0.1' })
    .default(D.bloomErrorRate),
  /**
   * Load HTML pages in headless Chromium (Debian's `chromium-headless-shell` or `chromium`, driven by puppeteer-core) and read
   * links, title and content from the rendered DOM (docs/render.md): `never` (HTTP only), `auto`
   * (HTTP first; a page whose HTML looks like a client-side app is rendered, and a host whose pages
   * need it 3 times in a row is rendered directly), `always` (every HTML page). Default never.
   */
  render: z.enum(['never', 'auto', 'always'], { error: 'expected never, auto or always' }).default(D.render),
  /** With `render`: pages rendered at once per process (one browser per process). Default 2. */
  renderConcurrency: positiveInt
    .pipe(z.number().max(64, { error: 'expected at most 64' }))
    .default(D.renderConcurrency),
  /**
   * With `render`: a page's time limit from navigation to ready (network idle or DOM stable), ms;
   * a page not ready by then is read as it is (`data.renderTimedOut`). Default 30 s.
   */
  renderTimeout: duration('s')
    .pipe(
      z
        .number()
        .min(100, { error: 'expected at least 100ms' })
        .max(600_000, { error: 'expected at most 10m' }),
    )
    .default(D.renderTimeout),
  /** Proxy URL for all requests (else HTTP_PROXY/HTTPS_PROXY/NO_PROXY from the environment). */
  proxy: z
    .string()
    .refine((v) => /^https?:$/.test(URL.parse(v)?.protocol ?? ''), {
      error: 'expected a proxy URL such as http://127.0.0.1:3128',
    })
    .optional(),
});

/** Crawl options as written (before defaults). */
export type CrawlOptionsInput = z.input<typeof CrawlOptionsSchema>;
/**
 * Crawl options with defaults applied and units converted (durations in ms, sizes in bytes). Plain
 * JSON: sent as it is to worker processes.
 */
export type CrawlOptions = z.output<typeof CrawlOptionsSchema>;

/**
 * Parse settings of a schema parsed once per process: without zod's compiled fast path for
 * objects, whose code generation (`new Function`) costs more than it saves on one parse
 * (crawl options: ~5 → ~1.5 ms at start-up, bench/RESULTS.md 2026-12-03 21:00).
 */
export const ONE_SHOT_PARSE = { jitless: true } as const;

/**
 * Validate raw options and apply defaults.
 * @throws Error with one line per problem, each `path: message`.
 */
export function parseCrawlOptions(input: CrawlOptionsInput): CrawlOptions {
  const r = CrawlOptionsSchema.safeParse(input, ONE_SHOT_PARSE);
  if (!r.success) {
    const msg = r.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`).join('; ');
    throw new Error(msg);
  }
  return r.data;
}
