/**
 * The library API behind the package entry (`src/index.ts`): `crawl()` runs a one-shot crawl in
 * this process tree, `run()` a config, each resolving with its summary. Same options and defaults
 * as the command line (camelCase), except that nothing is printed unless `quiet: false`, and
 * signals are left to the caller: pass an AbortSignal to stop gracefully.
 */
import path from 'node:path';
import { type ConfigInput, loadConfig, validateConfig } from '../config/config-file.js';
import { type CrawlOptionsInput, CrawlOptionsSchema } from '../config/crawl-options.js';
import { parseSize } from '../config/units.js';
import { UsageError } from '../config/usage-error.js';
import type { SourceDefinition } from '../sources/source.js';
import type { CrawlEnd } from './crawl-end-report.js';
import { runCrawlJob } from './crawl-job.js';
import { CollectorError, type CrawlSummary } from './crawl-summary.js';
import { NOTHING_COLLECTED_EXIT_CODE } from './exit-codes.js';
import { runConfigJob } from './run-job.js';

/** Options of {@link crawl}: the command line's, camelCase, and the source. */
export interface CrawlInput extends Omit<CrawlOptionsInput, 'seeds'> {
  /** Seed URLs (absolute http/https); optional with `resume` or a source with `seeds()`. */
  seeds?: string[];
  /**
   * A built-in name (`crawl`, the default), a module path (relative to the current directory)
   * or a `defineSource({...})` object (which runs in this process: `processes` defaults to 1).
   */
  source?: string | SourceDefinition;
  /** The source's own options (as `--source-option` gives them on the command line). */
  sourceOptions?: Record<string, unknown>;
  /** Stop gracefully when it aborts (in-flight requests get `joinTimeout`, state is flushed). */
  signal?: AbortSignal;
}

/**
 * Crawl to the end (or until `signal` aborts).
 * @returns the summary.
 * @throws UsageError for bad options, seeds, source or output directory (nothing touched);
 *   CollectorError when the crawl failed at run time.
 */
export async function crawl(input: CrawlInput): Promise<CrawlSummary> {
  const started = performance.now();
  const { source, sourceOptions, signal, ...options } = input;
  checkOptionNames(options);
  const flags: CrawlOptionsInput = { ...options, seeds: options.seeds ?? [], quiet: options.quiet ?? true };
  const end = await runCrawlJob(
    flags,
    { source, sourceOptions, optionsPrefix: 'sourceOptions.' },
    { signal, handleSignals: false },
  );
  return settle(end, started, path.resolve(flags.out ?? './data'), 'crawl');
}

/**
 * The page options the command line has as flags of its own (`--markdown`, `--feeds`…) but which
 * are the built-in sources' options: in `crawl()`, keys of `sourceOptions`.
 */
const PAGE_OPTIONS = new Set([
  'markdown',
  'feeds',
  'sitemaps',
  'articlePatterns',
  'follow',
  'pageRequisites',
]);

/**
 * Refuse a key `crawl()` does not know: the options schema would drop it, and a misspelt or
 * misplaced option (`markdown: 'all'` beside the crawl options) would be ignored without a word.
 * @throws UsageError `crawl(): unknown option "k"`, saying where a page option goes.
 */
function checkOptionNames(options: Record<string, unknown>): void {
  const known = CrawlOptionsSchema.shape as Record<string, unknown>;
  for (const key of Object.keys(options)) {
    if (key === 'seeds' || Object.hasOwn(known, key)) continue;
    const where = PAGE_OPTIONS.has(key)
      ? `: a source's option, given as sourceOptions: { ${key}: … }`
      : " (the options are the command line's, camelCase: docs/config.md)";
    throw new UsageError(`crawl(): unknown option "${key}"${where}`);
  }
}

/** Options of {@link run} beyond the config. */
export interface RunOptions {
  /** What the config's module paths are relative to. Default: the config file's directory, else the current one. */
  baseDir?: string;
  /** Memory limit of the process tree (`2G` or bytes); overrides `memory.limit`. */
  memoryLimit?: string | number;
  /** Print the start line. Default true (quiet). */
  quiet?: boolean;
  /** Stop gracefully when it aborts. */
  signal?: AbortSignal;
}

/**
 * Run a config (an object, or the path of a `.yaml`/`.json`/`.mjs` file) until every one-shot
 * worker type is done, or until `signal` aborts (continuous types run until then).
 * @throws UsageError for a bad config; CollectorError when a worker type was parked.
 */
export async function run(config: ConfigInput | string, options: RunOptions = {}): Promise<CrawlSummary> {
  const started = performance.now();
  const { config: parsed } =
    typeof config === 'string' ? await loadConfig(config) : { config: validateConfig(config, 'config') };
  const baseDir =
    options.baseDir ?? (typeof config === 'string' ? path.dirname(path.resolve(config)) : process.cwd());
  let memoryLimit: number | undefined;
  try {
    memoryLimit = options.memoryLimit === undefined ? undefined : parseSize(options.memoryLimit);
  } catch (e) {
    throw new UsageError(`memoryLimit: ${(e as Error).message}`);
  }
  const end = await runConfigJob(
    parsed,
    { memoryLimit, quiet: options.quiet ?? true, baseDir },
    { signal: options.signal, handleSignals: false },
  );
  return settle(end, started, path.resolve(parsed.data), 'run');
}

function settle(end: CrawlEnd, started: number, out: string, what: string): CrawlSummary {
  const t = end.totals;
  const summary: CrawlSummary = {
    items: t.items,
    itemsThisRun: t.itemsThisRun,
    errors: t.errors,
    bytes: t.bytes,
    seconds: Math.round(performance.now() - started) / 1000,
    queued: t.queued,
    completed: end.completed,
    skipped: t.skipped,
    sourceWarnings: t.sourceWarnings,
    sourceErrors: t.sourceErrors,
    out,
  };
  // Every seed failed (the command line's exit 69): a crawl that ran, told by its counts.
  if (end.code !== 0 && end.code !== NOTHING_COLLECTED_EXIT_CODE) {
    throw new CollectorError(
      `${what} failed (exit code ${end.code}); see ${path.join(out, 'logs')}`,
      summary,
    );
  }
  return summary;
}
