/**
 * FileSink with versions on: the invariant of issue 18 §1 — an item's `file` always holds exactly
 * the bytes of its `sha256` — over many rounds of changing pages, and the current version at the
 * page's own path.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filePathFor, versionExtension, versionPathFor } from '../../src/sinks/file-path.js';
import { FileSink } from '../../src/sinks/file-sink.js';
import { tempDir } from '../fixtures/cli.js';
import { mulberry32 } from '../fixtures/prng.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Stored {
  url: string;
  file: string;
  sha256: string;
}

/** Rounds of fetches of a few pages, some changing each round; returns the "items" written. */
async function rounds(
  sink: FileSink,
  opts: { rounds: number; sync: boolean; seed: number },
): Promise<{ items: Stored[]; latest: Map<string, Buffer> }> {
  const rand = mulberry32(opts.seed);
  const urls = [
    'https://h.test/',
    'https://h.test/index.html', // shares its path with / (index.html)
    'https://h.test/a',
    'https://h.test/a/b', // a file-then-directory clash with /a
    'https://h.test/feed.xml?page=2',
  ];
  const bodies = new Map(urls.map((u) => [u, Buffer.from(`${u} v0`)]));
  const items: Stored[] = [];
  for (let round = 1; round <= opts.rounds; round++) {
    for (const url of urls) {
      // a page changes in about half of the rounds; sometimes it goes back to an earlier body
      if (rand() < 0.5) {
        const v = Math.floor(rand() * (round + 1));
        bodies.set(url, Buffer.from(`${url} v${v} ${'x'.repeat(v)}`));
      }
      const body = bodies.get(url)!;
      const file = opts.sync ? sink.storeSync(url, body) : await sink.write(url, body);
      items.push({ url, file, sha256: sha(body) });
    }
  }
  return { items, latest: bodies };
}

describe('FileSink versions', () => {
  for (const sync of [false, true]) {
    it(`keep: every item's file holds the bytes of its sha256 after 30 rounds (${sync ? 'storeSync' : 'write'})`, async () => {
      const out = tempDir('sink-versions-');
      const sink = new FileSink({ outDir: out, versions: { keep: true } });
      const { items, latest } = await rounds(sink, { rounds: 30, sync, seed: 7 });
      await sink.close();
      const distinct = new Set(items.map((i) => `${i.url} ${i.sha256}`));
      expect(distinct.size).toBeGreaterThan(30); // the pages did change
      for (const item of items) {
        expect(item.file).toBe(`files/${versionPathFor(item.url, item.sha256)}${versionExtension(item.url)}`);
        expect(sha(readFileSync(path.join(out, item.file)))).toBe(item.sha256);
      }
      // the page's own path shows its current version (or its _conflicts name when the path is taken)
      expect(readFileSync(path.join(out, 'files', filePathFor('https://h.test/a'))).toString()).toBe(
        latest.get('https://h.test/a')!.toString(),
      );
      expect(
        readFileSync(path.join(out, 'files', filePathFor('https://h.test/feed.xml?page=2'))).toString(),
      ).toBe(latest.get('https://h.test/feed.xml?page=2')!.toString());
      // one file per distinct version, nothing else (no temp files) in _versions
      const versionFiles = readdirSync(path.join(out, 'files/h.test/_versions'), {
        recursive: true,
        withFileTypes: true,
      }).filter((d) => d.isFile());
      expect(versionFiles.length).toBe(distinct.size);
    });
  }

  it('keep: false: older versions are removed, never replaced; the newest item of each page is intact', async () => {
    const out = tempDir('sink-versions-');
    const sink = new FileSink({ outDir: out, versions: { keep: false } });
    const { items, latest } = await rounds(sink, { rounds: 20, sync: false, seed: 11 });
    await sink.close();
    for (const item of items) {
      const abs = path.join(out, item.file);
      if (existsSync(abs)) expect(sha(readFileSync(abs))).toBe(item.sha256);
    }
    for (const [url, body] of latest) {
      const last = items.filter((i) => i.url === url).at(-1)!;
      expect(readFileSync(path.join(out, last.file)).equals(body)).toBe(true);
      expect(readdirSync(path.dirname(path.join(out, last.file)))).toEqual([path.basename(last.file)]);
    }
  });

  it('the same bytes again are the same version file, and the current path follows the page', async () => {
    const out = tempDir('sink-versions-');
    const sink = new FileSink({ outDir: out, versions: { keep: true } });
    const url = 'https://h.test/docs/';
    const one = await sink.write(url, Buffer.from('one'));
    const two = await sink.write(url, Buffer.from('two'));
    const oneAgain = await sink.write(url, Buffer.from('one'));
    await sink.close();
    expect(one).toMatch(/^files\/h\.test\/_versions\/[0-9a-f]{16}\/[0-9a-f]{16}\.html$/);
    expect(two).not.toBe(one);
    expect(oneAgain).toBe(one);
    expect(readFileSync(path.join(out, 'files/h.test/docs/index.html')).toString()).toBe('one');
    expect(readFileSync(path.join(out, two)).toString()).toBe('two');
  });

  it('a body stored before versions were on (an earlier run) is never replaced at its path', async () => {
    const out = tempDir('sink-versions-');
    const url = 'https://h.test/news/';
    const before = await new FileSink({ outDir: out }).write(url, Buffer.from('one-shot'));
    expect(before).toBe('files/h.test/news/index.html');
    const sink = new FileSink({ outDir: out, versions: { keep: true } });
    const v2 = await sink.write(url, Buffer.from('round 2'));
    const v3 = sink.storeSync(url, Buffer.from('round 3'));
    await sink.close();
    // the earlier item's file still holds its bytes; the new items name their versions
    expect(readFileSync(path.join(out, before)).toString()).toBe('one-shot');
    expect(readFileSync(path.join(out, v2)).toString()).toBe('round 2');
    expect(readFileSync(path.join(out, v3)).toString()).toBe('round 3');
  });

  it('a URL whose path starts with _versions cannot reach the versions directory', () => {
    expect(filePathFor('https://h.test/_versions/0123456789abcdef/0123456789abcdef')).toBe(
      'h.test/%5Fversions/0123456789abcdef/0123456789abcdef',
    );
  });

  it("a source's extension stays on the version's name and on the page's current link", async () => {
    const out = tempDir('sink-versions-');
    const sink = new FileSink({ outDir: out, versions: { keep: true } });
    const url = 'https://raw.test/o/r/HEAD/README';
    const body = Buffer.from('# readme\r\n');
    const file = sink.storeSync(url, body, 'md');
    await sink.close();
    expect(file).toBe(`files/${versionPathFor(url, sha(body))}.md`);
    expect(readFileSync(path.join(out, file)).equals(body)).toBe(true);
    expect(readFileSync(path.join(out, 'files', filePathFor(url, 'md'))).equals(body)).toBe(true);
  });

  it("a version keeps the page's own extension when the source chose none", () => {
    expect(versionExtension('https://h.test/docs/')).toBe('.html');
    expect(versionExtension('https://h.test/a/report.pdf')).toBe('.pdf');
    expect(versionExtension('https://h.test/a')).toBe('');
    expect(versionExtension('https://h.test/a/.htaccess')).toBe('');
    expect(versionExtension('https://h.test/a.tar.verylongextension')).toBe('');
    expect(versionExtension('https://h.test/a/readme', 'md')).toBe('.md');
  });
});
