/** FileSink behaviour on a real temp dir: layout, conflicts, bounded FIFO concurrency, close. */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSink, resolveInside } from '../../src/sinks/file-sink.js';

let out: string;

beforeEach(async () => {
  out = await mkdtemp(path.join(os.tmpdir(), 'collector-sink-'));
});

afterEach(async () => {
  await rm(out, { recursive: true, force: true });
});

async function read(relative: string): Promise<string> {
  return (await readFile(path.join(out, relative))).toString();
}

function conflictPath(host: string, url: string): string {
  return `files/${host}/_conflicts/${createHash('sha1').update(url).digest('hex').slice(0, 16)}`;
}

/** Records how many `store` calls run at once and in which order they start. */
class InstrumentedSink extends FileSink {
  inFlight = 0;
  maxInFlight = 0;
  started: string[] = [];

  protected override async store(url: string, body: Buffer): Promise<string> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.started.push(url);
    try {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return await super.store(url, body);
    } finally {
      this.inFlight--;
    }
  }
}

describe('FileSink', () => {
  it('stores bodies under files/<host>/<path> and returns the path relative to outDir', async () => {
    const sink = new FileSink({ outDir: out });
    expect(await sink.write('https://example.org/docs/', Buffer.from('docs index'))).toBe(
      'files/example.org/docs/index.html',
    );
    expect(await sink.write('https://example.org/docs/a.html', Buffer.from([0, 1, 2, 255]))).toBe(
      'files/example.org/docs/a.html',
    );
    await sink.close();
    expect(await read('files/example.org/docs/index.html')).toBe('docs index');
    expect([...(await readFile(path.join(out, 'files/example.org/docs/a.html')))]).toEqual([0, 1, 2, 255]);
  });

  it('uses <host>_<port> dirs and shares them between http and https', async () => {
    const sink = new FileSink({ outDir: out });
    expect(await sink.write('http://127.0.0.1:8081/x', Buffer.from('port'))).toBe('files/127.0.0.1_8081/x');
    await sink.write('http://example.org/p', Buffer.from('plain'));
    await sink.write('https://example.org/q', Buffer.from('tls'));
    await sink.close();
    expect((await readdir(path.join(out, 'files'))).sort()).toEqual(['127.0.0.1_8081', 'example.org']);
    expect(await read('files/example.org/q')).toBe('tls');
  });

  it('keeps query variants apart', async () => {
    const sink = new FileSink({ outDir: out });
    const [one, two, none] = await Promise.all([
      sink.write('https://h.test/a?x=1', Buffer.from('one')),
      sink.write('https://h.test/a?x=2', Buffer.from('two')),
      sink.write('https://h.test/a', Buffer.from('none')),
    ]);
    await sink.close();
    expect(new Set([one, two, none]).size).toBe(3);
    expect(await read(one)).toBe('one');
    expect(await read(two)).toBe('two');
    expect(await read(none)).toBe('none');
  });

  it('never replaces a stored body with other bytes: the same URL with new bytes goes to its conflict name', async () => {
    const sink = new FileSink({ outDir: out });
    await sink.write('https://h.test/a', Buffer.from('old'));
    expect(await sink.write('https://h.test/a', Buffer.from('old'))).toBe('files/h.test/a');
    expect(await sink.write('https://h.test/a', Buffer.from('new'))).toBe(
      conflictPath('h.test', 'https://h.test/a'),
    );
    await sink.close();
    expect(await read('files/h.test/a')).toBe('old');
    expect(await read(conflictPath('h.test', 'https://h.test/a'))).toBe('new');
  });

  it('stores a file-then-directory clash (/a then /a/b) under _conflicts', async () => {
    const sink = new FileSink({ outDir: out });
    expect(await sink.write('https://h.test/a', Buffer.from('A'))).toBe('files/h.test/a');
    const second = await sink.write('https://h.test/a/b', Buffer.from('B'));
    await sink.write('https://h.test/a/b/c', Buffer.from('C'));
    await sink.close();
    expect(second).toBe(conflictPath('h.test', 'https://h.test/a/b'));
    expect(await read('files/h.test/a')).toBe('A');
    expect(await read(second)).toBe('B');
    expect(await read(conflictPath('h.test', 'https://h.test/a/b/c'))).toBe('C');
  });

  it('stores a directory-then-file clash (/a/b then /a) under _conflicts', async () => {
    const sink = new FileSink({ outDir: out });
    expect(await sink.write('https://h.test/a/b', Buffer.from('B'))).toBe('files/h.test/a/b');
    const second = await sink.write('https://h.test/a', Buffer.from('A'));
    await sink.close();
    expect(second).toBe(conflictPath('h.test', 'https://h.test/a'));
    expect(await read('files/h.test/a/b')).toBe('B');
    expect(await read(second)).toBe('A');
    expect((await stat(path.join(out, 'files/h.test/a'))).isDirectory()).toBe(true);
  });

  it('resolves clashes between concurrent writes without losing a body', async () => {
    const sink = new FileSink({ outDir: out });
    const urls = ['https://h.test/a', 'https://h.test/a/b', 'https://h.test/a/b/c', 'https://h.test/a/'];
    const files = await Promise.all(urls.map((url) => sink.write(url, Buffer.from(url))));
    await sink.close();
    for (let i = 0; i < urls.length; i++) expect(await read(files[i])).toBe(urls[i]);
    expect(files.filter((f) => f.includes('/_conflicts/')).length).toBeGreaterThanOrEqual(1);
  });

  it('never runs more than maxConcurrentWrites at once, and starts writes in FIFO order', async () => {
    const sink = new InstrumentedSink({ outDir: out, maxConcurrentWrites: 3 });
    const urls = Array.from({ length: 40 }, (_, i) => `https://h.test/p/${i}`);
    const pending = urls.map((url) => sink.write(url, Buffer.from(url)));
    // write() hands off without waiting: all 40 are accepted before any finishes.
    expect(sink.pendingWrites).toBe(40);
    expect(sink.pendingBytes).toBe(urls.slice(3).reduce((n, u) => n + u.length, 0));
    await Promise.all(pending);
    expect(sink.maxInFlight).toBe(3);
    expect(sink.started).toEqual(urls);
    expect(sink.pendingWrites).toBe(0);
    expect(sink.pendingBytes).toBe(0);
    await sink.close();
  });

  it('close waits for queued writes and then refuses new ones', async () => {
    const sink = new InstrumentedSink({ outDir: out, maxConcurrentWrites: 2 });
    const writes = Array.from({ length: 10 }, (_, i) =>
      sink.write(`https://h.test/c/${i}`, Buffer.from(`${i}`)),
    );
    await sink.close();
    expect(sink.pendingWrites).toBe(0);
    expect((await readdir(path.join(out, 'files/h.test/c'))).length).toBe(10);
    await Promise.all(writes);
    await expect(sink.write('https://h.test/late', Buffer.from('x'))).rejects.toThrow(/closed/);
    await sink.close(); // idempotent
  });

  it('rejects non-http URLs without writing, and keeps going', async () => {
    const sink = new FileSink({ outDir: out, maxConcurrentWrites: 1 });
    await expect(sink.write('file:///etc/passwd', Buffer.from('x'))).rejects.toThrow(/not an http/);
    await expect(sink.write('::bad::', Buffer.from('x'))).rejects.toThrow();
    expect(await sink.write('https://h.test/ok', Buffer.from('ok'))).toBe('files/h.test/ok');
    await sink.close();
  });

  it('leaves no .part files behind', async () => {
    const sink = new FileSink({ outDir: out });
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => sink.write(`https://h.test/d/${i % 10}`, Buffer.alloc(10_000, i))),
    );
    await sink.close();
    const names = await readdir(path.join(out, 'files/h.test/d'));
    expect(names.sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    // Temp files are made in <out>/state/tmp, and none is left there either.
    expect(await readdir(path.join(out, 'state/tmp'))).toEqual([]);
  });

  it('validates maxConcurrentWrites', () => {
    expect(() => new FileSink({ outDir: out, maxConcurrentWrites: 0 })).toThrow(RangeError);
    expect(() => new FileSink({ outDir: out, maxConcurrentWrites: 1.5 })).toThrow(RangeError);
  });
});

