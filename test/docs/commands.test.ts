/**
 * The commands README.md and docs/*.md show, run as a reader would run them. A block fenced
 * ```sh runnable (one command a line; `\` continues a line, `#` starts a comment) or
 * ```console runnable (a transcript: its `$ ` lines are the commands, the rest is output) is run
 * line by line, in the order of its page, each page in a fresh directory holding a copy of
 * `examples/`. `collector` and `npx collector` are this clone's `bin/collector.js`; the sites the
 * pages name (docs.example.org, blog.example.net, GitHub, a Redis at 10.0.0.5, …) are local
 * fixture servers started here, and every URL in a command or an example file is pointed at
 * them (a URL with no fixture fails: add one to `urls` in beforeAll). A `collector run` is stopped with
 * SIGTERM once every worker type of its config has written an item. A ```sh block without the
 * marker must be listed in NOT_RUNNABLE with the reason; and every `collector` command line of any
 * block must name a command and flags that `--help` shows.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { startBlog } from '../fixtures/blog-site.js';
import { distIsStale } from '../fixtures/build-once.js';
import { type CliResult, readItems, runCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type GithubFixture, startGithubFixture } from '../fixtures/github-server.js';
import { startJsonApi } from '../fixtures/json-api.js';
import { redisServerPath, startRedis, type TestRedis } from '../fixtures/redis-server.js';
import { type FixtureServer, type Route, startServer } from '../fixtures/site-server.js';

const root = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(root, 'bin', 'collector.js');
const HAVE_REDIS = redisServerPath() !== null;

/**
 * ```sh blocks that are not run, by page and first command, and why. A block listed here that no
 * longer exists fails the test too, so the list stays true.
 */
const NOT_RUNNABLE: Record<string, string> = {
  'README.md: npm ci && npm run demo':
    'the set-up itself: `npm run demo` is run by test/e2e/demo.test.ts; `npm ci` and `npm test` are what CI runs on a clean clone (the suite cannot run itself)',
  'docs/contributing.md: npm run build':
    'the development commands: the suite builds first, runs the tests and lint itself, and the benchmarks and mutation runs take many minutes',
  'docs/operating.md: cd /srv/collector':
    'installs the package from the npm registry (tests are offline) and `--write` edits the crontab of the user running the tests; the same install --cron is run without --write on the example config',
  'docs/operating.md: sudo npx collector install --systemd --config /srv/collector/collector.yaml --write':
    'needs root and systemd, and writes /etc/systemd/system; the same install --systemd is run without --write on the example config',
  'docs/warc.md: LC_ALL=C sort -o data/warc/crawl-0-00003.cdxj data/warc/crawl-0-00003.cdxj':
    'sorts the index a kill -9 left unsorted: test/e2e/warc.test.ts checks the index after a kill -9 and --resume',
  'docs/warc.md: npx warcio cdx-index data/warc/crawl-0-00000.warc.gz | head':
    "fetches warcio's command line from the npm registry (tests are offline); test/e2e/warc.test.ts compares the CDXJ with warcio's own index",
  'docs/export.md: collector export --data data --format parquet --with-content --out pages.parquet':
    'the DuckDB command line and Python (pandas, datasets) that read the file back are not installed by the project; test/e2e/export.test.ts reads the Parquet back with DuckDB (@duckdb/node-api)',
  'docs/render.md: npx collector crawl https://app.example.org/docs/ --render auto':
    "needs Debian's chromium and a single-page application: test/e2e/render.test.ts runs these crawls (auto, always, --render-concurrency) against its SPA fixture, and skips saying so without chromium",
  'docs/output.md: npx pino-pretty < data/logs/crawl-0.log':
    'fetches pino-pretty from the npm registry (tests are offline; it is not a dependency)',
};

/** Exit codes that are a verdict rather than a failure, per collector command. */
const VERDICT_CODES: Record<string, number[]> = { status: [0, 1, 3], stop: [0, 3], watchdog: [0, 1, 3] };

