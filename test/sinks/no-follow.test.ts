/**
 * Issue 28 (6): nothing below <out> is written through a symbolic link. A directory link planted
 * in files/ (at any depth), files/ itself, the body temp directory, a final link at a page's path,
 * and links at the state files (frontier log, items, spill file) are refused or sidestepped; the
 * place they point to stays untouched. findLinkBelow finds what a run opens at start.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppendFile } from '../../src/frontier/append-file.js';
import { repairTornTail } from '../../src/frontier/log-lines.js';
import { SpillQueue } from '../../src/frontier/spill-queue.js';
import { FileSink } from '../../src/sinks/file-sink.js';
import { findLinkBelow, NoFollowDirs, SymlinkRefused } from '../../src/sinks/no-follow.js';
import { WarcWriter, warcFileName } from '../../src/sinks/warc-writer.js';

let base: string;
let out: string;
/** The place links point to: must stay as it was. */
let elsewhere: string;

beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-links-'));
  out = path.join(base, 'out');
  elsewhere = path.join(base, 'elsewhere');
  fs.mkdirSync(out);
  fs.mkdirSync(elsewhere);
  fs.writeFileSync(path.join(elsewhere, 'precious.txt'), 'do not touch\n');
});

afterEach(() => {
  fs.rmSync(base, { recursive: true, force: true });
});

/** Everything below `elsewhere`, with contents. */
function elsewhereNow(): Record<string, string> {
  const found: Record<string, string> = {};
  for (const e of fs.readdirSync(elsewhere, { recursive: true, withFileTypes: true })) {
    const p = path.join(e.parentPath, e.name);
    found[path.relative(elsewhere, p)] = e.isFile() ? fs.readFileSync(p, 'utf8') : '<dir>';
  }
  return found;
}
const UNTOUCHED = { 'precious.txt': 'do not touch\n' };

function plantDirLink(relative: string): void {
  const p = path.join(out, relative);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.symlinkSync(elsewhere, p);
}

