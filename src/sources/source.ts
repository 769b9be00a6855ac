/**
 * The Source contract (DESIGN §2b): what a worker type collects and how it reads responses. A
 * source is a plain object made with {@link defineSource} — the built-in `crawl` too — that sees
 * only the page and context it is handed; it never imports the engine, the runtime or a backend.
 */

/**
 * A request a source asks for: a URL string (absolute, or relative to the page it was found on),
 * or this object. Every request, wherever it comes from, passes scope, depth, dedup, politeness
 * and robots.txt, survives `--resume` and the handoff to its owning process with its metadata,
 * and ends in exactly one item line.
 */
export interface RequestSpec {
  /** Absolute http(s) URL, or relative to the page's final URL; canonicalized (WHATWG URL). */
  url: string;
  /** Routes the response back (`page.label`); written to the item as `label`. At most 200 characters. */
  label?: string;
  /**
   * Extra request headers (`Accept`, `If-None-Match`, ...), sent on every hop of this request.
   * Stored with the request, so never credentials: `Authorization`, `Cookie` and
   * `Proxy-Authorization` are refused here (add them with {@link SourceDefinition.authorize}).
   */
  headers?: Record<string, string>;
  /** Higher goes first among its host's queued URLs; default 0, negative goes after the rest. */
  priority?: number;
  /** Any JSON value (at most 64 KiB as JSON): carried to the page and written to the item. */
  userData?: unknown;
  /** `false`: the body is not stored under `files/` (the item line is still written). */
  store?: boolean;
  /**
   * `false`: an API call that robots.txt does not govern (the source's documentation should say
   * why); its hops are not checked against robots.txt.
   */
  robots?: boolean;
  /**
   * `true`: fetched again in every round (a listing, a feed, a sitemap: pages where new links
   * appear), although it was seen before; at most once per round. Requests from `seeds()` are
   * fetched again each round anyway.
   */
  everyRound?: boolean;
  /**
   * `false`: a navigation file (robots.txt, a sitemap) fetched whatever the scope and
   * `--include`/`--exclude` say; as a round request it does not widen the scope (the pages it
   * lists are checked against the scope as usual).
   */
  scope?: boolean;
  /**
   * When the source says the resource last changed (a sitemap's `<lastmod>`, a feed entry's
   * `updated`): epoch ms, a Date or a date string. With continuous collection (`interval`), a URL
   * fetched before is fetched again (conditionally) when this is later than its last fetch, once
   * per round; otherwise it is skipped as unchanged.
   */
  lastmod?: number | string | Date | null;
}

/** A URL string or a {@link RequestSpec}. */
export type Request = string | RequestSpec;

/** A fetched 2xx response handed to {@link SourceDefinition.handle}. */
export interface Page {
  /** Canonical requested URL. */
  readonly url: string;
  /** URL of the last hop, after redirects. */
  readonly finalUrl: string;
  /** HTTP status of the last hop. */
  readonly status: number;
  /** Content-Type header, or null. */
  readonly contentType: string | null;
  /** Response headers of the last hop (lowercase names). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Body bytes after Content-Encoding removal (not charset-decoded). */
  readonly body: Buffer;
  /** Link distance from a seed (seeds are 0). */
  readonly depth: number;
  /** The request's label, or undefined. */
  readonly label: string | undefined;
  /** The request's userData, or undefined. */
  readonly userData: unknown;
  /** The body decoded by its charset (BOM, Content-Type, `<meta>` for HTML, else UTF-8). */
  text(): string;
  /** `JSON.parse(text())`. @throws SyntaxError on a body that is not JSON. */
  json<T = unknown>(): T;
}

/** Stored bytes and file extension chosen by a source (e.g. a README from a JSON API as `.md`). */
export interface FileChoice {
  /** The bytes to store instead of the response body (a string is stored as UTF-8). */
  body?: string | Uint8Array;
  /** Extension of the stored file, e.g. `md` (letters and digits, at most 16). */
  extension?: string;
}

/** What {@link SourceDefinition.handle} returns for a page (every field optional). */
export interface HandleResult {
  /** Written to the item's `title`. */
  title?: string | null;
  /** Source-specific fields, written under the item's `data` (JSON). */
  data?: Record<string, unknown>;
  /** Requests to follow, at the page's depth + 1. */
  follow?: Request[];
  /** Store these bytes or this extension instead of the response as it came. */
  file?: FileChoice;
  /**
   * `false`: the response is not stored (the item line is still written): it only pointed to the
   * content, which a request in `follow` fetches (a symbolic link, an API answer without the
   * file's bytes). Default: stored, as the request's `store` says.
   */
  store?: boolean;
  /**
   * The worker type cannot go on (the service refused its credential: no retry can fix that):
   * this one-line reason becomes the page's item error (`source`), is said once (log, stderr,
   * status), and the worker stops taking URLs rather than sending more with it. A one-shot crawl
   * ends with exit code 78 (`EX_CONFIG`); under `collector run` every process of the worker type
   * stops, and the run ends with 78 once nothing else runs.
   */
  stop?: string;
  /**
   * Markdown of the page (e.g. an article's main content): stored as a `.md` file next to the
   * stored body, which the item's `data.markdown` names. Links in it are not followed by
   * themselves: put them in `follow`.
   */
  markdown?: string;
  /**
   * A client-side redirect of the page (declarative refresh with a short delay): an absolute
   * canonical URL the runtime follows as a redirect hop of this page, checked like a 3xx
   * Location; the page itself then yields no item of its own.
   */
  refresh?: string;
  /**
   * For a non-2xx page the source asked for (see {@link SourceDefinition.statuses}): what was
   * asked for does not exist (a repository without a README); the item's error becomes
   * `{ kind: 'not-found', message }` instead of `http-status`.
   */
  missing?: string;
  /**
   * A sketch of the page's text (`TextSketch`, ascending word hashes) the runtime's trap defence
   * compares between pages of one URL shape; optional.
   */
  sketch?: number[];
}