/** The token the pages write (`GITHUB_TOKEN=ghp_...`): the GitHub fixture accepts it. */
const DOC_TOKEN = 'ghp_...';

interface Block {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string: `sh runnable`, `console runnable`, `text`, … */
  info: string;
  body: string;
}

/** The fenced code blocks of a page. */
function fencedBlocks(page: string): Block[] {
  const lines = fs.readFileSync(path.join(root, page), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([^`]*)$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.findIndex(
      (l, k) => k > i && new RegExp(`^ {0,3}${open[1][0]}{${open[1].length},}\\s*$`).test(l),
    );
    const close = end === -1 ? lines.length : end;
    blocks.push({ page, line: i + 1, info: open[2].trim(), body: lines.slice(i + 1, close).join('\n') });
    i = close;
  }
  return blocks;
}

/** A command line split into words as sh would (quotes, backslashes, `#` comments); other shell syntax is refused. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unclosed ' in: ${line}`);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && '"\\$`'.includes(line[j + 1] ?? '')) j++;
        word += line[j];
      }
      if (j >= line.length) throw new Error(`unclosed " in: ${line}`);
      inWord = true;
      i = j;
    } else if (c === '\\') {
      word += line[++i] ?? '';
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if (c === '#' && !inWord) {
      break;
    } else if ('|&;<>()$`*?'.includes(c)) {
      throw new Error(
        `shell syntax "${c}" is not supported in a runnable block (one command a line): ${line}`,
      );
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** The commands of a runnable block, as lines. */
function commandLines(block: Block): string[] {
  if (block.info.startsWith('console')) {
    return block.body
      .split('\n')
      .filter((l) => l.startsWith('$ '))
      .map((l) => l.slice(2));
  }
  return block.body
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
}

/** The first command of a block, as NOT_RUNNABLE names it. */
function firstCommand(block: Block): string {
  return `${block.page}: ${commandLines(block)[0]
    .replace(/\s+#.*$/, '')
    .trim()}`;
}

const pages = [
  'README.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const blocks = pages.flatMap(fencedBlocks);
const runnable = (b: Block) => /^(sh|console) runnable$/.test(b.info);

// ---- fixtures ------------------------------------------------------------------------------

/** What the pages' sites are here. */
interface Fixtures {
  /** Documented URL prefix → local URL, longest first. */
  urls: Array<[string, string]>;
  github: GithubFixture;
  redis: TestRedis | null;
}

let fx: Fixtures;
const closers: Array<() => Promise<void>> = [];

const PROSE =
  'A collector keeps a frontier of URLs, fetches each one politely, and stores what it finds. This page explains one part of it in enough words for a reader view to take it as the main content of the page.';

/** A small documentation site: robots.txt with a sitemap, an index, a guide, /docs/ pages, and the pages of examples/urls.txt. */
async function startDocsSite(): Promise<FixtureServer> {
  let origin = '';
  const pageOf =
    (title: string, links: string[] = []): Route =>
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html lang="en"><head><title>${title}</title></head><body><nav><a href="/">Home</a></nav><main><h1>${title}</h1><p>${PROSE}</p><pre><code class="language-sh">npx collector crawl https://docs.example.org/</code></pre><ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('')}</ul></main></body></html>`,
      );
    };
  const text =
    (type: string, body: () => string): Route =>
    (_req, res) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body());
    };
  const server = await startServer({
    '/robots.txt': text('text/plain', () => `User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`),
    '/sitemap.xml': text(
      'application/xml',
      () =>
        `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${[
          '/',
          '/guide/',
          '/docs/',
          '/docs/install.html',
        ]
          .map((p) => `<url><loc>${origin}${p}</loc></url>`)
          .join('')}</urlset>`,
    ),
    '/': pageOf('Documentation', ['guide/', 'docs/']),
    '/guide/': pageOf('Guide', ['../docs/install.html']),
    '/docs/': pageOf('Docs', ['install.html', 'api.html']),
    '/docs/install.html': pageOf('Installing', ['api.html']),
    '/docs/api.html': pageOf('API'),
    '/pricing': pageOf('Pricing'),
    '/changelog': pageOf('Changelog'),
  });
  origin = server.origin;
  return server;
}

beforeAll(async () => {
  expect(distIsStale(), 'dist/ is older than src/: run `npm run build`').toBe(false);
  const docs = await startDocsSite();
  const blog = await startBlog({ posts: 2 });
  const api = await startJsonApi();
  const github = await startGithubFixture({
    tokens: [DOC_TOKEN],
    search: { 'topic:web-scraping': 3, 'topic:crawler': 3, 'topic:llm': 3 },
  });
  const redis = HAVE_REDIS ? await startRedis() : null;
  closers.push(
    () => docs.close(),
    () => blog.close(),
    () => api.close(),
    () => github.close(),
    async () => redis?.stop(),
  );
  const urls: Array<[string, string]> = [
    ['https://docs.example.org', docs.origin],
    ['https://www.example.org', docs.origin],
    ['https://blog.example.org/feed.xml', `${blog.origin}/feed.rss`],
    ['https://engineering.example.com/atom.xml', `${blog.origin}/feed.atom`],
    ['https://blog.example.org', blog.origin],
    ['https://blog.example.net', blog.origin],
    ['https://api.example.org/v0', api.api],
  ];
  if (redis) urls.push(['redis://10.0.0.5:6379/0', redis.url]);
  urls.sort((a, b) => b[0].length - a[0].length);
  fx = { urls, github, redis };
});

afterAll(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Every URL in `text` pointed at its fixture. @throws for a URL no fixture stands for. */
function localize(text: string): string {
  return text.replace(/\b(?:https?|redis):\/\/[^\s'"`,\])}]+/g, (url) => {
    const hit = fx.urls.find(([prefix]) => url === prefix || url.startsWith(prefix));
    if (hit === undefined) {
      throw new Error(
        `${url}: no local fixture stands for it; add one to \`urls\` in test/docs/commands.test.ts`,
      );
    }
    return hit[1] + url.slice(hit[0].length);
  });
}

/** A YAML value with its URLs localized, and the GitHub sources pointed at the fixture. */
function localizeConfig(value: unknown): unknown {
  if (typeof value === 'string') return localize(value);
  if (Array.isArray(value)) return value.map(localizeConfig);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = localizeConfig(v);
    if (typeof out.source === 'string' && out.source.startsWith('github-'))
      out.github = { ...fx.github.bases };
    return out;
  }
  return value;
}

/**
 * A fresh directory for one page's commands, holding `examples/` with every URL of its YAML and
 * text files localized; other files (source modules, scripts) are links to the originals, so they
 * import this package as they do in the clone.
 */
function workspace(): string {
  const dir = tempDir('collector-docs-');
  const copy = (from: string, to: string) => {
    fs.mkdirSync(to, { recursive: true });
    for (const e of fs.readdirSync(from, { withFileTypes: true })) {
      const src = path.join(from, e.name);
      const dest = path.join(to, e.name);
      if (e.isDirectory()) copy(src, dest);
      else if (/\.ya?ml$/.test(e.name))
        fs.writeFileSync(dest, YAML.stringify(localizeConfig(YAML.parse(fs.readFileSync(src, 'utf8')))));
      else if (e.name.endsWith('.txt')) fs.writeFileSync(dest, localize(fs.readFileSync(src, 'utf8')));
      else fs.symlinkSync(src, dest);
    }
  };
  copy(path.join(root, 'examples'), path.join(dir, 'examples'));
  return dir;
}

// ---- running -------------------------------------------------------------------------------

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const c of children)
    if (c.exitCode === null && c.signalCode === null && c.pid) process.kill(c.pid, 'SIGKILL');
  children.clear();
});