describe('FileSink never writes through a symbolic link', () => {
  it.each([
    ['a directory in a page path', 'files/example.org/docs'],
    ['a deeper directory', 'files/example.org/docs/guide'],
    ['the host directory', 'files/example.org'],
    ['files/ itself', 'files'],
    ['the temp directory', 'state/tmp'],
    ['state/', 'state'],
  ])('%s (%s): the write fails with SymlinkRefused, nothing lands elsewhere', async (_what, link) => {
    plantDirLink(link);
    const sink = new FileSink({ outDir: out });
    const write = sink.write('https://example.org/docs/guide/a.html', Buffer.from('<p>a</p>'));
    await expect(write).rejects.toBeInstanceOf(SymlinkRefused);
    await expect(write).rejects.toThrow(`${link} is a symbolic link: not followed`);
    await sink.close();
    // The synchronous twin (the body-writer thread) refuses it the same way.
    const again = new FileSink({ outDir: out });
    expect(() => again.storeSync('https://example.org/docs/guide/b.html', Buffer.from('b'))).toThrow(
      SymlinkRefused,
    );
    expect(elsewhereNow()).toEqual(UNTOUCHED);
  });

  it('a link in one page path does not stop the others', async () => {
    plantDirLink('files/example.org/private');
    const sink = new FileSink({ outDir: out });
    await expect(sink.write('https://example.org/private/x.html', Buffer.from('x'))).rejects.toThrow(
      SymlinkRefused,
    );
    expect(await sink.write('https://example.org/public/y.html', Buffer.from('y'))).toBe(
      'files/example.org/public/y.html',
    );
    await sink.close();
    expect(fs.readFileSync(path.join(out, 'files/example.org/public/y.html'), 'utf8')).toBe('y');
    expect(elsewhereNow()).toEqual(UNTOUCHED);
  });

  it('a dangling directory link is refused too (mkdir would follow it)', async () => {
    fs.mkdirSync(path.join(out, 'files/example.org'), { recursive: true });
    fs.symlinkSync(path.join(elsewhere, 'not-yet'), path.join(out, 'files/example.org/docs'));
    const sink = new FileSink({ outDir: out });
    expect(() => sink.storeSync('https://example.org/docs/a.html', Buffer.from('a'))).toThrow(SymlinkRefused);
    expect(fs.existsSync(path.join(elsewhere, 'not-yet'))).toBe(false);
  });

  it('a link at the page path itself is neither read nor written through: the body goes to _conflicts', async () => {
    fs.mkdirSync(path.join(out, 'files/example.org'), { recursive: true });
    fs.symlinkSync(path.join(elsewhere, 'precious.txt'), path.join(out, 'files/example.org/a.html'));
    const sink = new FileSink({ outDir: out });
    const file = await sink.write('https://example.org/a.html', Buffer.from('do not touch\n'));
    // Same bytes as the target, yet not taken as "already stored": the link is not read.
    expect(file).toMatch(/^files\/example\.org\/_conflicts\/[0-9a-f]{16}$/);
    expect(sink.storeSync('https://example.org/a.html', Buffer.from('new'))).toBe(file);
    await sink.close();
    expect(fs.readFileSync(path.join(out, file), 'utf8')).toBe('new');
    expect(fs.lstatSync(path.join(out, 'files/example.org/a.html')).isSymbolicLink()).toBe(true);
    expect(elsewhereNow()).toEqual(UNTOUCHED);
  });

  it('with versions, a link at the page path is replaced by the current version, its target untouched', async () => {
    fs.mkdirSync(path.join(out, 'files/example.org'), { recursive: true });
    fs.symlinkSync(path.join(elsewhere, 'precious.txt'), path.join(out, 'files/example.org/a.html'));
    const sink = new FileSink({ outDir: out, versions: { keep: true } });
    await sink.write('https://example.org/a.html', Buffer.from('v1'));
    await sink.close();
    const page = path.join(out, 'files/example.org/a.html');
    expect(fs.lstatSync(page).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(page, 'utf8')).toBe('v1');
    expect(elsewhereNow()).toEqual(UNTOUCHED);
  });
});

describe('NoFollowDirs', () => {
  it('makes missing directories, accepts real ones, names a file in the way ENOTDIR, stays below its root', async () => {
    fs.mkdirSync(path.join(out, 'a'));
    fs.writeFileSync(path.join(out, 'a/file'), '');
    const dirs = new NoFollowDirs(out);
    dirs.ensureSync(path.join(out, 'a/b/c'));
    await dirs.ensure(path.join(out, 'a/d'));
    expect(fs.statSync(path.join(out, 'a/b/c')).isDirectory()).toBe(true);
    expect(fs.statSync(path.join(out, 'a/d')).isDirectory()).toBe(true);
    expect(() => dirs.ensureSync(path.join(out, 'a/file/x'))).toThrow(
      expect.objectContaining({ code: 'ENOTDIR' }),
    );
    expect(() => dirs.ensureSync(path.join(base, 'elsewhere/x'))).toThrow(/is not below/);
  });

  it('its root may itself be a link (the user chose where <out> lives)', () => {
    const linkedOut = path.join(base, 'out-link');
    fs.symlinkSync(out, linkedOut);
    new NoFollowDirs(linkedOut).ensureSync(path.join(linkedOut, 'files/h'));
    expect(fs.statSync(path.join(out, 'files/h')).isDirectory()).toBe(true);
  });
});