describe('resolveInside', () => {
  it('accepts paths inside the root and refuses escapes', () => {
    const root = path.resolve(out, 'files');
    expect(resolveInside(root, 'h/a')).toBe(path.join(root, 'h', 'a'));
    expect(() => resolveInside(root, '../x')).toThrow(/outside/);
    expect(() => resolveInside(root, 'h/../../x')).toThrow(/outside/);
    expect(() => resolveInside(root, '/etc/passwd')).toThrow(/outside/);
    expect(() => resolveInside(root, '.')).toThrow(/outside/);
    expect(() => resolveInside(root, '../files-evil/x')).toThrow(/outside/);
  });
});

describe('FileSink: no silent overwrite', () => {
  it('stores /a/ and /a/index.html with different bodies apart, and shares identical ones', async () => {
    const out = await mkdtemp(path.join(os.tmpdir(), 'collector-sink-x-'));
    const sink = new FileSink({ outDir: out });
    const dir = await sink.write('http://h/a/', Buffer.from('dir a'));
    const idx = await sink.write('http://h/a/index.html', Buffer.from('index a'));
    expect(dir).toBe('files/h/a/index.html');
    expect(idx).not.toBe(dir);
    expect(idx).toMatch(/^files\/h\/_conflicts\/[0-9a-f]{16}$/);
    expect(await readFile(path.join(out, dir), 'utf8')).toBe('dir a');
    expect(await readFile(path.join(out, idx), 'utf8')).toBe('index a');
    // same bytes under the colliding name: one file, both point to it
    const same = await sink.write('http://h/b/', Buffer.from('same'));
    const same2 = await sink.write('http://h/b/index.html', Buffer.from('same'));
    expect(same2).toBe(same);
    // the same URL fetched again with other bytes (after a resume) keeps its own conflict name
    const again = await sink.write('http://h/a/index.html', Buffer.from('index a, v2'));
    expect(again).toBe(idx);
    expect(await readFile(path.join(out, idx), 'utf8')).toBe('index a, v2');
    await sink.close();
    expect(await readdir(path.join(out, 'files', 'h', 'a'))).toEqual(['index.html']);
    await rm(out, { recursive: true, force: true });
  });
});

