/**
 * Path-safety fuzz: 2,000 hostile URLs (traversal tricks, encodings, NUL and controls,
 * unicode, long segments, queries) must map to safe relative paths and, written through
 * FileSink, must land inside <out>/files and nowhere else.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { filePathFor, MAX_RELATIVE_PATH_BYTES, MAX_SEGMENT_BYTES } from '../../src/sinks/file-path.js';
import { FileSink } from '../../src/sinks/file-sink.js';

/** Small seeded PRNG (mulberry32), so failures reproduce. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOSTS = [
  'example.org',
  'https://example.org',
  '127.0.0.1:8081',
  '[::1]:3000',
  '..',
  'xn--caf-dma.example',
  `${'sub.'.repeat(60)}example.org`,
  'EXAMPLE.org:99',
];

const PIECES = [
  '..',
  '.',
  '',
  '%2e%2e',
  '%2E',
  '..%2F',
  '..%2f..%2fetc%2fpasswd',
  '%5C..%5C',
  '\\..\\',
  'a\\b',
  '%00',
  'nul%00byte',
  '%0a%0d%09',
  '%7f',
  '%c2%85',
  '%ff%fe',
  '%e2%80%ae',
  '%c0%ae%c0%ae',
  '%',
  '%zz',
  '%25',
  '%252e%252e',
  '@q=1',
  '_',
  '_conflicts',
  'index.html',
  'café',
  '日本語',
  '😀',
  'a b',
  'CON',
  '~user',
  "it's(ok)",
  'x'.repeat(250),
  'é'.repeat(150),
  '😀'.repeat(70),
  '%F0%9F%98%80'.repeat(60),
];

const QUERIES = [
  '',
  '',
  '',
  'x=1',
  'x=2',
  'a=1&b=2',
  'q=../../etc',
  'q=%00',
  'p=/a/b',
  `k=${'v'.repeat(300)}`,
  'é=ü',
  '?',
];

/**
 * Returns `count` absolute http(s) URLs that the WHATWG parser accepts, built from
 * traversal tricks, encodings, control characters, unicode, long segments and queries.
 */
function hostileUrls(count: number, seed: number): string[] {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const urls: string[] = [];
  while (urls.length < count) {
    const host = pick(HOSTS);
    const base = host.startsWith('https://') ? host : `http://${host}`;
    const depth = 1 + Math.floor(random() * (random() < 0.05 ? 60 : 6));
    const segments: string[] = [];
    for (let i = 0; i < depth; i++) {
      let segment = pick(PIECES);
      if (random() < 0.3) segment += pick(PIECES);
      segments.push(segment);
    }
    let url = `${base}/${segments.join('/')}`;
    if (random() < 0.2) url += '/';
    const query = pick(QUERIES);
    if (query) url += `?${query}`;
    if (random() < 0.1) url += '#frag';
    try {
      urls.push(new URL(url).href);
    } catch {
      // The parser rejected it; a real crawl never sees it either.
    }
  }
  return urls;
}

function expectSafe(relative: string): void {
  expect(relative.startsWith('/')).toBe(false);
  expect(Buffer.byteLength(relative)).toBeLessThanOrEqual(MAX_RELATIVE_PATH_BYTES);
  expect(relative).not.toMatch(/[\\\u0000-\u001f\u007f]/);
  const segments = relative.split('/');
  expect(segments.length).toBeGreaterThanOrEqual(2);
  for (const segment of segments) {
    expect(segment).not.toBe('');
    expect(segment).not.toBe('.');
    expect(segment).not.toBe('..');
    expect(Buffer.byteLength(segment)).toBeLessThanOrEqual(MAX_SEGMENT_BYTES);
  }
}

/** Every regular file under `dir`, as absolute paths. */
async function walk(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(full)));
    else files.push(full);
  }
  return files;
}

describe('path safety fuzz', () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
    root = undefined;
  });

  it('maps 2,000 hostile URLs to safe, bounded relative paths', () => {
    const urls = hostileUrls(2000, 42);
    expect(urls.length).toBe(2000);
    expect(urls.some((u) => u.includes('%00'))).toBe(true);
    expect(urls.some((u) => u.includes('?'))).toBe(true);
    for (const url of urls) expectSafe(filePathFor(url));
  });

  it('writes every hostile URL inside <out>/files and nowhere else', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'collector-fuzz-'));
    const out = path.join(root, 'out');
    const filesRoot = path.join(out, 'files');
    const sink = new FileSink({ outDir: out, maxConcurrentWrites: 16 });
    const urls = hostileUrls(2000, 1234);
    const written = new Map<string, Set<string>>(); // returned path -> bodies written there
    const results = await Promise.all(urls.map((url) => sink.write(url, Buffer.from(url))));
    await sink.close();
    results.forEach((file, i) => {
      expect(file.startsWith('files/')).toBe(true);
      const bodies = written.get(file) ?? new Set<string>();
      bodies.add(urls[i]);
      written.set(file, bodies);
    });

    // Nothing escaped: the temp root holds only <out>, which holds only files/ and the (empty)
    // directory of temp files.
    expect(await readdir(root)).toEqual(['out']);
    expect((await readdir(out)).sort()).toEqual(['files', 'state']);
    expect(await readdir(path.join(out, 'state'))).toEqual(['tmp']);
    expect(await readdir(path.join(out, 'state', 'tmp'))).toEqual([]);
    const onDisk = await walk(filesRoot);
    for (const file of onDisk) {
      expect(file.startsWith(filesRoot + path.sep)).toBe(true);
      expect(file).not.toMatch(/\.part-[0-9a-f]+$/);
    }
    // Every returned path holds a body written for it (same-path URLs: last rename wins).
    expect(new Set(onDisk.map((f) => path.relative(out, f).split(path.sep).join('/')))).toEqual(
      new Set(written.keys()),
    );
    for (const [file, bodies] of written) {
      const content = (await readFile(path.join(out, file))).toString();
      expect(bodies.has(content)).toBe(true);
    }
  });
});