/** Log lines of a source: written to the worker's log; warnings and errors counted in status. */
export interface SourceLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Which process of its worker type a source runs in. */
export interface WorkerInfo {
  /** e.g. `hn-1`: names its items file, state and log. */
  id: string;
  /** Position among the processes of its type, 0-based. */
  index: number;
  /** Processes of its type. */
  count: number;
}

/** What a source is handed besides the page. */
export interface SourceContext<O = Record<string, unknown>> {
  /** The source's options, parsed by its `options` schema (empty without one). */
  options: O;
  /** The configured seeds (the worker's `seeds:`, or the URLs given to `collector crawl`), canonical. */
  seeds: readonly string[];
  log: SourceLog;
  worker: WorkerInfo;
}

/** A zod-like schema (zod 3 or 4): what the source's `options` must offer. */
export interface OptionsSchema<O> {
  safeParse(
    input: unknown,
  ): { success: true; data: O } | { success: false; error: { issues: ReadonlyArray<OptionsIssue> } };
}

/** One problem found by an {@link OptionsSchema}. */
export interface OptionsIssue {
  path: ReadonlyArray<PropertyKey>;
  message: string;
  code?: string;
  keys?: ReadonlyArray<string>;
}

/**
 * The rate budget a request spends (DESIGN §2b): kept once per credential and resource for the
 * whole collector, across its processes (the supervisor holds it). `identity` names the credential
 * without being it (`credentialIdentity(token)`: `anonymous` or a hash); `resource` is the
 * service's name for the limit (GitHub's `X-RateLimit-Resource`: `core`, `search`, ...).
 */
export interface RateBudgetKey {
  identity: string;
  resource: string;
}

/** Headers a source adds at send time: credentials, never stored or logged. */
export type AuthorizeHeaders = Record<string, string> | undefined | null;

/**
 * A source. `handle` is the only required method; `seeds` and `authorize` are optional.
 * Methods may be sync or async.
 */
export interface SourceDefinition<O = Record<string, unknown>> {
  /** Written to each item's `source`; letters, digits, `_`, `-`. */
  name: string;
  /**
   * A zod schema of the source's own option keys, which sit beside the common keys of a worker
   * entry (`api: …` next to `processes: 2`) or come from `--source-option k=v`. Its keys must
   * not be common keys. Unknown keys are refused.
   */
  options?: OptionsSchema<O>;
  /**
   * Option keys whose string values are file paths: resolved against the config file's directory
   * (on the command line, the current directory) before the source sees them.
   */
  pathOptions?: readonly string[];
  /**
   * `true`: `handle` keeps no state the rest of the process reads, so it may run in a page
   * thread (its module is imported there by path). Parsing then runs off the fetch loop.
   */
  threadSafe?: boolean;
  /**
   * The requests of a round: called at start and at each `interval`, in each process (each
   * keeps the requests it owns). Without it, a round is the configured seeds. Seeds go again
   * each round, although seen before.
   */
  seeds?(ctx: SourceContext<O>): Request[] | Promise<Request[]>;
  /**
   * Non-2xx statuses `handle` also receives (e.g. `[404]`: a README that does not exist, or a
   * next name to try); their body is never stored, and their item keeps an `http-status` error
   * unless `handle` returns `missing`. Default none.
   */
  statuses?: readonly number[];
  /**
   * URLs whose prefixes are in scope besides the seeds' (the services a source talks to: an API
   * base, a raw-content host), so the requests it makes there pass `prefix`/`host`/`domain`
   * scopes. Called once per process. Default none.
   */
  scope?(ctx: SourceContext<O>): string[];
  /**
   * The rate budget a request spends, or null for none (a web page). Asked before each hop is
   * sent: the request waits, without using a try, until the budget allows it; the response's
   * rate-limit headers (`X-RateLimit-*`, `Retry-After`) are recorded in it after.
   */
  rateBudget?(
    request: { url: string; label: string | undefined },
    ctx: SourceContext<O>,
  ): RateBudgetKey | null;
  /** Read one 2xx response (or one of `statuses`). Throwing makes the page's item an `error.kind: "source"` item. */
  handle(page: Page, ctx: SourceContext<O>): HandleResult | undefined | Promise<HandleResult | undefined>;
  /**
   * Headers added when a request of this source is sent (e.g. `Authorization` from
   * `process.env.GITHUB_TOKEN`), for each hop to the request's own origin; never for a
   * redirect to another origin. The result is never stored, logged or written to an item.
   */
  authorize?(
    request: { url: string; label: string | undefined },
    ctx: SourceContext<O>,
  ): AuthorizeHeaders | Promise<AuthorizeHeaders>;
  /**
   * The names of the environment variables holding the credentials `authorize` reads (e.g.
   * `['GITHUB_TOKEN']`), given the parsed options; names only, never values. Each one unset when
   * the collector starts is said on stderr and in status (`warnings`), and `collector install`
   * lists them in the environment file it writes. Default none.
   */
  credentialEnv?(options: O): string[];
}

/**
 * Define a source: returns `def` as it is, typed. A module's default export (`export default
 * defineSource({...})`) is what a config's `source: ./path.mjs` or `--source PATH` loads.
 */
export function defineSource<O = Record<string, unknown>>(def: SourceDefinition<O>): SourceDefinition<O> {
  return def;
}