/** Start a command in `cwd`; `done` resolves when it exits. */
function start(argv: string[], env: Record<string, string>, cwd: string) {
  // Only what the command line sets: no token of the machine running the tests.
  const { GITHUB_TOKEN: _, ...inherited } = process.env;
  const child = spawn(argv[0], argv.slice(1), {
    cwd,
    env: { ...inherited, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const done = waitExit(child);
  return { child, done };
}

/** The value of `--flag` in `args`, or undefined. */
const flag = (args: string[], name: string) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};

/** Worker type names of a config, as the collector names them. */
function workerTypes(configFile: string): { data: string; names: string[] } {
  const config = YAML.parse(fs.readFileSync(configFile, 'utf8'));
  const workers = config.workers as Array<{ name?: string; source: string }>;
  const names = workers.map(
    (w, i) =>
      w.name ?? (workers.filter((x) => x.source === w.source).length > 1 ? `${w.source}${i}` : w.source),
  );
  return { data: path.resolve(path.dirname(configFile), config.data ?? './data'), names };
}

/** Whether every worker type has written at least one item line. */
function everyTypeWrote(data: string, names: string[]): boolean {
  const dir = path.join(data, 'items');
  if (!fs.existsSync(dir)) return false;
  const files = fs.readdirSync(dir);
  return names.every((n) =>
    files.some((f) => f.startsWith(`${n}-`) && fs.readFileSync(path.join(dir, f), 'utf8').includes('\n')),
  );
}

/** Run one documented command line in `cwd` as a reader would, and check it did its job. */
async function runLine(line: string, cwd: string, where: string): Promise<void> {
  const words = shellWords(line);
  const env: Record<string, string> = {};
  while (words.length > 0 && /^[A-Za-z_]\w*=/.test(words[0])) {
    const [k, ...v] = (words.shift() as string).split('=');
    env[k] = v.join('=');
  }
  const label = `${where}: ${line}`;
  let argv: string[];
  if (words[0] === 'npx' && words[1] === 'collector') argv = [process.execPath, BIN, ...words.slice(2)];
  else if (words[0] === 'collector') argv = [process.execPath, BIN, ...words.slice(1)];
  else if (words[0] === 'node') argv = [process.execPath, ...words.slice(1)];
  else throw new Error(`${label}: only collector, npx collector and node commands run here`);
  argv = argv.map((a, i) => (i < 2 ? a : localize(a)));
  const args = argv.slice(2);
  const command = words[0] === 'node' ? 'node' : args[0];
  const githubSource = /^github-/.test(flag(args, '--source') ?? '');
  if (command === 'crawl' && githubSource) {
    for (const [k, v] of Object.entries(fx.github.bases)) argv.push('--source-option', `github.${k}=${v}`);
    // With the docs' token the fixture's searches are spaced 2 s apart, not the anonymous 6 s:
    // the same commands, 15 s less of waiting.
    env.GITHUB_TOKEN ??= DOC_TOKEN;
  }

  if (command === 'run') {
    // Continuous: runs until stopped. Stopped once every worker type has collected something.
    const { data, names } = workerTypes(path.resolve(cwd, flag(args, '--config') ?? 'collector.yaml'));
    const { child, done } = start(argv, env, cwd);
    let exited: CliResult | null = null;
    void done.then((r) => {
      exited = r;
    });
    await waitFor(() => exited !== null || everyTypeWrote(data, names), 150_000).catch(() => {});
    expect(
      exited,
      `${label}: exited before every worker type wrote an item: ${JSON.stringify(exited)}`,
    ).toBeNull();
    expect(everyTypeWrote(data, names), `${label}: not every worker type of ${names} wrote an item`).toBe(
      true,
    );
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code, `${label}: after SIGTERM\n${r.stderr}`).toBe(0);
    return;
  }

  const { done } = start(argv, env, cwd);
  const timer = new Promise<null>((resolve) => setTimeout(() => resolve(null), 200_000).unref());
  const r = await Promise.race([done, timer]);
  expect(r, `${label}: still running after 200 s`).not.toBeNull();
  const { code, stderr } = r as CliResult;
  expect(VERDICT_CODES[command] ?? [0], `${label}: exit ${code}\n${stderr}`).toContain(code);
  if (command === 'crawl' || command === 'node') {
    const out = path.resolve(cwd, command === 'node' ? (args[2] ?? 'data') : (flag(args, '--out') ?? 'data'));
    const items = readItems(out);
    expect(items.length, `${label}: no item in ${out}\n${stderr}`).toBeGreaterThan(0);
    // Every page the fixtures serve is there. Expected misses: a README the GitHub fixture lacks,
    // and /sitemap.xml, which --sitemaps asks for on a site whose robots.txt names other sitemaps.
    const missed = (i: Record<string, any>) =>
      i.error.kind === 'not-found' || (new URL(i.url).pathname === '/sitemap.xml' && i.status === 404);
    const failed = items.filter((i) => i.error && !missed(i));
    expect(
      failed.map((i) => `${i.url}: ${i.error.kind} ${i.error.message}`),
      label,
    ).toEqual([]);
  }
}

// ---- the tests -----------------------------------------------------------------------------

describe('the documentation blocks', () => {
  it('are found, and every ```sh block is run or says why not', () => {
    expect(blocks.filter(runnable).length).toBeGreaterThan(15);
    const shBlocks = blocks.filter((b) => /^sh\b/.test(b.info) && !runnable(b));
    const named = shBlocks.map(firstCommand);
    for (const name of named)
      expect(NOT_RUNNABLE, `add ${name} to NOT_RUNNABLE with a reason, or mark it runnable`).toHaveProperty([
        name,
      ]);
    for (const name of Object.keys(NOT_RUNNABLE))
      expect(named, `NOT_RUNNABLE names a block that is gone`).toContain(name);
    // A marker is one of the two forms the runner reads, never a near miss it would skip.
    for (const b of blocks.filter((b) => /runnable/i.test(b.info)))
      expect(b.info, `${b.page}:${b.line}`).toMatch(/^(sh|console) runnable$/);
  });

  it('show only collector commands and flags that exist', async () => {
    const helps = new Map<string, string>();
    for (const b of blocks) {
      for (const raw of b.body.split('\n')) {
        const line = raw.replace(/\s+#.*$/, '');
        const m = /^(?:\$ )?(?:[A-Z_]+=\S+ )*(?:sudo )?(?:npx )?collector ([a-z][\w-]*)(.*)$/.exec(line);
        if (!m) continue;
        if (!helps.has(m[1])) {
          const r = await runCli([m[1], '--help']);
          expect(r.code, `${b.page}:${b.line}: collector ${m[1]} --help`).toBe(0);
          // An unknown command would print the program's help instead.
          expect(r.stdout, `${b.page}:${b.line}: collector ${m[1]}`).toMatch(
            new RegExp(`^Usage: collector ${m[1]} `),
          );
          helps.set(m[1], r.stdout);
        }
        for (const f of m[2].matchAll(/(?:^|[\s[])(--[a-z][a-z0-9-]*)/g))
          expect(helps.get(m[1]), `${b.page}:${b.line}: collector ${m[1]} ${f[1]}`).toMatch(
            new RegExp(`${f[1]}\\b`),
          );
      }
    }
    expect([...helps.keys()]).toEqual(
      expect.arrayContaining(['crawl', 'run', 'status', 'stop', 'watchdog', 'size', 'plan', 'install']),
    );
  });
});

for (const page of pages) {
  const own = blocks.filter((b) => b.page === page && runnable(b));
  if (own.length === 0) continue;
  describe(`${page}, its commands run`, () => {
    let cwd = '';
    beforeAll(() => {
      cwd = workspace();
    });
    for (const block of own) {
      const needsRedis = block.body.includes('redis://');
      it.skipIf(needsRedis && !HAVE_REDIS)(`line ${block.line}: ${commandLines(block)[0]}`, async () => {
        for (const line of commandLines(block)) await runLine(line, cwd, `${page}:${block.line}`);
      });
    }
  });
}
