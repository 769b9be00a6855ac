import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppendFile } from '../../src/frontier/append-file.js';
import {
  FRONTIER_LOG,
  type ItemsLine,
  Journal,
  type JournalOptions,
  readHandoffs,
  readLines,
  recoverJournal,
  repairTornTail,
} from '../../src/frontier/journal.js';
import { ReplayFilter } from '../../src/frontier/replay-filter.js';
import type { RequestMeta } from '../../src/frontier/request-meta.js';

let dir: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'collector-journal-'));
});

afterEach(async () => {
  vi.useRealTimers();
  await fs.rm(dir, { recursive: true, force: true });
});

function options(over: Partial<JournalOptions> = {}): JournalOptions {
  return {
    stateDir: path.join(dir, 'state', 'w0'),
    itemsPath: path.join(dir, 'items', 'w0.jsonl'),
    saveEveryItems: 1000,
    saveIntervalMs: 60_000,
    ...over,
  };
}

const logOf = (o: JournalOptions) => path.join(o.stateDir, FRONTIER_LOG);

async function read(file: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw e;
  }
}

const item = (url: string, extra: Record<string, unknown> = {}) => JSON.stringify({ url, ...extra });

describe('repairTornTail', () => {
  it('truncates a torn last line to the last complete line', async () => {
    const f = path.join(dir, 'torn.jsonl');
    await fs.writeFile(f, '{"a":1}\n{"b":2}\n{"c":');
    expect(await repairTornTail(f)).toBe(5);
    expect(await read(f)).toBe('{"a":1}\n{"b":2}\n');
  });

  it('leaves a clean file unchanged', async () => {
    const f = path.join(dir, 'clean.jsonl');
    await fs.writeFile(f, 'one\ntwo\n');
    expect(await repairTornTail(f)).toBe(0);
    expect(await read(f)).toBe('one\ntwo\n');
  });

  it('empties a file with no newline at all', async () => {
    const f = path.join(dir, 'nonl.jsonl');
    await fs.writeFile(f, '{"partial":');
    expect(await repairTornTail(f)).toBe(11);
    expect((await fs.stat(f)).size).toBe(0);
  });

  it('returns 0 for a missing or empty file', async () => {
    expect(await repairTornTail(path.join(dir, 'missing'))).toBe(0);
    const f = path.join(dir, 'empty');
    await fs.writeFile(f, '');
    expect(await repairTornTail(f)).toBe(0);
  });

  it('finds the last newline beyond its 64 KiB read window', async () => {
    const f = path.join(dir, 'big.jsonl');
    const head = `${'x'.repeat(100)}\n`;
    await fs.writeFile(f, head + 'y'.repeat(200_000)); // torn tail longer than one read
    expect(await repairTornTail(f)).toBe(200_000);
    expect(await read(f)).toBe(head);
  });

  it('handles a large file whose torn tail is short', async () => {
    const f = path.join(dir, 'big2.jsonl');
    const body = `${'z'.repeat(99)}\n`;
    const content = body.repeat(2000); // 200 KB of complete lines
    await fs.writeFile(f, `${content}torn`);
    expect(await repairTornTail(f)).toBe(4);
    expect(await read(f)).toBe(content);
  });
});

describe('readLines', () => {
  it('yields non-empty lines and nothing for a missing file', async () => {
    const f = path.join(dir, 'lines');
    await fs.writeFile(f, 'a\n\nb\r\nc\n');
    const lines: string[] = [];
    await readLines(f, (l) => lines.push(l));
    expect(lines).toEqual(['a', 'b', 'c']);
    const none: string[] = [];
    await readLines(path.join(dir, 'nope'), (l) => none.push(l));
    expect(none).toEqual([]);
  });
});

