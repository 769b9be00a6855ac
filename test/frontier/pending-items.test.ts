/**
 * The pending items file of a shared crawl and the journal's acknowledged path: lines recorded
 * before their acknowledgement, written once it is answered (dropped when not held), the file
 * emptied once all are settled; replay validates each line (a torn last line cut and said, a
 * damaged one named by line) and writes at resume exactly the acknowledged lines not yet written.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settleAcknowledged } from '../../src/engine/resume.js';
import { type ItemsAck, Journal, type JournalOptions } from '../../src/frontier/journal.js';
import {
  PENDING_ITEMS,
  type PendingLine,
  parsePendingLine,
  readPendingItems,
  settlePendingItems,
} from '../../src/frontier/pending-items.js';

import { captureLog } from '../fixtures/capture-log.js';

let dir: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'collector-pending-'));
});

afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(dir, { recursive: true, force: true });
});

const stateDir = () => path.join(dir, 'state', 'w0');
const itemsPath = () => path.join(dir, 'items', 'w0.jsonl');
const pendingPath = () => path.join(stateDir(), PENDING_ITEMS);
const item = (url: string) => JSON.stringify({ url, status: 200 });

async function read(file: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw e;
  }
}

/**
 * The acknowledgements of a store kept in this process: `held` says which URLs this machine
 * still holds; `answers` lets a test hold an answer back. Records: tag → url → batch.
 */
class MemoryAcks implements ItemsAck {
  readonly tag = 'host-1-abc';
  readonly records = new Map<string, Map<string, number>>();
  readonly urls: string[] = [];
  settledCalls = 0;
  gate: Promise<void> = Promise.resolve();
  fail: Error | null = null;
  constructor(readonly held: (url: string) => boolean = () => true) {}
  /** The URLs of the journal's items, in order (as the engine tells the backend). */
  written(url: string): void {
    this.urls.push(url);
  }
  async acknowledge(count: number, batch: number): Promise<boolean[]> {
    const urls = this.urls.splice(0, count);
    await this.gate;
    if (this.fail !== null) throw this.fail;
    const mine = this.records.get(this.tag) ?? new Map<string, number>();
    this.records.set(this.tag, mine);
    return urls.map((u) => {
      const ok = this.held(u);
      if (ok) mine.set(u, batch);
      return ok;
    });
  }
  settled(): void {
    this.settledCalls++;
  }
  closing(): void {}
  async acknowledged(lines: PendingLine[]): Promise<boolean[]> {
    return lines.map((l) => this.records.get(l.tag)?.get(l.url) === l.batch);
  }
  async forget(tags: string[]): Promise<void> {
    for (const t of tags) this.records.delete(t);
  }
}

function options(ack: ItemsAck, over: Partial<JournalOptions> = {}): JournalOptions {
  return {
    stateDir: stateDir(),
    itemsPath: itemsPath(),
    saveEveryItems: 1000,
    saveIntervalMs: 60_000,
    ack,
    ...over,
  };
}

describe('parsePendingLine', () => {
  it('reads tag, batch, items size and the item; refuses anything else', () => {
    const json = item('http://a.example/');
    expect(parsePendingLine(`m-1\t3\t120\t${json}`)).toEqual({
      tag: 'm-1',
      batch: 3,
      itemsBytes: 120,
      url: 'http://a.example/',
      json,
    });
    for (const bad of [
      json,
      `m-1\t3\t${json}`,
      `\t3\t0\t${json}`,
      `m-1\t0\t0\t${json}`,
      `m-1\tx\t0\t${json}`,
      `m-1\t3\t-1\t${json}`,
      'm-1\t3\t0\t{"url":',
      'm-1\t3\t0\t{"nourl":1}',
      'm-1\t3\t0\t["http://a.example/"]',
      'm-1\t3\t0\tnull',
    ]) {
      expect(parsePendingLine(bad), bad).toBeNull();
    }
  });
});

