/**
 * `npm run demo` from the clone (README, set-up): builds the documentation corpus from
 * node_modules, serves it on loopback with gzip, crawls every page and says where the output is;
 * it needs nothing outside the repository.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript modules of the demo (no declarations)
import { buildCorpus } from '../../demo/corpus.mjs';
// @ts-expect-error: plain JavaScript modules of the demo (no declarations)
import { serveDirectory } from '../../demo/serve.mjs';
import { readItems, tempDir } from '../fixtures/cli.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('npm run demo', () => {
  it('crawls every page of the corpus it serves, with no error, and prints where the output is', async () => {
    const out = path.join(tempDir('collector-demo-test-'), 'data');
    const { stderr } = await promisify(execFile)('npm', ['run', 'demo', '--', '--out', out], {
      cwd: root,
      timeout: 240_000,
    });
    const pages = Number(/serving (\d+) documentation pages/.exec(stderr)?.[1]);
    expect(pages).toBeGreaterThan(50);
    expect(stderr).toContain(`demo: output in ${out}`);
    const items = readItems(out);
    expect(items.length).toBe(pages);
    expect(items.filter((i) => i.error)).toEqual([]);
    expect(items.every((i) => i.status === 200 && /^text\/html/.test(i.contentType))).toBe(true);
    expect(new Set(items.map((i) => i.url)).size).toBe(pages);
    // --markdown all: each page's main content beside it (a page whose <main> is empty has none),
    // its metadata in the item, tables as GFM tables, code fenced with its language
    const markdown = [];
    for (const i of items) {
      const html = fs.readFileSync(path.join(out, i.file as string), 'utf8');
      const data = i.data as { markdown?: string; title?: string; language?: string; words?: number };
      expect(data.title, i.url).toBe(i.title);
      if (/<main>\s*<\/main>/.test(html)) {
        expect(data.markdown, i.url).toBeUndefined();
        continue;
      }
      expect(data.markdown, i.url).toMatch(/\.md$/);
      expect(data.language, i.url).toBe('en');
      expect(data.words, i.url).toBeGreaterThan(0);
      markdown.push({
        url: i.url as string,
        html,
        md: fs.readFileSync(path.join(out, data.markdown!), 'utf8'),
      });
    }
    expect(markdown.length).toBeGreaterThan(pages * 0.9);
    const withTable = markdown.filter((m) => /<table>\s*<thead>/.test(m.html));
    expect(withTable.length).toBeGreaterThan(10);
    for (const m of withTable) expect(m.md, m.url).toMatch(/^\| .* \|\n\|(?: :?-{3}:? \|)+$/m);
    const withLanguage = markdown.filter((m) => /<pre><code class="language-(?:js|ts|sh)">/.test(m.html));
    expect(withLanguage.length).toBeGreaterThan(10);
    for (const m of withLanguage) expect(m.md, m.url).toMatch(/^`{3,}(?:js|ts|sh)$/m);
    expect(markdown.every((m) => m.md.startsWith('# '))).toBe(true);
  });
});

describe('demo corpus and server', () => {
  const dir = tempDir('collector-demo-corpus-');
  let close: (() => void) | null = null;
  afterAll(() => close?.());

  it('links every page from the index, keeps only links that resolve, and serves gzip', async () => {
    const pages: number = buildCorpus(path.join(root, 'node_modules'), dir);
    const index = fs.readFileSync(path.join(dir, 'docs', 'index.html'), 'utf8');
    expect(index).toContain('<a href="undici/">undici</a>');
    const undici = fs.readFileSync(path.join(dir, 'docs', 'undici', 'index.html'), 'utf8');
    // undici's docs/ are listed on its page and rendered as pages of their own.
    const docLinks = [...undici.matchAll(/href="(docs\/[^"]+\.html)"/g)].map((m) => m[1]);
    expect(docLinks.length).toBeGreaterThan(10);
    for (const l of docLinks) expect(fs.existsSync(path.join(dir, 'docs', 'undici', l))).toBe(true);
    expect(pages).toBeGreaterThan(docLinks.length);
    const { server, url } = await serveDirectory(dir);
    close = () => server.close();
    const gz = await fetch(`${url}/docs/undici/`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.text()).toContain('undici');
    expect((await fetch(`${url}/docs/undici`, { redirect: 'manual' })).headers.get('location')).toBe(
      '/docs/undici/',
    );
    expect((await fetch(`${url}/docs/../../etc/passwd`)).status).toBe(404);
  });
});
