import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppendFile } from '../../src/frontier/append-file.js';
import { tempDir } from '../fixtures/cli.js';

describe('AppendFile', () => {
  it('appends whole chunks', async () => {
    const file = path.join(tempDir(), 'log');
    fs.writeFileSync(file, 'a\n');
    const f = await AppendFile.open(file);
    await f.append('b\nc\n');
    await f.append('é\n');
    await f.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('a\nb\nc\né\n');
  });

  it('a write cut short by a full disk is truncated back: no torn line is left to glue to the next one', async () => {
    const file = path.join(tempDir(), 'log');
    fs.writeFileSync(file, 'a\n');
    const f = await AppendFile.open(file);
    // The disk takes 3 bytes, then is full (what write(2) does on ENOSPC).
    const fh = (f as unknown as { fh: fs.promises.FileHandle }).fh;
    const write = fh.write.bind(fh) as (b: Buffer, o: number, l: number) => Promise<{ bytesWritten: number }>;
    let room = 3;
    (fh as unknown as { write: typeof write }).write = async (b, o, l) => {
      if (room === 0)
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      const n = Math.min(room, l);
      room -= n;
      return write(b, o, n);
    };
    await expect(f.append('bbbb\ncccc\n')).rejects.toMatchObject({ code: 'ENOSPC', path: file });
    expect(fs.readFileSync(file, 'utf8')).toBe('a\n');
    room = 100;
    await f.append('dd\n');
    await f.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('a\ndd\n');
  });

  it('reports ENOSPC from a device that is always full', async () => {
    // the device itself: a link to it would be refused (state files are never opened through a link)
    const f = await AppendFile.open('/dev/full');
    await expect(f.append('x\n')).rejects.toMatchObject({ code: 'ENOSPC' });
    await f.close();
  });
});