describe('the journal with an acknowledgement (a shared crawl)', () => {
  it('records the lines, then writes those acknowledged and drops the others; the pending file is emptied', async () => {
    const acks = new MemoryAcks((u) => !u.endsWith('/taken'));
    let release = () => {};
    acks.gate = new Promise<void>((r) => (release = r));
    const j = await Journal.open(options(acks));
    for (const u of ['http://a.example/1', 'http://a.example/taken', 'http://a.example/2']) {
      j.item(item(u));
      acks.written(u);
    }
    const flushed = j.flush();
    await vi.waitFor(async () => expect(await read(pendingPath())).not.toBe(''));
    // Recorded before the answer; nothing in the items file yet.
    const pending = await readPendingItems(pendingPath());
    expect(pending.lines.map((l) => [l.tag, l.batch, l.itemsBytes, l.url])).toEqual([
      [acks.tag, 1, 0, 'http://a.example/1'],
      [acks.tag, 1, 0, 'http://a.example/taken'],
      [acks.tag, 1, 0, 'http://a.example/2'],
    ]);
    expect(await read(itemsPath())).toBe('');
    release();
    await flushed;
    expect(await read(itemsPath())).toBe(`${item('http://a.example/1')}\n${item('http://a.example/2')}\n`);
    expect(j.itemsFlushed).toBe(2);
    expect(j.itemsDropped).toBe(1);
    await j.close();
    expect(await read(pendingPath())).toBe('');
    expect(acks.settledCalls).toBe(1);
  });

  it('pipelines: the next batch is recorded and sent before the answer to the first; lines written in order', async () => {
    const acks = new MemoryAcks();
    let release = () => {};
    acks.gate = new Promise<void>((r) => (release = r));
    const j = await Journal.open(options(acks));
    j.item(item('http://a.example/1'));
    acks.written('http://a.example/1');
    const first = j.flush();
    j.item(item('http://a.example/2'));
    acks.written('http://a.example/2');
    const second = j.flush();
    await vi.waitFor(async () => expect((await readPendingItems(pendingPath())).lines).toHaveLength(2));
    expect((await readPendingItems(pendingPath())).lines.map((l) => l.batch)).toEqual([1, 2]);
    release();
    await Promise.all([first, second]);
    expect(await read(itemsPath())).toBe(`${item('http://a.example/1')}\n${item('http://a.example/2')}\n`);
    await j.close();
  });

  it('an acknowledgement without an answer leaves its lines in the pending file, for resume', async () => {
    const acks = new MemoryAcks();
    acks.fail = new Error('redis refused a write');
    const j = await Journal.open(options(acks));
    j.item(item('http://a.example/1'));
    acks.written('http://a.example/1');
    await j.flush();
    await j.close();
    expect(await read(itemsPath())).toBe('');
    expect((await readPendingItems(pendingPath())).lines.map((l) => l.url)).toEqual(['http://a.example/1']);
    expect(acks.settledCalls).toBe(0);
  });

  it('an items write that fails after the acknowledgement is tried again, and the pending file kept until then', async () => {
    const acks = new MemoryAcks();
    const errors: string[] = [];
    const j = await Journal.open(options(acks, { onError: (e) => errors.push(e.message) }));
    const file = (j as unknown as { itemsFile: { append(s: string): Promise<void> } }).itemsFile;
    const append = file.append.bind(file);
    let full = true;
    file.append = async (s) => {
      if (full) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      return append(s);
    };
    j.item(item('http://a.example/1'));
    acks.written('http://a.example/1');
    await expect(j.flush()).rejects.toThrow('ENOSPC');
    expect(errors).toEqual(['ENOSPC: no space left on device']);
    expect((await readPendingItems(pendingPath())).lines).toHaveLength(1);
    full = false;
    await j.flush();
    expect(await read(itemsPath())).toBe(`${item('http://a.example/1')}\n`);
    await j.close();
    expect(await read(pendingPath())).toBe('');
  });
});

