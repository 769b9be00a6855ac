/**
 * The headless browser of `--render`: Debian's `chromium` (never a downloaded browser), started by
 * puppeteer-core over a pipe with a fresh profile directory, ended by PID. puppeteer-core is loaded
 * on first use only: a crawl that renders nothing never loads it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';

/** Where Chromium is looked for, in order (`CHROMIUM_PATH` first). */
export const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The one-line message when rendering is asked for and no Chromium is installed. */
export const NO_CHROMIUM_MESSAGE =
  'rendering (--render auto|always) needs Chromium: install the Debian package `chromium` (apt-get install chromium), or set CHROMIUM_PATH to its binary';

/** The Chromium binary: `CHROMIUM_PATH`, else the first of {@link CHROMIUM_CANDIDATES} present; null when none. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string | null {
  const own = env.CHROMIUM_PATH;
  if (own !== undefined && own !== '') return fs.existsSync(own) ? own : null;
  for (const c of CHROMIUM_CANDIDATES) if (fs.existsSync(c)) return c;
  return null;
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
      headless: true,
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

/** Every process id of the tree under `pid`, `pid` included (none when it is gone). */
export function processTree(pid: number): number[] {
  if (pid <= 0 || !fs.existsSync(`/proc/${pid}`)) return [];
  return [pid, ...childrenOf(pid).flatMap(processTree)];
}
