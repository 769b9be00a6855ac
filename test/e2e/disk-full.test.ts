import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItems, runCli, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, page, startServer } from '../fixtures/site-server.js';
import { expectSoundWarc } from '../fixtures/warc-files.js';

// Issue 17 (5): a full disk stops the collector with one line and exit 75, no stack trace, the
// lock released; a resume on the still-full disk says the same; after space is freed, --resume
// completes with every URL exactly once and every body stored. The watchdog does not restart it
// while the disk is full, and resumes it once space is freed. A real full disk: a 1 MiB tmpfs
// (mounting needs root; CI runs as root).
const N = 150;
let site: FixtureServer;
const pad = 'x'.repeat(16_000); // 150 pages × 16 KB: more than the tmpfs holds

const canMount = (() => {
  if (process.getuid?.() !== 0) return 'not root: mounting a tmpfs needs root';
  try {
    const probe = tempDir('collector-mount-probe-');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]);
    execFileSync('umount', [probe]);
    return null;
  } catch (e) {
    return `cannot mount a tmpfs here: ${(e as Error).message.split('\n')[0]}`;
  }
})();

beforeAll(async () => {
  site = await startServer({}, (req, res) => {
    const m = /^\/p\/(\d+)\.html$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404);
      res.end();
      return;
    }
    const i = Number(m[1]);
    const links = [i + 1, i + 2, Math.floor(i / 2)].filter((j) => j < N).map((j) => `${j}.html`);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(page(`Page ${i}`, links, `<p>${i} ${pad}</p>`));
  });
});

afterAll(async () => {
  await site.close();
});

const LINE = /^collector: disk full at \S+ \(\d+(\.\d)? MB free\): stopped; --resume continues$/;

function expectDiskFullExit(r: { code: number | null; stderr: string }): void {
  expect(r.code, r.stderr).toBe(75);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr.trim()).toMatch(LINE);
}

describe.skipIf(canMount !== null)(`disk full (${canMount ?? 'a 1 MiB tmpfs'})`, () => {
  it.each([1, 2])(
    '%i process(es): stops with one line and exit 75, resumes exactly once after space is freed',
    async (processes) => {
      const mnt = tempDir('collector-diskfull-');
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]);
      try {
        const out = path.join(mnt, 'out');
        const args = [
          'crawl',
          `${site.origin}/p/0.html`,
          '--processes',
          String(processes),
          '--delay',
          '0',
          '--no-robots',
          '--out',
          out,
        ];
        const full = await runCli(args);
        expectDiskFullExit(full);
        expect(fs.existsSync(path.join(out, 'collector.pid'))).toBe(false);
        for (const w of fs.readdirSync(path.join(out, 'state'))) {
          expect(fs.existsSync(path.join(out, 'state', w, 'worker.lock'))).toBe(false);
        }
        const partial = readItems(out);
        expect(partial.length).toBeLessThan(N);
        // The watchdog does not restart it onto the full disk, and says why.
        const watchdog = () => runCli(['watchdog', '--data', out, '--settle', '60s']);
        const held = await watchdog();
        expect(held.stdout).toMatch(
          /^not restarted: .+; disk full at \S+ \(\d+\.\d MB free\): free space, then the next watchdog run restarts it\n$/,
        );
        expect(held.code).toBe(3);
        // Still full: the same line.
        expectDiskFullExit(await runCli([...args, '--resume']));
        execFileSync('mount', ['-o', 'remount,size=32m', mnt]);
        if (processes === 1) {
          const r = await runCli([...args, '--resume']);
          expect(r.code, r.stderr).toBe(0);
        } else {
          // Space freed: the watchdog resumes it (the status it left names the full disk).
          const status = JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8'));
          expect(status.diskFull).toMatch(new RegExp(`^${out}`));
          const r = await watchdog();
          expect(r.stdout).toMatch(/^restarted: collector stopped by a full disk at \S+; it finished\n$/);
          expect(r.code).toBe(1);
        }
        const items = readItems(out);
        const urls = items.map((i) => i.url);
        expect(urls.length).toBe(N);
        expect(new Set(urls).size).toBe(N);
        // Every body stored: no storeError left behind by the full disk.
        for (const it of items) {
          expect(it.error ?? it.data?.storeError ?? null, it.url).toBeNull();
          expect(fs.statSync(path.join(out, it.file)).size).toBe(it.bytes);
        }
      } finally {
        execFileSync('umount', [mnt]);
      }
    },
    90_000,
  );

  it('with --warc: stops with exit 75, and after --resume every item has its records, none cut short', async () => {
    const mnt = tempDir('collector-diskfull-');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]);
    try {
      const out = path.join(mnt, 'out');
      const args = ['crawl', `${site.origin}/p/0.html`, '--processes', '1', '--delay', '0', '--no-robots'];
      const warcArgs = [...args, '--warc', '--out', out];
      expectDiskFullExit(await runCli(warcArgs));
      expect(readItems(out).length).toBeLessThan(N);
      execFileSync('mount', ['-o', 'remount,size=32m', mnt]);
      const r = await runCli([...warcArgs, '--resume']);
      expect(r.code, r.stderr).toBe(0);
      const urls = readItems(out).map((i) => i.url);
      expect(urls.length).toBe(N);
      expect(new Set(urls).size).toBe(N);
      await expectSoundWarc(out);
    } finally {
      execFileSync('umount', [mnt]);
    }
  }, 90_000);

  it('no free inodes (bytes left): the stop line and the watchdog name inodes; resumes exactly once after more are given', async () => {
    const mnt = tempDir('collector-inodes-');
    // 64 MiB of room, 60 files: the inodes run out long before the bytes.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,nr_inodes=60', 'tmpfs', mnt]);
    try {
      const out = path.join(mnt, 'out');
      const args = ['crawl', `${site.origin}/p/0.html`, '--delay', '0', '--no-robots', '--out', out];
      const full = await runCli(args);
      expect(full.code, full.stderr).toBe(75);
      expect(full.stderr.trim()).toMatch(
        /^collector: no free inodes on \S+ \(\d+ MB free\): stopped; --resume continues$/,
      );
      expect(readItems(out).length).toBeLessThan(N);
      const held = await runCli(['watchdog', '--data', out, '--settle', '60s']);
      expect(held.stdout).toMatch(
        /^not restarted: .+; no free inodes on \S+ \(\d+ left, \d+ MB free\): remove files, then the next watchdog run restarts it\n$/,
      );
      expect(held.code).toBe(3);
      execFileSync('mount', ['-o', 'remount,nr_inodes=10000', mnt]);
      const r = await runCli([...args, '--resume']);
      expect(r.code, r.stderr).toBe(0);
      const urls = readItems(out).map((i) => i.url);
      expect(urls.length).toBe(N);
      expect(new Set(urls).size).toBe(N);
    } finally {
      execFileSync('umount', [mnt]);
    }
  }, 90_000);
});