describe('settling the pending file at resume', () => {
  /** A pending file as a killed machine left it: batch 1 written, batch 2 acknowledged, batch 3 not. */
  async function killedMachine(acks: MemoryAcks): Promise<void> {
    const j = await Journal.open(options(acks));
    j.item(item('http://a.example/1'));
    acks.written('http://a.example/1');
    await j.flush();
    await j.close();
    // What the next batches left: lines recorded, acknowledged (2) or not (3), none written.
    const bytes = (await fs.stat(itemsPath())).size;
    acks.records.get(acks.tag)?.set('http://a.example/2', 2);
    const line = (batch: number, url: string) => `${acks.tag}\t${batch}\t${bytes}\t${item(url)}\n`;
    await fs.writeFile(pendingPath(), line(2, 'http://a.example/2') + line(3, 'http://a.example/3'));
  }

  it('writes the acknowledged lines, drops the others, forgets the records and empties the file', async () => {
    const acks = new MemoryAcks();
    await killedMachine(acks);
    const { log, lines } = captureLog();
    await settleAcknowledged({ stateDir: stateDir(), itemsPath: itemsPath(), outDir: dir, log }, acks);
    expect(await read(itemsPath())).toBe(`${item('http://a.example/1')}\n${item('http://a.example/2')}\n`);
    expect(await read(pendingPath())).toBe('');
    expect(acks.records.has(acks.tag)).toBe(false);
    expect(lines.join('')).toContain('"promoted":1,"dropped":1,"alreadyWritten":0');
  });

  it('a line already in the items file (killed before the file was emptied) is not written twice', async () => {
    const acks = new MemoryAcks();
    await killedMachine(acks);
    // Batch 2 reached the items file before the kill.
    await fs.appendFile(itemsPath(), `${item('http://a.example/2')}\n`);
    const s = await settlePendingItems(stateDir(), itemsPath(), acks);
    expect(s).toMatchObject({ promoted: 0, dropped: 1, written: 1 });
    expect(await read(itemsPath())).toBe(`${item('http://a.example/1')}\n${item('http://a.example/2')}\n`);
    // Settled twice (a crash during the first): the same result.
    expect(await settlePendingItems(stateDir(), itemsPath(), acks)).toMatchObject({
      promoted: 0,
      dropped: 0,
    });
  });

  it('an items file shorter than a line records (it lost lines) is searched from its start', async () => {
    const acks = new MemoryAcks();
    await killedMachine(acks);
    const line = `${acks.tag}\t2\t999999\t${item('http://a.example/1')}\n`;
    await fs.writeFile(pendingPath(), line);
    acks.records.get(acks.tag)?.set('http://a.example/1', 2);
    expect(await settlePendingItems(stateDir(), itemsPath(), acks)).toMatchObject({
      written: 1,
      promoted: 0,
    });
    expect(await read(itemsPath())).toBe(`${item('http://a.example/1')}\n`);
  });

  it('ignores a torn last line with a warning, and names a damaged line by file and line', async () => {
    const acks = new MemoryAcks();
    await killedMachine(acks);
    await fs.appendFile(pendingPath(), `${acks.tag}\tnot-a-batch\t0\t${item('http://a.example/4')}\n`);
    await fs.appendFile(pendingPath(), `${acks.tag}\t2\t0\t{"url":"http://a.exa`);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { log, lines } = captureLog();
    await settleAcknowledged({ stateDir: stateDir(), itemsPath: itemsPath(), outDir: dir, log }, acks);
    const said = stderr.mock.calls.map((c) => String(c[0])).join('');
    expect(said).toContain(`collector: ${path.join('state', 'w0', PENDING_ITEMS)}: a torn last line (`);
    expect(said).toContain(`collector: ${path.join('state', 'w0', PENDING_ITEMS)}: damaged line 3 skipped`);
    expect(lines.join('')).toContain('torn last line of the pending items ignored');
    // The valid lines were settled all the same.
    expect(await read(itemsPath())).toBe(`${item('http://a.example/1')}\n${item('http://a.example/2')}\n`);
    expect(await read(pendingPath())).toBe('');
  });

  it('resumed without a shared store: the file is left as it is, said on stderr', async () => {
    const acks = new MemoryAcks();
    await killedMachine(acks);
    const before = await read(pendingPath());
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { log } = captureLog();
    await settleAcknowledged({ stateDir: stateDir(), itemsPath: itemsPath(), outDir: dir, log }, undefined);
    expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toContain(
      `${path.join('state', 'w0', PENDING_ITEMS)} holds items acknowledged in a shared crawl: resume with its --backend`,
    );
    expect(await read(pendingPath())).toBe(before);
  });

  it('keeps the file when the store cannot answer', async () => {
    const acks = new MemoryAcks();
    await killedMachine(acks);
    const before = await read(pendingPath());
    acks.acknowledged = async () => {
      throw new Error('CRAWLLOST the shared crawl state in redis was lost');
    };
    await expect(settlePendingItems(stateDir(), itemsPath(), acks)).rejects.toThrow('CRAWLLOST');
    expect(await read(pendingPath())).toBe(before);
    expect(await read(itemsPath())).toBe(`${item('http://a.example/1')}\n`);
  });
});
