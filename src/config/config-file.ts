/**
 * `collector.yaml` (or `.json`, `.js`/`.mjs`/`.ts` exporting `defineConfig({...})`): one zod
 * schema for the whole file — defaults, validation and docs — reusing the crawl options for each
 * worker type. Errors name the file, the path in it, what is expected and what was found:
 * `collector.yaml: workers[1].processes: expected a positive integer, got "four"`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import { CrawlOptionsSchema, duration, ONE_SHOT_PARSE, positiveInt, size } from './crawl-options.js';
import { causesFirst, issueLine, type SchemaIssue, withMore } from './issue-message.js';
import {
  DEFAULT_METRICS_LISTEN,
  isLoopbackListen,
  listenAddress,
  METRICS_TOKEN_ENV,
} from './listen-address.js';
import { UsageError } from './usage-error.js';

const durationValue = duration('s');

/** `notify:` — a command that gets each message on stdin and/or a URL that gets it as JSON (POST). */
export const NotifySchema = z
  .object({
    /** Shell command run with the message on stdin, e.g. `mail -s collector ops@example.org`. */
    command: z.string().min(1).optional(),
    /** URL that gets `{"text", "kind", "dataDir", "host", "at"}` as a JSON POST. */
    webhook: z
      .string()
      .refine((v) => /^https?:$/.test(URL.parse(v)?.protocol ?? ''), { error: 'expected an http(s) URL' })
      .optional(),
  })
  .strict();

/** `metrics:` — Prometheus text at `/metrics` and the status page at `/`. */
export const MetricsSchema = z
  .object({
    /** Address to listen on. Default 127.0.0.1:9464 (loopback: other machines cannot connect). */
    listen: listenAddress.default(DEFAULT_METRICS_LISTEN),
    /** Bearer token every request must carry; required for a non-loopback address. */
    token: z.string().min(16, { error: 'expected at least 16 characters' }).optional(),
    /** Sampling period of the status page's charts (6 hours are kept). Default 10s. */
    sample: durationValue.pipe(z.number().min(100, { error: 'expected at least 100ms' })).optional(),
  })
  .strict();

/**
 * One worker type: a source × processes, with the crawl options as per-type keys, and the
 * source's own option keys beside them.
 */
export const WorkerTypeSchema = CrawlOptionsSchema.omit({
  out: true,
  resume: true,
  quiet: true,
  processes: true,
  metrics: true,
  // One backend for the whole config (below), one shared crawl per worker type.
  backend: true,
  crawlId: true,
})
  .extend({
    /** Name of this worker type: names its processes (`<name>-<i>`), items, state and logs. Default: the source. */
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, { error: 'expected letters, digits, "_" or "-"' })
      .optional(),
    /**
     * The source: a built-in name (`crawl`: docs, blogs) or the path of a module whose default
     * export is `defineSource({...})`, relative to the config file. Its own option keys sit beside
     * these common keys; they are checked by its `options` schema once it is loaded.
     */
    source: z.string({ error: 'expected a source: a built-in name such as "crawl" or a module path' }),
    /** Worker processes of this type. Default 1. */
    processes: positiveInt.default(1),
    /**
     * Page threads: default on when every process of the whole plan can have a second core
     * (decided with the plan, see `pageThreadByDefault`).
     */
    pageThread: z.boolean().optional(),
  })
  // Other keys are the source's own options: checked once the source is loaded (see
  // `sources/source-options.ts`), where an unknown key is refused as it is here.
  .loose();

/** The keys every worker entry may have, whatever its source. */
export const WORKER_COMMON_KEYS: ReadonlySet<string> = new Set(Object.keys(WorkerTypeSchema.shape));

/**
 * Supervisor timings (`supervisor:` in a config; a multi-process `collector crawl` uses the
 * defaults, with its own `joinTimeout`). Durations in seconds unless a unit is given.
 */