describe('Journal', () => {
  it('creates both files and writes nothing before a flush', async () => {
    const o = options();
    const j = await Journal.open(o);
    j.enqueued('http://a.example/', 0);
    j.item(item('http://a.example/'));
    expect(j.pendingItems).toBe(1);
    expect(await read(logOf(o))).toBe('');
    expect(await read(o.itemsPath)).toBe('');
    await j.close();
  });

  it('flush writes the frontier log before the items', async () => {
    const o = options();
    const j = await Journal.open(o);
    // Record the order in which the two files are written.
    const order: string[] = [];
    const files = j as unknown as { frontierFile: AppendFile; itemsFile: AppendFile };
    for (const [name, f] of [
      ['frontier', files.frontierFile],
      ['items', files.itemsFile],
    ] as const) {
      const append = f.append.bind(f);
      f.append = async (s: string) => {
        order.push(`${name}:start`);
        await append(s);
        order.push(`${name}:end`);
      };
    }
    j.item(item('http://a.example/')); // an item buffered first...
    j.enqueued('http://a.example/child', 1); // ...and its link after: the log still goes first
    await j.flush();
    expect(order).toEqual(['frontier:start', 'frontier:end', 'items:start', 'items:end']);
    expect(await read(logOf(o))).toBe('1\thttp://a.example/child\n');
    expect(await read(o.itemsPath)).toBe(`${item('http://a.example/')}\n`);
    expect(j.itemsFlushed).toBe(1);
    expect(j.pendingItems).toBe(0);
    await j.close();
  });

  it('awaits beforeItems before it appends item lines (what must be on disk first), and not for links alone', async () => {
    const seen: string[] = [];
    let release = () => {};
    const o = options({
      beforeItems: async () => {
        seen.push(await read(o.itemsPath));
        await new Promise<void>((r) => (release = r));
      },
    });
    const j = await Journal.open(o);
    j.enqueued('http://a.example/child', 1);
    await j.flush();
    expect(seen).toEqual([]);
    j.item(item('http://a.example/'));
    const flushed = j.flush();
    await new Promise((r) => setTimeout(r, 50));
    // Called, and the item not on disk while it runs.
    expect(seen).toEqual(['']);
    expect(await read(o.itemsPath)).toBe('');
    release();
    await flushed;
    expect(await read(o.itemsPath)).toBe(`${item('http://a.example/')}\n`);
    await j.close();
  });

  it('flushes by itself every saveEveryItems items', async () => {
    const o = options({ saveEveryItems: 3 });
    const j = await Journal.open(o);
    j.enqueued('http://a.example/1', 0);
    j.item(item('http://a.example/1'));
    j.item(item('http://a.example/2'));
    expect(j.pendingItems).toBe(2);
    j.item(item('http://a.example/3')); // third: triggers a flush
    expect(j.pendingItems).toBe(0);
    await j.flush(); // waits for the flush in progress (flushes run one at a time)
    expect((await read(o.itemsPath)).split('\n').filter(Boolean)).toHaveLength(3);
    expect(await read(logOf(o))).toBe('0\thttp://a.example/1\n');
    expect(j.itemsFlushed).toBe(3);
    j.item(item('http://a.example/4'));
    await j.flush();
    expect(j.itemsFlushed).toBe(4);
    await j.close();
  });

  it('flushes on its timer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const o = options({ saveIntervalMs: 5000 });
    const j = await Journal.open(o);
    j.enqueued('http://a.example/', 0);
    j.item(item('http://a.example/'));
    vi.advanceTimersByTime(4999);
    expect(j.pendingItems).toBe(1);
    vi.advanceTimersByTime(1);
    expect(j.pendingItems).toBe(0); // the timer took the buffers
    await j.flush(); // an empty flush queued behind the timer's: resolves once it is written
    expect(await read(o.itemsPath)).toBe(`${item('http://a.example/')}\n`);
    expect(await read(logOf(o))).toBe('0\thttp://a.example/\n');
    await j.close();
  });

  it('a failed write (disk full) leaves the file as it was and the lines buffered, in order, for the next flush', async () => {
    const errors: string[] = [];
    const o = options({ onError: (e) => errors.push((e as NodeJS.ErrnoException).code ?? '') });
    const j = await Journal.open(o);
    const files = j as unknown as { itemsFile: AppendFile };
    const append = files.itemsFile.append.bind(files.itemsFile);
    let fail = true;
    files.itemsFile.append = async (text: string) => {
      if (fail) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return append(text);
    };
    j.enqueued('http://a.example/1', 1);
    j.item(item('http://a.example/0'));
    await expect(j.flush()).rejects.toThrow(/ENOSPC/);
    expect(errors).toEqual(['ENOSPC']);
    expect(j.pendingItems).toBe(1);
    expect(await read(o.itemsPath)).toBe('');
    expect(await read(logOf(o))).toBe('1\thttp://a.example/1\n'); // the log went first, and stays
    j.item(item('http://a.example/1'));
    fail = false;
    await j.flush();
    expect(await read(o.itemsPath)).toBe(`${item('http://a.example/0')}\n${item('http://a.example/1')}\n`);
    expect(await read(logOf(o))).toBe('1\thttp://a.example/1\n');
    expect(j.pendingItems).toBe(0);
    await j.close();
  });

  it('acknowledges a lone item within saveIntervalMs (a slow site restarted often still makes progress)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const o = options({ saveEveryItems: 50, saveIntervalMs: 200 });
    const j = await Journal.open(o);
    j.item(item('http://a.example/'));
    vi.advanceTimersByTime(199);
    expect(j.pendingItems).toBe(1);
    vi.advanceTimersByTime(1);
    expect(j.pendingItems).toBe(0);
    await j.flush();
    expect(await read(o.itemsPath)).toBe(`${item('http://a.example/')}\n`);
    await j.close();
  });

  it('close flushes and is safe to call twice', async () => {
    const o = options();
    const j = await Journal.open(o);
    j.enqueued('http://a.example/', 0);
    j.item(item('http://a.example/'));
    await j.close();
    await j.close();
    expect(await read(o.itemsPath)).toBe(`${item('http://a.example/')}\n`);
    expect(await read(logOf(o))).toBe('0\thttp://a.example/\n');
  });

  it('appends to existing files after repairing their torn tails', async () => {
    const o = options();
    await fs.mkdir(o.stateDir, { recursive: true });
    await fs.mkdir(path.dirname(o.itemsPath), { recursive: true });
    await fs.writeFile(logOf(o), '0\thttp://a.example/\n1\thttp://a.exa');
    await fs.writeFile(o.itemsPath, `${item('http://a.example/')}\n{"url":"http:/`);
    const j = await Journal.open(o);
    j.enqueued('http://a.example/b', 1);
    j.item(item('http://a.example/b'));
    await j.close();
    expect(await read(logOf(o))).toBe('0\thttp://a.example/\n1\thttp://a.example/b\n');
    expect(await read(o.itemsPath)).toBe(`${item('http://a.example/')}\n${item('http://a.example/b')}\n`);
  });
});

