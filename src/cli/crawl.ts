/**
 * `collector crawl <url...>`: a one-shot crawl (like `wget -r` / `scrapy crawl`) with the
 * options of DESIGN §3, by the `crawl` source or the one `--source` names; exits 0 when the
 * frontier is empty or after a graceful stop. Flags are
 * passed on as written: the crawl options schema parses them and applies every default once
 * (the help shows those defaults, read from the schema).
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CRAWL_DEFAULTS as d } from '../config/crawl-defaults.js';
import type { CrawlOptionsInput } from '../config/crawl-options.js';
import { formatDuration, formatSize } from '../config/units.js';

/** Largest count accepted by integer flags: beyond it a value is a typo, not a plan. */
const MAX_COUNT = 1_000_000_000;

/** An integer flag's text as a number (its range is the schema's, and this one's up to MAX_COUNT). */
function int(min: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v.trim()) || n < min || n > MAX_COUNT) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${MAX_COUNT}, got "${v}"`);
    }
    return n;
  };
}

/** A number flag's text as a number. */
function num(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError(`expected a number ≥ 0, got "${v}"`);
  return n;
}

/** Repeatable flag: every value, in order. */
function collect(v: string, prev: string[] | undefined): string[] {
  return [...(prev ?? []), v];
}

/** Register the `crawl` command on the program. */
export function registerCrawl(program: Command): void {
  const def = (text: string, value: string | number) => `${text} (default: ${value})`;
  program
    .command('crawl')
    .description('crawl from seed URLs until the frontier is empty')
    .argument('[url...]', 'seed URLs (http/https); optional with --resume or a --source with seeds()')
    .option(
      '--source <name|path>',
      'source: a built-in (crawl, sitemap, feed, urls, github-trending, github-search) or an ES module path exporting defineSource({...}) (default: crawl)',
    )
    .option('--source-option <key=value>', "the source's own option (repeatable)", collect)
    .option('--sitemaps', "also read each seed site's sitemaps (robots.txt Sitemap: lines, /sitemap.xml)")
    .option(
      '--feeds',
      'also follow the feeds pages announce (<link rel="alternate" type="…rss+xml|atom+xml">)',
    )
    .option(
      '--article-pattern <regex>',
      'pages whose path matches are articles: fetched first, stored with Markdown (repeatable)',
      collect,
    )
    .addOption(
      new Option(
        '--follow <which>',
        'links followed: all, articles (from articles, only articles), none',
      ).choices(['all', 'articles', 'none']),
    )
    .addOption(
      new Option(
        '--markdown <which>',
        'HTML pages whose main content is stored as Markdown (.md beside the body): all, articles, none (default: articles)',
      ).choices(['all', 'articles', 'none']),
    )
    .option('-o, --out <dir>', def('output directory', d.out))
    .option('--processes <n>', 'worker processes (default: CPU count / 2, at least 1)', int(1))
    .addOption(
      new Option(
        '--partition <by>',
        'split URLs among processes by host or url (default: url for one seed host)',
      ).choices(['host', 'url']),
    )
    .option('--memory-limit <size>', 'memory limit of the process tree (default: cgroup limit or RAM)')
    .option('--concurrency <n>', def('fetch slots per process', d.concurrency), int(1))
    .option('--host-concurrency <n>', def('simultaneous requests per host', d.hostConcurrency), int(1))
    .option(
      '--delay <ms>',
      def('minimum gap between requests to one host (500, 500ms, 2s)', formatDuration(d.delay)),
    )
    .option('--jitter <f>', def('random extra gap, 0..F × delay', d.jitter), num)
    .option('-n, --max-pages <n>', 'stop after this many URLs attempted (default: unlimited)', int(1))
    .option('--max-depth <n>', 'do not follow links deeper than this (default: unlimited)', int(0))
    .option('--max-bytes <bytes>', def('largest response body (10MB, 512KB)', formatSize(d.maxBytes)))
    .addOption(
      new Option('--scope <mode>', def('which links to follow', d.scope)).choices([
        'prefix',
        'host',
        'domain',
        'any',
      ]),
    )
    .option('--include <regex>', 'follow only URLs matching (repeatable)', collect)
    .option('--exclude <regex>', 'never follow URLs matching (repeatable)', collect)
    .option('--timeout <s>', def('whole-request time limit (15, 15s, 500ms)', formatDuration(d.timeout)))
    .option('--retries <n>', def('retries of a failed request', d.retries), int(0))
    .option(
      '--retry-backoff <ms>',
      def('first retry backoff, doubling each retry (1s, 200ms)', formatDuration(d.retryBackoff)),
    )
    .option(
      '--max-retry-after <s>',
      def(
        'longest wait honoured from Retry-After, rate-limit resets, Crawl-delay (600, 10m)',
        formatDuration(d.maxRetryAfter),
      ),
    )
    .option('--max-url-length <n>', def('skip longer URLs as traps', d.maxUrlLength), int(1))
    .option(
      '--max-path-repeat <n>',
      def('skip URLs repeating a run of path segments more often', d.maxPathRepeat),
      int(1),
    )
    .option(
      '--max-query-variants <n>',
      def('distinct queries followed per path, 0 = unlimited', d.maxQueryVariants),
      int(0),
    )
    .option(
      '--max-shape-variants <n>',
      def('distinct URLs followed per URL shape (digits generalised), 0 = unlimited', d.maxShapeVariants),
      int(0),
    )
    .option(
      '--keep-param <name>',
      'keep this session-id-like or tracking parameter in URLs (repeatable)',
      collect,
    )
    .option('--no-cookies', 'keep no cookie jar (cookies are on by default, never stored)')
    .option('--max-header-bytes <size>', def('largest response header section', formatSize(d.maxHeaderBytes)))
    .option(
      '--max-queued-in-memory <n>',
      def('URLs queued in memory per process; more spill to disk', d.maxQueuedInMemory),
      int(10),
    )
    .option(
      '--page-requisites',
      'also fetch what pages load: images, stylesheets (and their fonts, imports), scripts, icons; on the same site, past --max-depth',
    )
    .option('--user-agent <s>', 'User-Agent header')
    .option('--no-robots', 'ignore robots.txt')
    .option('--proxy <url>', 'proxy for all requests (default: HTTP_PROXY/HTTPS_PROXY)')
    .option('--no-store', 'do not store bodies under <out>/files')
    .option('--warc', 'record every fetch as WARC 1.1 in <out>/warc/, with a CDXJ index (docs/warc.md)')
    .option(
      '--warc-max-size <size>',
      def('with --warc: start a new WARC file past this size', formatSize(d.warcMaxSize)),
    )
    .option(
      '--no-near-duplicates',
      "do not mark pages whose main text nearly repeats an earlier page's (data.nearDuplicateOf)",
    )
    .addOption(
      new Option(
        '--render <when>',
        def(
          'load HTML pages in headless Chromium: never, auto (pages that need it), always (docs/render.md)',
          d.render,
        ),
      ).choices(['never', 'auto', 'always']),
    )
    .option(
      '--page-threads <n>',
      'page threads per process; those after the first take pages only while it has a backlog (large pages, --markdown all; ~60 MB each while busy)',
      int(1),
    )
    .option(
      '--render-concurrency <n>',
      def('with --render: pages rendered at once per process', d.renderConcurrency),
      int(1),
    )
    .option(
      '--render-timeout <s>',
      def(
        "with --render: a page's time limit, navigation to ready (30, 30s, 500ms)",
        formatDuration(d.renderTimeout),
      ),
    )
    .option('--metrics <host:port>', 'serve Prometheus /metrics and the status page / (e.g. 127.0.0.1:9464)')
    .option('--backend <url>', 'share the crawl through Redis: redis://host:port/db (default: embedded)')
    .option(
      '--crawl-id <name>',
      'with --backend: the shared crawl to join (default: from seeds, scope, source)',
    )
    .option(
      '--lease-timeout <s>',
      def(
        'with --backend: a collector silent this long is dead; its URLs go to others',
        formatDuration(d.leaseTimeout),
      ),
    )
    .option(
      '--seen-set <kind>',
      def(
        'with --backend: exact, or bloom (a Bloom filter: less memory, a few URLs never fetched)',
        d.seenSet,
      ),
    )
    .option(
      '--bloom-capacity <n>',
      def('with --seen-set bloom: URLs the filter is sized for', d.bloomCapacity),
      int(1000),
    )
    .option(
      '--bloom-error-rate <p>',
      def('with --seen-set bloom: false-positive rate at that capacity', d.bloomErrorRate),
      num,
    )
    .option('--resume', 'continue the crawl stored in --out')
    .option('-q, --quiet', 'no progress line')
    .action(async (urls: string[], o: Record<string, unknown>) => {
      // Flags as written; absent ones are undefined and get the schema's default.
      const {
        store,
        source,
        sourceOption,
        keepParam,
        pageRequisites,
        sitemaps,
        feeds,
        articlePattern,
        follow,
        markdown,
        ...flags
      } = o;
      const input = { ...flags, seeds: urls, storeBodies: store, keepParams: keepParam } as CrawlOptionsInput;
      // Loaded on use, so `collector --help` and other commands start fast.
      const { runCrawl } = await import('../runtime/crawl-job.js');
      const { locateDiskFull } = await import('../sinks/disk-full.js');
      const pairs = sourceOption as string[] | undefined;
      // The built-in sources' page options, and the crawl source's --page-requisites (wget -p), as
      // source options.
      const pageFlags = Object.fromEntries(
        Object.entries({
          sitemaps,
          feeds,
          articlePatterns: articlePattern,
          follow,
          markdown,
          pageRequisites: pageRequisites === true ? true : undefined,
        }).filter(([, v]) => v !== undefined),
      );
      // The option parser (and its YAML reader) is loaded only for --source-option pairs.
      const given =
        pairs === undefined ? {} : (await import('../config/option-pairs.js')).parseOptionPairs(pairs);
      const sourceOptions = { ...given, ...pageFlags };
      const choice = {
        source: source as string | undefined,
        sourceOptions: Object.keys(sourceOptions).length === 0 ? undefined : sourceOptions,
      };
      process.exitCode = await runCrawl(input, choice).catch((e) => {
        throw locateDiskFull(e, input.out ?? '.');
      });
    });
}
