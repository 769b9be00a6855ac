/**
 * The headless browser of `--render`: Debian's `chromium-headless-shell` (or its `chromium`; never
 * a downloaded browser), started by puppeteer-core over a pipe with a fresh profile directory, at
 * a lower CPU priority than the crawl, ended by PID. puppeteer-core is loaded on first use only: a
 * crawl that renders nothing never loads it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';

/**
 * Where Chromium is looked for, in order (`CHROMIUM_PATH` first). The headless shell (Debian's
 * `chromium-headless-shell`: the browser without its windowing layers, the "old" headless mode)
 * comes first: on chromium 156 it renders the same DOM for about half the CPU and two thirds of
 * the memory of `chromium --headless=new` (bench/RESULTS.md, 2026-12-03 21:00). Its binary is
 * taken directly, not through Debian's `/usr/bin` wrapper script, which would stay between the
 * crawl and the browser as a process of its own.
 */
export const CHROMIUM_CANDIDATES = [
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
];

/** The one-line message when rendering is asked for and no Chromium is installed. */
export const NO_CHROMIUM_MESSAGE =
  'rendering (--render auto|always) needs Chromium: install the Debian package `chromium-headless-shell` or `chromium` (apt-get install chromium-headless-shell), or set CHROMIUM_PATH to its binary';

/**
 * Nice value of every browser thread (0 is the crawl's, 19 the lowest): where the two compete for
 * a core, the crawl's own fetching and parsing come first and the browser takes what is left.
 */
export const BROWSER_NICE = 10;

/** The Chromium binary: `CHROMIUM_PATH`, else the first of {@link CHROMIUM_CANDIDATES} present; null when none. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string | null {
  const own = env.CHROMIUM_PATH;
  if (own !== undefined && own !== '') return fs.existsSync(own) ? own : null;
  for (const c of CHROMIUM_CANDIDATES) if (fs.existsSync(c)) return c;
  return null;
}

/** Whether `exe` is a headless shell (`chrome-headless-shell`, `chromium-headless-shell`): puppeteer's `headless: 'shell'`. */
export function isHeadlessShell(exe: string): boolean {
  return /headless[-_]shell/.test(path.basename(exe));
}

/**
 * Flags of every launch: no GPU (and no GPU process), no first-run or background traffic (the
 * browser only loads the pages it is given), `/tmp` instead of a small `/dev/shm`, no images
 * decoded; for memory, one renderer process per site (the pages of one site share it) and no
 * back-forward cache (a reused tab keeps no earlier page alive): 488 → 408 MB PSS for 6 tabs of
 * one site on chromium 156. `--no-sandbox` only as root, where Chromium's sandbox cannot start.
 */
export function chromiumArgs(root = process.getuid?.() === 0): string[] {
  const args = [
    '--disable-gpu',
    '--in-process-gpu',
    '--disable-software-rasterizer',
    '--process-per-site',
    '--disable-dev-shm-usage',
    '--disable-quic',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-extensions',
    '--disable-features=Translate,MediaRouter,OptimizationHints,BackForwardCache',
    '--mute-audio',
    '--blink-settings=imagesEnabled=false',
  ];
  if (root) args.push('--no-sandbox');
  return args;
}

/** A running Chromium. */
export interface ChromiumProcess {
  browser: Browser;
  /** Its process id (the browser process; its renderers are its children). */
  pid: number;
  /** End it: SIGKILL by PID when `close` does not finish in time, then remove its profile. */
  close(): Promise<void>;
  /** End it at once by PID (a hung browser), and remove its profile. */
  kill(): void;
}

/** Longest wait for a graceful browser close before SIGKILL, ms. */
const CLOSE_WAIT_MS = 2000;

/**
 * Start headless Chromium with a fresh profile under the system temp dir.
 * @param protocolTimeoutMs longest wait for any one DevTools call, ms (a hung browser's calls fail).
 * @throws Error {@link NO_CHROMIUM_MESSAGE} when no Chromium is installed; the launch error otherwise.
 */
export async function launchChromium(protocolTimeoutMs: number): Promise<ChromiumProcess> {
  const exe = chromiumPath();
  if (exe === null) throw new Error(NO_CHROMIUM_MESSAGE);
  const { default: puppeteer } = await import('puppeteer-core');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'collector-chromium-'));
  const removeProfile = () => removeDir(profile);
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath: exe,
      userDataDir: profile,
      headless: isHeadlessShell(exe) ? 'shell' : true,
      pipe: true,
      args: chromiumArgs(),
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      protocolTimeout: protocolTimeoutMs,
    });
  } catch (e) {
    removeProfile();
    throw e;
  }
  const pid = browser.process()?.pid ?? 0;
  lowerPriority(pid);
  const kill = () => {
    killTree(pid);
    removeProfile();
  };
  return {
    browser,
    pid,
    kill,
    close: async () => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        browser.close().catch(() => {}),
        new Promise<void>((r) => {
          timer = setTimeout(r, CLOSE_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
      kill();
    },
  };
}

/**
 * Remove a profile directory. A browser process still dying may write into it meanwhile
 * (ENOTEMPTY): tried again a second later, once; never throws (a profile left in the temp dir is
 * the only cost).
 */
function removeDir(dir: string, again = true): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 2, retryDelay: 50 });
  } catch {
    if (again) setTimeout(() => removeDir(dir, false), 1000).unref();
  }
}

/** SIGKILL `pid` and its descendants (Chromium's zygote and renderers), children first. Gone ones are skipped. */
export function killTree(pid: number): void {
  if (pid <= 0) return;
  for (const child of childrenOf(pid)) killTree(child);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The process ids of `pid`'s children (Linux /proc; `ps` elsewhere), or none. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const text = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text !== '') for (const c of text.split(/\s+/)) out.push(Number(c));
    }
    return out;
  } catch {
    if (process.platform === 'linux') return out;
  }
  try {
    const text = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
    return text
      .split(/\s+/)
      .filter((s) => s !== '')
      .map(Number);
  } catch {
    return out;
  }
}

/**
 * Lower every thread of the process tree under `pid` to {@link BROWSER_NICE} (Linux's nice value
 * is per thread; processes and threads started later inherit it from the one that starts them).
 * Threads already at or below it are left; ones gone meanwhile are skipped. Never throws.
 */
export function lowerPriority(pid: number, nice = BROWSER_NICE): void {
  for (const p of processTree(pid)) {
    let threads: string[];
    try {
      threads = fs.readdirSync(`/proc/${p}/task`);
    } catch {
      threads = [String(p)]; // no /proc: the process's main thread
    }
    for (const t of threads) {
      try {
        if (os.getPriority(Number(t)) < nice) os.setPriority(Number(t), nice);
      } catch {
        // ended meanwhile
      }
    }
  }
}

/** Every process id of the tree under `pid`, `pid` included (none when it is gone). */
export function processTree(pid: number): number[] {
  if (pid <= 0 || !fs.existsSync(`/proc/${pid}`)) return [];
  return [pid, ...childrenOf(pid).flatMap(processTree)];
}
