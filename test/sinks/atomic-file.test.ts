/** writeFileAtomic: replaces whole files, cleans temp files on failure, readers never see a torn file. */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  overwriteInPlace,
  writeFileAtomic,
  writeFileAtomicSync,
  writeLinesAtomic,
} from '../../src/sinks/atomic-file.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'collector-atomic-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('creates and replaces a file, leaving no .part files', async () => {
    const target = path.join(dir, 'status.json');
    await writeFileAtomic(target, '{"a":1}');
    await writeFileAtomic(target, Buffer.from('{"a":2}'), { fsync: true });
    expect(await readFile(target, 'utf8')).toBe('{"a":2}');
    expect(await readdir(dir)).toEqual(['status.json']);
  });

  it('makes its temp file in tempDir when given, and leaves nothing there (sync and async)', async () => {
    const tmp = path.join(dir, 'tmp');
    await mkdir(tmp);
    await writeFileAtomic(path.join(dir, 'a'), 'A', { tempDir: tmp, exclusive: true });
    writeFileAtomicSync(path.join(dir, 'b'), 'B', { tempDir: tmp, exclusive: true });
    expect(await readFile(path.join(dir, 'a'), 'utf8')).toBe('A');
    expect(await readFile(path.join(dir, 'b'), 'utf8')).toBe('B');
    expect(await readdir(tmp)).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(['a', 'b', 'tmp']);
  });

  it('throws ENOENT when the directory is missing', async () => {
    await expect(writeFileAtomic(path.join(dir, 'missing', 'x'), 'x')).rejects.toMatchObject({
      code: 'ENOENT',
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it('throws EISDIR over a directory and removes its temp file', async () => {
    await mkdir(path.join(dir, 'd'));
    await expect(writeFileAtomic(path.join(dir, 'd'), 'x')).rejects.toMatchObject({ code: 'EISDIR' });
    expect(await readdir(dir)).toEqual(['d']);
  });

  it('throws ENOTDIR when a path component is a file', async () => {
    await writeFile(path.join(dir, 'f'), 'file');
    await expect(writeFileAtomic(path.join(dir, 'f', 'x'), 'x')).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(await readdir(dir)).toEqual(['f']);
  });

  it('lets a concurrent reader see only whole old or new contents', async () => {
    const target = path.join(dir, 'snapshot.bin');
    const a = Buffer.alloc(2 * 1024 * 1024, 0x61);
    const b = Buffer.alloc(3 * 1024 * 1024, 0x62);
    await writeFileAtomic(target, a);
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 20; i++) await writeFileAtomic(target, i % 2 === 0 ? b : a);
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const seen = await readFile(target);
      expect(seen.equals(a) || seen.equals(b)).toBe(true);
      reads++;
    }
    await writer;
    expect(reads).toBeGreaterThan(0);
    expect(await readdir(dir)).toEqual(['snapshot.bin']);
  });
});

describe('overwriteInPlace (the last resort on a full disk)', () => {
  it('writes over the old bytes and cuts the file to the new length; no temp file', async () => {
    const file = path.join(dir, 'status.json');
    await writeFile(file, `${JSON.stringify({ state: 'running', n: 12345 }, null, 2)}\n`);
    await overwriteInPlace(file, '{"state":"stopped"}\n');
    expect(await readFile(file, 'utf8')).toBe('{"state":"stopped"}\n');
    expect(await readdir(dir)).toEqual(['status.json']);
  });

  it('needs an existing file: ENOENT otherwise', async () => {
    await expect(overwriteInPlace(path.join(dir, 'none.json'), '{}')).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});

describe('writeLinesAtomic', () => {
  it('writes every line as it is yielded, in chunks, then replaces the file; returns the count', async () => {
    const file = path.join(dir, 'log');
    await writeFile(file, 'old\n');
    function* lines() {
      for (let i = 0; i < 40_000; i++) yield `line ${i} ${'x'.repeat(20)}`; // ~1.2 MB: several chunks
    }
    expect(await writeLinesAtomic(file, lines())).toBe(40_000);
    const text = await readFile(file, 'utf8');
    const read = text.split('\n');
    expect(read).toHaveLength(40_001);
    expect(read[0]).toBe(`line 0 ${'x'.repeat(20)}`);
    expect(read[39_999]).toBe(`line 39999 ${'x'.repeat(20)}`);
    expect(read[40_000]).toBe('');
    expect(await readdir(dir)).toEqual(['log']);
  });

  it('a failure midway leaves the old file whole and no temp file', async () => {
    const file = path.join(dir, 'log');
    await writeFile(file, 'old\n');
    function* failing() {
      for (let i = 0; i < 20_000; i++) yield `line ${i} ${'x'.repeat(20)}`;
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    }
    await expect(writeLinesAtomic(file, failing())).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await readFile(file, 'utf8')).toBe('old\n');
    expect(await readdir(dir)).toEqual(['log']);
  });
});