describe('FileSink.storeSync (the body-writer thread)', () => {
  /** Every file under `dir`, relative path → contents. */
  async function tree(dir: string): Promise<Record<string, string>> {
    const files: Record<string, string> = {};
    for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const full = path.join(e.parentPath, e.name);
      files[path.relative(dir, full)] = (await readFile(full)).toString();
    }
    return files;
  }

  it('gives the same paths, files and conflicts as write(), and leaves no .part files', async () => {
    const steps: Array<[string, string]> = [
      ['https://h.test/a', 'A'],
      ['https://h.test/a/b', 'B'], // file-then-directory clash
      ['https://h.test/x/y', 'Y'],
      ['https://h.test/x', 'X'], // directory-then-file clash
      ['http://h.test/a/', 'dir a'],
      ['http://h.test/a/index.html', 'index a'], // same name, other bytes
      ['http://h.test/s/', 'same'],
      ['http://h.test/s/index.html', 'same'], // same name, same bytes: shared
      ['http://h.test/a/index.html', 'index a, v2'], // fetched again after a resume
    ];
    const other = await mkdtemp(path.join(os.tmpdir(), 'collector-sink-sync-'));
    const asyncSink = new FileSink({ outDir: out });
    const syncSink = new FileSink({ outDir: other });
    const asyncPaths: string[] = [];
    const syncPaths: string[] = [];
    for (const [url, body] of steps) {
      asyncPaths.push(await asyncSink.write(url, Buffer.from(body)));
      syncPaths.push(syncSink.storeSync(url, Buffer.from(body)));
    }
    await asyncSink.close();
    expect(syncPaths).toEqual(asyncPaths);
    expect(syncPaths[1]).toBe(conflictPath('h.test', 'https://h.test/a/b'));
    expect(syncPaths[7]).toBe(syncPaths[6]);
    const files = await tree(other);
    expect(files).toEqual(await tree(out));
    expect(Object.keys(files).filter((f) => f.includes('.part'))).toEqual([]);
    expect(() => syncSink.storeSync('ftp://h.test/a', Buffer.from('x'))).toThrow();
    await rm(other, { recursive: true, force: true });
  });
});
