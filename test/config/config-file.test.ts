import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, validateConfig } from '../../src/config/config-file.js';
import { runWorkerSpecs } from '../../src/runtime/run-job.js';
import { tempDir } from '../fixtures/cli.js';

const SEED = 'http://127.0.0.1:9/docs/';

function errorOf(raw: unknown): string {
  try {
    validateConfig(raw, 'collector.yaml');
  } catch (e) {
    return (e as Error).message;
  }
  return '';
}

function write(name: string, text: string): string {
  const dir = tempDir('collector-cfg-');
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('config file', () => {
  it('applies defaults and converts units', () => {
    const c = validateConfig(
      { workers: [{ source: 'crawl', seeds: [SEED], delay: '2s', interval: '5m', maxBytes: '1MB' }] },
      'c.yaml',
    );
    expect(c.data).toBe('./data');
    expect(c.memory.limitFraction).toBe(0.8);
    expect(c.workers[0]).toMatchObject({
      processes: 1,
      concurrency: 16,
      delay: 2000,
      interval: 300_000,
      maxBytes: 1048576,
    });
  });

  it('names the file, the path, what is expected and what was found', () => {
    expect(
      errorOf({
        workers: [
          { source: 'crawl', seeds: [SEED] },
          { source: 'crawl', seeds: [SEED], processes: 'four' },
        ],
      }),
    ).toBe('collector.yaml: workers[1].processes: expected a positive integer, got "four"');
    expect(errorOf({ workers: [{ source: 'crawl', seeds: [SEED], processes: 0 }] })).toBe(
      'collector.yaml: workers[0].processes: expected a positive integer, got 0',
    );
    expect(errorOf({ workers: [{ source: 'crawl', seeds: [SEED], delay: 'soon' }] })).toMatch(
      /^collector\.yaml: workers\[0\]\.delay: expected a duration such as 500ms/,
    );
    expect(errorOf({ workers: [] })).toMatch(/^collector\.yaml: workers: expected at least one worker type/);
    expect(errorOf({})).toMatch(/^collector\.yaml: workers: /);
  });

  it("refuses a key that is neither common nor the source's own, once the source is loaded", async () => {
    const c = validateConfig({ workers: [{ source: 'crawl', seeds: [SEED], speed: 3 }] }, 'c.yaml');
    await expect(runWorkerSpecs(c, process.cwd())).rejects.toThrow(
      /^workers\[0\]: unknown key "speed" \(source crawl takes articlePatterns, follow, feeds, sitemaps, markdown, pageRequisites; every worker takes .*\bdelay\b.*\)$/,
    );
  });

  it('says which key a misspelt one was meant to be, and tells the typo before what it left missing', async () => {
    const near = (extra: Record<string, unknown>) =>
      runWorkerSpecs(
        validateConfig({ workers: [{ source: 'crawl', seeds: [SEED], ...extra }] }, 'c.yaml'),
        '.',
      );
    await expect(near({ delays: '1s' })).rejects.toThrow(
      /^workers\[0\]: unknown key "delays" \(did you mean "delay"\?\)$/,
    );
    await expect(near({ Concurency: 4 })).rejects.toThrow(
      /unknown key "Concurency" \(did you mean "concurrency"\?\)$/,
    );
    await expect(near({ articlePattern: ['/blog/'] })).rejects.toThrow(
      /\(did you mean "articlePatterns"\?\)$/,
    );
    expect(errorOf({ worker: [{ source: 'crawl', seeds: [SEED] }] })).toBe(
      'collector.yaml: (top level): unknown key "worker" (did you mean "workers"?) (and 1 more problem)',
    );
    expect(errorOf({ memory: { limitFracton: 0.5 }, workers: [{ source: 'crawl', seeds: [SEED] }] })).toBe(
      'collector.yaml: memory: unknown key "limitFracton" (did you mean "limitFraction"?)',
    );
    // nothing near: the keys that are allowed there
    expect(errorOf({ memory: { zzz: 1 }, workers: [{ source: 'crawl', seeds: [SEED] }] })).toBe(
      'collector.yaml: memory: unknown key "zzz" (expected one of limitFraction, limit)',
    );
  });

  it('loads YAML and JSON, and reports unreadable or invalid files in one line', async () => {
    const y = write(
      'collector.yaml',
      `data: /tmp/x\nworkers:\n  - source: crawl\n    seeds: [${SEED}]\n    processes: 2\n`,
    );
    const { config, raw } = await loadConfig(y);
    expect(config.workers[0].processes).toBe(2);
    expect(raw.workers?.[0].processes).toBe(2);
    const j = write('c.json', JSON.stringify({ workers: [{ source: 'crawl', seeds: [SEED] }] }));
    expect((await loadConfig(j)).config.workers).toHaveLength(1);
    await expect(loadConfig('/nonexistent/collector.yaml')).rejects.toThrow(
      /--config \/nonexistent\/collector\.yaml: not found/,
    );
    await expect(loadConfig(write('bad.yaml', 'workers: [\n'))).rejects.toThrow(
      /^bad\.yaml: not valid YAML: line 2, column 1: Flow sequence .* end with a \]$/,
    );
    await expect(loadConfig(write('bad.json', '{"workers": [}'))).rejects.toThrow(
      /^bad\.json: not valid JSON: [^\n]*[^:\n]$/,
    );
  });

  it('loads a .mjs config exporting defineConfig', async () => {
    const m = write(
      'collector.mjs',
      `export default { workers: [{ source: 'crawl', seeds: ['${SEED}'], processes: 3 }] };\n`,
    );
    expect((await loadConfig(m)).config.workers[0].processes).toBe(3);
  });

  it('reads relative paths (data, a source module) against the config file, not the working directory', async () => {
    const f = write(
      'collector.yaml',
      `data: ./data\nworkers:\n  - source: crawl\n    seeds: [${SEED}]\n  - source: ./sources/mine.mjs\n    seeds: [${SEED}]\n  - source: /opt/src.mjs\n    seeds: [${SEED}]\n`,
    );
    const dir = path.dirname(f);
    const { config } = await loadConfig(path.relative(process.cwd(), f));
    expect(config.data).toBe(path.join(dir, 'data'));
    expect(config.workers.map((w) => w.source)).toEqual([
      'crawl',
      path.join(dir, 'sources/mine.mjs'),
      '/opt/src.mjs',
    ]);
    const abs = write('abs.yaml', `data: /srv/data\nworkers:\n  - source: crawl\n    seeds: [${SEED}]\n`);
    expect((await loadConfig(abs)).config.data).toBe('/srv/data');
  });

  it('builds worker specs: ids, ownership, split politeness for one host, unknown source refused', async () => {
    const raw = [{ source: 'crawl', seeds: [SEED], processes: 2, delay: '1s', hostConcurrency: 4 }];
    const c = validateConfig({ workers: raw }, 'c.yaml');
    const specs = await runWorkerSpecs(c, process.cwd());
    expect(specs.map((s) => s.id)).toEqual(['crawl-0', 'crawl-1']);
    expect(specs[0]).toMatchObject({ partition: 'url', count: 2, group: 'crawl' });
    expect(specs[0].options).toMatchObject({ delay: 2000, hostConcurrency: 2, resume: true });
    const bad = [{ source: 'rss-magic', seeds: [SEED] }];
    await expect(runWorkerSpecs(validateConfig({ workers: bad }, 'c.yaml'), process.cwd())).rejects.toThrow(
      /workers\[0\]\.source: unknown source "rss-magic": expected a built-in \(crawl, sitemap, feed, urls, github-trending, github-search\) or a module path/,
    );
  });
});

