/**
 * Helpers for the long scenarios (bench/lib/long-scenarios.js): start a command and signal it
 * ourselves (the SIGTERM → exit time is one of the measurements), fork a fixture server and talk
 * to it over IPC, count lines of a growing file incrementally. Every wait here is bounded.
 */
import { fork, spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { killTree } from './measure.js';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Most output kept from a child's stdout/stderr (bytes). */
const OUTPUT_KEEP = 256 * 1024;

/** Processes started here and not yet exited (killed by {@link killStarted} on the runner's exit). */
const started = new Set();

/** SIGKILL every process tree started by this module that is still running. */
export function killStarted() {
  for (const child of started) {
    killTree(child.pid, 'SIGKILL');
    try {
      child.kill('SIGKILL');
    } catch {
      // gone
    }
  }
}

/**
 * Start `argv` (argv[0] is the program) directly, no shell. The handle's `exited` resolves with
 * { code, signal, at } (at = performance.now() of the exit). `onStdoutLine` sees every stdout
 * line (whatever OUTPUT_KEEP keeps).
 */
export function startProcess(argv, { cwd, env, onStdoutLine } = {}) {
  const child = spawn(argv[0], argv.slice(1), {
    cwd,
    env: env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  const out = { stdout: '', stderr: '' };
  const keep = (k) => (chunk) => {
    if (out[k].length < OUTPUT_KEEP) out[k] += chunk.toString();
  };
  child.stdout.on('data', keep('stdout'));
  child.stderr.on('data', keep('stderr'));
  if (onStdoutLine) {
    let partial = '';
    child.stdout.on('data', (chunk) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop();
      for (const l of lines) onStdoutLine(l);
    });
  }
  const exited = new Promise((resolve) => {
    child.on('error', (e) => {
      started.delete(child);
      resolve({ code: null, signal: null, at: performance.now(), error: e.message });
    });
    child.on('exit', (code, signal) => {
      started.delete(child);
      resolve({ code, signal, at: performance.now() });
    });
  });
  return { child, pid: child.pid, out, exited, startedAt: performance.now() };
}

/** Whether the process has exited (its `exited` promise settled). */
export async function hasExited(handle) {
  return (await Promise.race([handle.exited.then(() => true), sleep(0).then(() => false)])) === true;
}

/**
 * Send `signal` to the process (not its tree: the program handles its own children), wait for it
 * to exit; after `graceMs` send a second `signal`, after `killMs` SIGKILL the whole tree.
 * @returns { code, signal, ms: signal → exit, escalated }
 */
export async function stopProcess(handle, { signal = 'SIGTERM', graceMs = 20_000, killMs = 5000 } = {}) {
  const t0 = performance.now();
  if (await hasExited(handle)) {
    const r = await handle.exited;
    return { ...r, ms: 0, escalated: 'already exited' };
  }
  try {
    handle.child.kill(signal);
  } catch {
    // gone
  }
  let escalated = null;
  let r = await Promise.race([handle.exited, sleep(graceMs).then(() => null)]);
  if (r === null) {
    escalated = `second ${signal}`;
    try {
      handle.child.kill(signal);
    } catch {
      // gone
    }
    r = await Promise.race([handle.exited, sleep(killMs).then(() => null)]);
  }
  if (r === null) {
    escalated = 'SIGKILL';
    killTree(handle.pid, 'SIGKILL');
    handle.child.kill('SIGKILL');
    r = await handle.exited;
  }
  return { ...r, ms: r.at - t0, escalated };
}

/**
 * Fork a fixture server script (bench/lib/*-site.js). It sends `{ t: 'ready', ... }` when it
 * listens; `request(msg)` sends a message and resolves with the next reply of type `msg.t`.
 * The server exits by itself when this process disconnects.
 */
export async function startServer(script, args = [], { readyTimeoutMs = 15_000 } = {}) {
  const child = fork(script, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  started.add(child);
  child.on('exit', () => started.delete(child));
  const waiters = [];
  child.on('message', (m) => {
    const i = waiters.findIndex((w) => w.t === m.t);
    if (i >= 0) waiters.splice(i, 1)[0].resolve(m);
  });
  const next = (t, timeoutMs) =>
    new Promise((resolve, reject) => {
      const w = { t, resolve };
      waiters.push(w);
      setTimeout(() => {
        const i = waiters.indexOf(w);
        if (i >= 0) {
          waiters.splice(i, 1);
          reject(new Error(`${script}: no "${t}" reply within ${timeoutMs} ms`));
        }
      }, timeoutMs).unref();
    });
  const exitedEarly = new Promise((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${script} exited (code ${code}) before it was ready`))),
  );
  exitedEarly.catch(() => {});
  const ready = await Promise.race([next('ready', readyTimeoutMs), exitedEarly]);
  return {
    child,
    pid: child.pid,
    info: ready,
    request(msg, timeoutMs = 10_000) {
      const p = next(msg.t, timeoutMs);
      child.send(msg);
      return p;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      if ((await Promise.race([gone.then(() => true), sleep(5000).then(() => false)])) === false) {
        child.kill('SIGKILL');
        await gone;
      }
    },
  };
}

/**
 * Counts the lines of a file that only grows (append-only logs), reading only the bytes added
 * since the last call. A missing file counts as empty.
 */
export class LineCounter {
  constructor(file) {
    this.file = file;
    this.offset = 0;
    this.lines = 0;
    this.buf = Buffer.alloc(1 << 20);
  }

  /** @returns { lines, bytes } so far. */
  update() {
    let fd;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      return { lines: this.lines, bytes: this.offset };
    }
    try {
      const size = fstatSync(fd).size;
      while (this.offset < size) {
        const n = readSync(fd, this.buf, 0, Math.min(this.buf.length, size - this.offset), this.offset);
        if (n <= 0) break;
        let i = -1;
        for (;;) {
          i = this.buf.indexOf(0x0a, i + 1);
          if (i < 0 || i >= n) break;
          this.lines++;
        }
        this.offset += n;
      }
    } finally {
      closeSync(fd);
    }
    return { lines: this.lines, bytes: this.offset };
  }
}