export const SupervisorSettingsSchema = z
  .object({
    /** Time workers get to stop before SIGKILL. Default 10s (the crawl option `joinTimeout`). */
    joinTimeout: CrawlOptionsSchema.shape.joinTimeout,
    /** A worker with work and no new item for this long is restarted. Default 5m. */
    stallTimeout: durationValue.default(300_000),
    /** First restart backoff after a crash (doubles, ≤ 60 s). Default 1s. */
    restartBackoff: durationValue.default(1000),
    /** Crashes within 10 minutes after which a worker is parked. Default 5. */
    maxCrashes: positiveInt.default(5),
  })
  .strict();

/** Supervisor timings with defaults applied (durations in ms). */
export type SupervisorSettings = z.output<typeof SupervisorSettingsSchema>;

/** The whole config file. */
export const ConfigFileSchema = z
  .object({
    /** Data directory (DESIGN §4 layout), relative to the config file's directory. Default `./data`. */
    data: z.string().default('./data'),
    /**
     * `embedded` (files on local disk) or `redis://host:port/db`: every collector started with
     * this config (on any machine) shares each worker type's crawl, rounds included, through
     * that Redis (docs/redis.md). Default embedded.
     */
    backend: CrawlOptionsSchema.shape.backend,
    /**
     * With a Redis backend: the name of the shared crawls; worker type `<name>` is crawl
     * `<crawlId>.<name>`. Default: derived from each type's seeds, scope and source.
     */
    crawlId: CrawlOptionsSchema.shape.crawlId,
    memory: z
      .object({
        /** Share of the memory limit the process tree may use. Default 0.8 (`memoryLimitFraction`). */
        limitFraction: CrawlOptionsSchema.shape.memoryLimitFraction,
        /** Memory limit, e.g. `2G`. Default: cgroup limit, else total RAM. */
        limit: size.optional(),
      })
      .strict()
      .prefault({}),
    /** Supervisor timings, see {@link SupervisorSettingsSchema}. */
    supervisor: SupervisorSettingsSchema.prefault({}),
    /** Where watchdog, size and crash-loop messages go besides stdout (ops/notify.ts). Default: stdout only. */
    notify: NotifySchema.optional(),
    /** Prometheus metrics and the status page, served by the supervisor (ops/metrics-server.ts). Default: off. */
    metrics: MetricsSchema.optional(),
    workers: z.array(WorkerTypeSchema).min(1, { error: 'expected at least one worker type' }),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (
      c.metrics &&
      !isLoopbackListen(c.metrics.listen) &&
      !c.metrics.token &&
      !process.env[METRICS_TOKEN_ENV]
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['metrics', 'listen'],
        message: `a non-loopback address needs metrics.token (or ${METRICS_TOKEN_ENV} in the environment)`,
      });
    }
  });

/** Config as written. */
export type ConfigInput = z.input<typeof ConfigFileSchema>;
/** Config with defaults applied. */
export type Config = z.output<typeof ConfigFileSchema>;

/**
 * Validate a parsed config object.
 * @param file name used in messages.
 * @throws UsageError, one line: the first problem as `file: path: expected X, got Y`, and how
 *   many more there are.
 */
export function validateConfig(raw: unknown, file: string): Config {
  const r = ConfigFileSchema.safeParse(raw, ONE_SHOT_PARSE);
  if (r.success) return r.data;
  const issues = causesFirst(r.error.issues as SchemaIssue[]);
  const first = issueLine(`${file}: `, issues[0], raw, [], (p) => keysAt(ConfigFileSchema, p));
  throw new UsageError(withMore(first, issues.length));
}

/** What a zod schema wraps (optional, default, prefault, pipe), or null. */
function wrapped(schema: z.ZodType): z.ZodType | null {
  const def = schema.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
  if (def.type === 'pipe') return def.in ?? null;
  return def.innerType ?? null;
}

/**
 * The keys of the object schema at `p` inside `schema` (array indexes step into the element),
 * wrappers unwrapped; none when `p` leads to no object.
 */