describe('examples/collector.yaml', () => {
  it('is a valid config whose plan fits a 2 GB box', async () => {
    const { config } = await loadConfig(path.resolve(import.meta.dirname, '../../examples/collector.yaml'));
    const specs = await runWorkerSpecs(config, process.cwd());
    expect(specs.map((s) => s.id)).toEqual(['docs-0', 'docs-1', 'blog-0']);
    expect(specs[0].options).toMatchObject({ delay: 1000, hostConcurrency: 1 });
    expect(specs[2].intervalMs).toBe(30 * 60_000);
    const { checkPlan } = await import('../../src/supervision/memory-guard.js');
    expect(() =>
      checkPlan(
        config.workers.map((w) => ({ processes: w.processes, concurrency: w.concurrency })),
        2 * 1024 ** 3,
        config.memory.limitFraction,
      ),
    ).not.toThrow();
  });
});

describe('examples/docs-and-blogs.yaml', () => {
  it('is a valid config: sitemap, feed, crawl with articles, and a URL list beside it', async () => {
    const file = path.resolve(import.meta.dirname, '../../examples/docs-and-blogs.yaml');
    const { config } = await loadConfig(file);
    const specs = await runWorkerSpecs(config, path.dirname(file));
    expect(specs.map((s) => s.id)).toEqual(['docs-0', 'feeds-0', 'blog-0', 'pages-0']);
    expect(specs.map((s) => s.source)).toEqual(
      ['sitemap', 'feed', 'crawl', 'urls'].map((name) => ({ kind: 'builtin', name })),
    );
    expect(specs[2].sourceOptions).toMatchObject({ sitemaps: true, feeds: true, follow: 'articles' });
    expect(specs[2].options).toMatchObject({
      revisit: 86_400_000,
      revisitPatterns: { '/tutorial/': 7 * 86_400_000 },
    });
    // the list's path is resolved against the config file's directory
    expect(specs[3].sourceOptions.urls).toBe(path.resolve(path.dirname(file), 'urls.txt'));
  });
});