describe('recoverJournal', () => {
  function seenSet() {
    const s = new Set<string>();
    const add = (u: string): boolean => {
      if (s.has(u)) return false;
      s.add(u);
      return true;
    };
    return { s, seen: { add, has: (u: string) => s.has(u) } };
  }

  it('returns pending = enqueued minus done, in enqueue order, with depths', async () => {
    const o = options();
    const j = await Journal.open(o);
    j.enqueued('http://a.example/', 0);
    j.enqueued('http://a.example/1', 1);
    j.enqueued('http://a.example/2', 1);
    j.enqueued('http://a.example/1/x', 2);
    j.item(item('http://a.example/'));
    j.item(item('http://a.example/2'));
    await j.close();
    const { s, seen } = seenSet();
    const items: Array<Record<string, unknown>> = [];
    const r = await recoverJournal(o, seen, (it) => items.push(it));
    expect(r.pending).toEqual([
      { url: 'http://a.example/1', depth: 1 },
      { url: 'http://a.example/1/x', depth: 2 },
    ]);
    expect(r.done).toBe(2);
    expect(r.repairedBytes).toBe(0);
    expect(items.map((i) => i.url)).toEqual(['http://a.example/', 'http://a.example/2']);
    expect([...s].sort()).toEqual([
      'http://a.example/',
      'http://a.example/1',
      'http://a.example/1/x',
      'http://a.example/2',
    ]);
  });

  it('keeps the metadata of requests that have some, in the frontier and handoff logs', async () => {
    const o = options();
    const j = await Journal.open(o);
    const meta = {
      label: 'item',
      headers: { accept: 'application/json' },
      userData: { page: 2, tab: 'a\tb\nc' },
    };
    j.enqueued('http://a.example/', 0);
    j.enqueued('http://a.example/api/1.json', 1, meta);
    j.enqueued('http://a.example/api/2.json', 1, {
      priority: 3,
      store: false,
      robots: false,
      everyRound: true,
    });
    j.handedOff(1, 'http://b.example/x', 2, { label: 'far' });
    j.handedOff(1, 'http://b.example/y', 2);
    await j.close();
    const log = await read(logOf(o));
    // One line per request: JSON has no raw tab or newline.
    expect(log.split('\n')).toHaveLength(4);
    expect(log.split('\n')[1]).toBe(`1\thttp://a.example/api/1.json\t${JSON.stringify(meta)}`);
    const { seen } = seenSet();
    const r = await recoverJournal(o, seen, () => {});
    expect(r.pending).toEqual([
      { url: 'http://a.example/', depth: 0 },
      { url: 'http://a.example/api/1.json', depth: 1, meta },
      {
        url: 'http://a.example/api/2.json',
        depth: 1,
        meta: { priority: 3, store: false, robots: false, everyRound: true },
      },
    ]);
    const handed: unknown[] = [];
    await readHandoffs(o.stateDir, 1, (url, depth, m) => handed.push([url, depth, m]));
    expect(handed).toEqual([
      ['http://b.example/x', 2, { label: 'far' }],
      ['http://b.example/y', 2, undefined],
    ]);
  });

  it('gives a pending plain request the label a later line of the same URL gave it (a hub), not a done one', async () => {
    const o = options();
    const j = await Journal.open(o);
    const hub: RequestMeta = { label: 'sitemap', everyRound: true, scope: false, priority: 20 };
    j.enqueued('http://a.example/', 0);
    j.enqueued('http://a.example/maps/site.xml', 1);
    j.enqueued('http://a.example/done.xml', 1);
    j.enqueued('http://a.example/other', 1, { priority: 3 });
    j.item(item('http://a.example/'));
    j.item(item('http://a.example/done.xml'));
    j.enqueued('http://a.example/maps/site.xml', 1, hub);
    j.enqueued('http://a.example/done.xml', 1, hub);
    j.enqueued('http://a.example/other', 1, hub);
    await j.close();
    const { seen } = seenSet();
    const r = await recoverJournal(o, seen, () => {});
    expect(r.pending).toEqual([
      { url: 'http://a.example/maps/site.xml', depth: 1, meta: hub },
      { url: 'http://a.example/other', depth: 1, meta: { priority: 3 } },
    ]);
  });

  it('adds finalUrl of items to seen', async () => {
    const o = options();
    await fs.mkdir(o.stateDir, { recursive: true });
    await fs.mkdir(path.dirname(o.itemsPath), { recursive: true });
    await fs.writeFile(logOf(o), '0\thttp://a.example/old\n');
    await fs.writeFile(
      o.itemsPath,
      `${item('http://a.example/old', { finalUrl: 'http://a.example/new', status: 200 })}\n`,
    );
    const { s, seen } = seenSet();
    const r = await recoverJournal(o, seen, () => {});
    expect(r.pending).toEqual([]);
    expect(s.has('http://a.example/old')).toBe(true);
    expect(s.has('http://a.example/new')).toBe(true);
  });

  it('repairs torn tails of both files and reports the bytes removed', async () => {
    const o = options();
    await fs.mkdir(o.stateDir, { recursive: true });
    await fs.mkdir(path.dirname(o.itemsPath), { recursive: true });
    const tornLog = '1\thttp://a.ex';
    const tornItem = '{"url":"http://a.example/x"';
    await fs.writeFile(logOf(o), `0\thttp://a.example/\n1\thttp://a.example/x\n${tornLog}`);
    await fs.writeFile(o.itemsPath, `${item('http://a.example/')}\n${tornItem}`);
    const { s, seen } = seenSet();
    const r = await recoverJournal(o, seen, () => {});
    expect(r.repairedBytes).toBe(tornLog.length + tornItem.length);
    // the torn item is not an acknowledgement: its URL is fetched again
    expect(r.pending).toEqual([{ url: 'http://a.example/x', depth: 1 }]);
    expect(r.done).toBe(1);
    expect(s.has('http://a.ex')).toBe(false);
    expect(await read(logOf(o))).toBe('0\thttp://a.example/\n1\thttp://a.example/x\n');
  });

  it('skips items lines that are not JSON objects with a url', async () => {
    const o = options();
    await fs.mkdir(o.stateDir, { recursive: true });
    await fs.mkdir(path.dirname(o.itemsPath), { recursive: true });
    await fs.writeFile(logOf(o), '0\thttp://a.example/\n0\thttp://b.example/\nno-tab-line\n');
    await fs.writeFile(
      o.itemsPath,
      ['not json', '{"broken":', 'null', '42', '"str"', '{"status":200}', item('http://a.example/'), ''].join(
        '\n',
      ),
    );
    const { seen } = seenSet();
    const items: Array<Record<string, unknown>> = [];
    const r = await recoverJournal(o, seen, (it) => items.push(it));
    expect(r.done).toBe(1);
    expect(items).toEqual([{ url: 'http://a.example/' }]);
    expect(r.pending).toEqual([{ url: 'http://b.example/', depth: 0 }]);
  });

  it('reports every line of the items file with its exact byte position, skipped ones too', async () => {
    const o = options();
    await fs.mkdir(path.dirname(o.itemsPath), { recursive: true });
    const lines = ['', item('http://a.example/é'), 'not json', item('http://a.example/日本🎉'), '{"x":1}\r'];
    await fs.writeFile(o.itemsPath, `${lines.join('\n')}\n{"url":"http://torn`);
    const { seen } = seenSet();
    const at: ItemsLine[] = [];
    const items: Array<[unknown, number]> = [];
    const r = await recoverJournal(
      o,
      seen,
      (it, line) => items.push([it.url, line.index]),
      (line) => at.push(line),
    );
    let offset = 0;
    const expected = lines.map((l, index) => {
      const bytes = Buffer.byteLength(l) + 1;
      offset += bytes;
      return { index, offset: offset - bytes, bytes };
    });
    expect(at).toEqual(expected);
    expect(items).toEqual([
      ['http://a.example/é', 1],
      ['http://a.example/日本🎉', 3],
    ]);
    expect(r.done).toBe(2);
  });

  it('lists each URL once: a URL logged twice, or logged again after it was done, is pending once or not at all', async () => {
    const o = options();
    await fs.mkdir(o.stateDir, { recursive: true });
    await fs.mkdir(path.dirname(o.itemsPath), { recursive: true });
    await fs.writeFile(
      logOf(o),
      [
        '0\thttp://a.example/',
        '1\thttp://a.example/x',
        '1\thttp://a.example/x',
        '1\thttp://a.example/',
        '',
      ].join('\n'),
    );
    await fs.writeFile(o.itemsPath, `${item('http://a.example/')}\n`);
    const { seen } = seenSet();
    const r = await recoverJournal(o, seen, () => {});
    expect(r.pending).toEqual([{ url: 'http://a.example/x', depth: 1 }]);
  });

  it('keeps a redirect target logged on its own pending (the redirect was recorded as already seen)', async () => {
    const o = options();
    await fs.mkdir(o.stateDir, { recursive: true });
    await fs.mkdir(path.dirname(o.itemsPath), { recursive: true });
    await fs.writeFile(logOf(o), '1\thttp://a.example/b\n1\thttp://a.example/a\n');
    await fs.writeFile(o.itemsPath, `${item('http://a.example/a', { finalUrl: 'http://a.example/b' })}\n`);
    const { s, seen } = seenSet();
    const r = await recoverJournal(o, seen, () => {});
    expect(r.pending).toEqual([{ url: 'http://a.example/b', depth: 1 }]);
    expect(s.has('http://a.example/b')).toBe(true);
  });

  it('skips and counts damaged frontier lines: not a URL, out of scope, a depth that is not a number', async () => {
    const o = options();
    await fs.mkdir(o.stateDir, { recursive: true });
    await fs.writeFile(
      logOf(o),
      [
        '0\thttp://a.example/',
        '0\tnot a url',
        '1\thttp://elsewhere.example/',
        'x\thttp://a.example/y',
        '',
      ].join('\n'),
    );
    const filter = new ReplayFilter({
      scope: (u) => (u.startsWith('http://a.example/') ? 'ok' : 'out-of-scope'),
    });
    const { s, seen } = seenSet();
    const r = await recoverJournal(o, seen, () => {}, undefined, filter);
    expect(r.pending).toEqual([{ url: 'http://a.example/', depth: 0 }]);
    expect(Object.fromEntries(filter.rejected)).toEqual({
      'not a URL': 1,
      'out-of-scope': 1,
      'bad depth': 1,
    });
    expect([...s]).toEqual(['http://a.example/']);
  });

  it('returns an empty state when nothing was written yet', async () => {
    const { s, seen } = seenSet();
    const r = await recoverJournal(options(), seen, () => {});
    expect(r).toEqual({
      pending: [],
      done: 0,
      repairedBytes: 0,
      repeated: 0,
      lines: { frontier: 0, items: 0 },
      lost: {},
    });
    expect(s.size).toBe(0);
  });
});