describe('state files are never opened through a link', () => {
  const target = () => path.join(elsewhere, 'precious.txt');

  it('AppendFile (frontier log, items, handoff logs) refuses a link', async () => {
    const file = path.join(out, 'frontier.log');
    fs.symlinkSync(target(), file);
    await expect(AppendFile.open(file)).rejects.toBeInstanceOf(SymlinkRefused);
    expect(elsewhereNow()).toEqual(UNTOUCHED);
  });

  it('repairing a torn tail does not truncate through a link', async () => {
    fs.writeFileSync(target(), 'whole line\ntorn');
    const file = path.join(out, 'items.jsonl');
    fs.symlinkSync(target(), file);
    await expect(repairTornTail(file)).rejects.toBeInstanceOf(SymlinkRefused);
    expect(fs.readFileSync(target(), 'utf8')).toBe('whole line\ntorn');
  });

  it('the spill file (emptied at open) is not emptied through a link', async () => {
    const file = path.join(out, 'spill.log');
    fs.symlinkSync(target(), file);
    await expect(SpillQueue.open(file)).rejects.toBeInstanceOf(SymlinkRefused);
    expect(elsewhereNow()).toEqual(UNTOUCHED);
  });
});

describe('WARC files are never written through a link', () => {
  const info: Array<[string, string]> = [['software', 'test']];
  const record = { bytes: Buffer.from('not really gzip') };

  it('a link at the next WARC file (planted while it runs): the append fails with SymlinkRefused', () => {
    fs.mkdirSync(path.join(out, 'warc'));
    fs.symlinkSync(path.join(elsewhere, 'precious.txt'), path.join(out, 'warc', warcFileName('w-0', 0)));
    const { writer } = WarcWriter.open({ outDir: out, worker: 'w-0', maxSize: 1 << 30, info }, null);
    // a fresh crawl never writes into a file that is there: it starts the next one
    const first = writer.append([record]);
    expect(first.file).toBe(`warc/${warcFileName('w-0', 1)}`);
    writer.close();
    fs.symlinkSync(path.join(elsewhere, 'precious.txt'), path.join(out, 'warc', warcFileName('w-0', 2)));
    expect(() => writer.append([record])).toThrow(SymlinkRefused);
    expect(() => writer.append([record])).toThrow(`warc/${warcFileName('w-0', 2)} is a symbolic link`);
    expect(elsewhereNow()).toEqual(UNTOUCHED);
  });

  it('warc/ itself a link: refused at open', () => {
    plantDirLink('warc');
    expect(() => WarcWriter.open({ outDir: out, worker: 'w-0', maxSize: 1 << 30, info }, null)).toThrow(
      SymlinkRefused,
    );
    expect(elsewhereNow()).toEqual(UNTOUCHED);
  });
});

describe('findLinkBelow: what a run checks before it writes', () => {
  it.each([
    'files',
    'items',
    'logs',
    'warc',
    'state',
    'state/docs-0',
    'items/docs-0.jsonl',
    'state/docs-0/frontier.log',
    'logs/docs-0.log',
    'warc/docs-0-00001.warc.gz',
  ])('finds %s', async (link) => {
    for (const d of ['files/h', 'items', 'logs', 'warc', 'state/docs-1'])
      fs.mkdirSync(path.join(out, d), { recursive: true });
    fs.writeFileSync(path.join(out, 'state/docs-1/frontier.log'), '');
    fs.mkdirSync(path.dirname(path.join(out, link)), { recursive: true });
    if (fs.existsSync(path.join(out, link))) fs.rmSync(path.join(out, link), { recursive: true });
    fs.symlinkSync(target(link), path.join(out, link));
    expect(await findLinkBelow(out)).toEqual({ path: path.join(out, link), target: target(link) });

    function target(l: string): string {
      return l.includes('.') ? path.join(elsewhere, 'precious.txt') : elsewhere;
    }
  });

  it('none in a clean output directory, or in one not made yet', async () => {
    fs.mkdirSync(path.join(out, 'state/docs-0'), { recursive: true });
    fs.writeFileSync(path.join(out, 'state/docs-0/frontier.log'), '');
    fs.mkdirSync(path.join(out, 'files/h/deep'), { recursive: true });
    expect(await findLinkBelow(out)).toBeNull();
    expect(await findLinkBelow(path.join(base, 'nothing-here'))).toBeNull();
  });
});