export function keysAt(schema: z.ZodType, p: ReadonlyArray<PropertyKey>): string[] {
  let s: z.ZodType | undefined = schema;
  for (let i = 0; s !== undefined; i++) {
    for (let inner = wrapped(s); inner !== null; inner = wrapped(s)) s = inner;
    if (i === p.length) return s instanceof z.ZodObject ? Object.keys(s.shape) : [];
    const k = p[i];
    if (s instanceof z.ZodArray && typeof k === 'number') s = s.element as z.ZodType;
    else if (s instanceof z.ZodObject && typeof k === 'string') s = s.shape[k] as z.ZodType | undefined;
    else return [];
  }
  return [];
}

/**
 * Load and validate a config file (`.yaml`/`.yml`, `.json`, `.js`/`.mjs`, `.ts` where Node can
 * load TypeScript).
 * @returns the validated config, and the object as written.
 * @throws UsageError when the file is missing, unparsable or invalid.
 */
export async function loadConfig(file: string): Promise<{ config: Config; raw: ConfigInput }> {
  const abs = path.resolve(file);
  const ext = path.extname(abs).toLowerCase();
  let raw: unknown;
  if (ext === '.js' || ext === '.mjs' || ext === '.ts' || ext === '.mts') {
    try {
      await fs.access(abs);
    } catch {
      throw new UsageError(`--config ${file}: not found; create it (see examples/collector.yaml)`);
    }
    try {
      const mod = (await import(pathToFileURL(abs).href)) as { default?: unknown };
      raw = mod.default;
    } catch (e) {
      const hint = ext.endsWith('ts') ? ' (Node 20 cannot load TypeScript: use .yaml, .json or .mjs)' : '';
      throw new UsageError(`--config ${file}: cannot load: ${(e as Error).message.split('\n')[0]}${hint}`);
    }
  } else {
    let text: string;
    try {
      text = await fs.readFile(abs, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(`--config ${file}: ${code === 'ENOENT' ? 'not found' : `cannot read (${code})`}`);
    }
    try {
      // The YAML parser is loaded only for a YAML file (a crawl without one never reads it).
      raw = ext === '.json' ? JSON.parse(text) : (await import('yaml')).default.parse(text);
    } catch (e) {
      throw new UsageError(
        `${path.basename(file)}: not valid ${ext === '.json' ? 'JSON' : 'YAML'}: ${parseErrorText(e)}`,
      );
    }
  }
  const config = resolveConfigPaths(validateConfig(raw ?? {}, path.basename(file)), path.dirname(abs));
  return { config, raw: raw as ConfigInput };
}

/**
 * A parser's error as one line: where, then what — `line 2, column 1: Flow sequence in block
 * collection must be sufficiently indented and end with a ]` (the yaml package ends its first
 * line with "at line L, column C:" before a code excerpt).
 */
export function parseErrorText(e: unknown): string {
  const first = ((e as Error)?.message ?? String(e)).split('\n')[0].trim();
  const at = / at line (\d+), column (\d+):?$/.exec(first);
  if (at) return `line ${at[1]}, column ${at[2]}: ${first.slice(0, at.index)}`;
  return first.replace(/:$/, '');
}

/** Whether a `source:` value names a module file rather than a built-in source. */
function isModulePath(source: string): boolean {
  return source.startsWith('./') || source.startsWith('../') || path.isAbsolute(source);
}

/**
 * Relative paths of a config — `data` and a source module path — made absolute against the config
 * file's directory, as other tools read their config files: the same file means the same data
 * whatever the working directory (cron, systemd, a shell elsewhere).
 * @param dir the config file's directory.
 * @returns the config with absolute paths (a new object; `config` is not changed).
 */
export function resolveConfigPaths(config: Config, dir: string): Config {
  return {
    ...config,
    data: path.resolve(dir, config.data),
    workers: config.workers.map((w) =>
      isModulePath(w.source) ? { ...w, source: path.resolve(dir, w.source) } : w,
    ),
  };
}
