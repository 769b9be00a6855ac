/**
 * Issue 28 (7): the journal's mark (journal.json) records how long the frontier log and the items
 * file were after each write, so that resume tells a file that lost lines — emptied, truncated,
 * shortened — from one that is whole; a mark that lags the files (a kill between a write and its
 * mark) or a torn tail cut at resume is no loss.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FRONTIER_LOG, Journal, recoverJournal } from '../../src/frontier/journal.js';
import { JOURNAL_MARK, readJournalMark } from '../../src/frontier/journal-mark.js';
import { tempDir } from '../fixtures/cli.js';

function options() {
  const dir = tempDir();
  return {
    stateDir: path.join(dir, 'state', 'w0'),
    itemsPath: path.join(dir, 'items', 'w0.jsonl'),
    saveEveryItems: 50,
    saveIntervalMs: 60_000,
  };
}
type Options = ReturnType<typeof options>;

const item = (url: string) => JSON.stringify({ url, finalUrl: url, status: 200 });

/** A session: `enqueued` URLs, the first `done` of them with an item. */
async function session(
  o: Options,
  enqueued: string[],
  done: number,
  lines?: { frontier: number; items: number },
) {
  const j = await Journal.open({ ...o, lines });
  for (const u of enqueued) j.enqueued(u, 1);
  for (const u of enqueued.slice(0, done)) j.item(item(u));
  await j.close();
}

function recover(o: Options) {
  const seen = new Set<string>();
  return recoverJournal(o, { add: (u) => !seen.has(u) && !!seen.add(u), has: (u) => seen.has(u) }, () => {});
}

const urls = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `http://a.example/p${from + i}`);
const logOf = (o: Options) => path.join(o.stateDir, FRONTIER_LOG);

describe('journal mark', () => {
  it('records both files after the journal writes them; whole files are no loss, across sessions', async () => {
    const o = options();
    await session(o, urls(4), 2);
    expect(await readJournalMark(o.stateDir)).toEqual({
      frontier: { bytes: fs.statSync(logOf(o)).size, lines: 4 },
      items: { bytes: fs.statSync(o.itemsPath).size, lines: 2 },
    });
    const first = await recover(o);
    expect(first.lost).toEqual({});
    expect(first.lines).toEqual({ frontier: 4, items: 2 });
    // a second session goes on from the counts the recovery read
    await session(o, urls(3, 4), 1, first.lines);
    const second = await recover(o);
    expect(second.lost).toEqual({});
    expect(second.lines).toEqual({ frontier: 7, items: 3 });
    expect((await readJournalMark(o.stateDir))?.frontier.lines).toBe(7);
  });

  it('an emptied frontier log: every line it had is reported lost', async () => {
    const o = options();
    await session(o, urls(4), 2);
    const had = fs.statSync(logOf(o)).size;
    fs.writeFileSync(logOf(o), '');
    const r = await recover(o);
    expect(r.lost).toEqual({ frontier: { had: { bytes: had, lines: 4 }, has: { bytes: 0, lines: 0 } } });
    expect(r.pending).toEqual([]);
  });

  it('a missing frontier log is an emptied one', async () => {
    const o = options();
    await session(o, urls(4), 2);
    fs.rmSync(logOf(o));
    expect((await recover(o)).lost.frontier?.has).toEqual({ bytes: 0, lines: 0 });
  });

  it('a frontier log truncated to its first lines: the lines after are reported lost', async () => {
    const o = options();
    await session(o, urls(6), 2);
    const text = fs.readFileSync(logOf(o), 'utf8');
    const kept = `${text.split('\n').slice(0, 4).join('\n')}\n`;
    fs.writeFileSync(logOf(o), kept);
    const r = await recover(o);
    expect(r.lost.frontier).toEqual({
      had: { bytes: text.length, lines: 6 },
      has: { bytes: kept.length, lines: 4 },
    });
    expect(r.lost.items).toBeUndefined();
  });

  it('the items file cut short is reported too', async () => {
    const o = options();
    await session(o, urls(4), 3);
    const text = fs.readFileSync(o.itemsPath, 'utf8');
    fs.writeFileSync(o.itemsPath, `${text.split('\n')[0]}\n`);
    const r = await recover(o);
    expect(r.lost.items?.had.lines).toBe(3);
    expect(r.lost.items?.has.lines).toBe(1);
    expect(r.lost.frontier).toBeUndefined();
    expect(r.pending.map((p) => p.url)).toEqual(urls(4).slice(1)); // p1, p2 fetched again
  });

  it('a mark that lags the files (killed between a write and its mark) and a torn tail are no loss', async () => {
    const o = options();
    await session(o, urls(4), 2);
    // written after the mark: more whole lines, and half a line
    fs.appendFileSync(logOf(o), '1\thttp://a.example/late\n1\thttp://a.exa');
    fs.appendFileSync(o.itemsPath, `${item('http://a.example/p2')}\n{"url":"ht`);
    const r = await recover(o);
    expect(r.lost).toEqual({});
    expect(r.repairedBytes).toBeGreaterThan(0);
  });

  it('without a mark (a crawl from before marks) or with a damaged one, nothing is checked', async () => {
    const o = options();
    await session(o, urls(4), 2);
    fs.writeFileSync(path.join(o.stateDir, JOURNAL_MARK), '{"format":1,"frontier":{"bytes":-1}}');
    fs.writeFileSync(logOf(o), '');
    expect((await recover(o)).lost).toEqual({});
    fs.rmSync(path.join(o.stateDir, JOURNAL_MARK));
    expect((await recover(o)).lost).toEqual({});
  });
});
