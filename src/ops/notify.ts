/**
 * Telling a person: every message goes to stdout (so cron mails it), and, when the config has a
 * `notify:` block, to a command (message on stdin) and/or a webhook (JSON POST). A failed
 * notification is one line on stderr; it never stops the command that notifies.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { Agent, fetch } from 'undici';

/** The `notify:` block of a config. */
export interface NotifySettings {
  command?: string;
  webhook?: string;
}

/** Time a notification command or webhook gets before it counts as failed, ms. */
export const NOTIFY_TIMEOUT_MS = 10_000;

/** What a webhook receives (JSON). */
export interface NotifyPayload {
  /** The message, one line. */
  text: string;
  /** What sent it: `watchdog`, `size` or `crash-loop`. */
  kind: string;
  /** Absolute data directory. */
  dataDir: string;
  host: string;
  /** ISO 8601. */
  at: string;
}

/**
 * Send `text` everywhere it should go.
 * @param stdout also print it on stdout (false where the caller already printed it, e.g. the supervisor).
 * @returns one line per failed channel (also written to stderr); empty when all worked.
 */
export async function notify(
  text: string,
  settings: NotifySettings | undefined,
  meta: { kind: string; dataDir: string },
  stdout = true,
): Promise<string[]> {
  if (stdout) process.stdout.write(`${text}\n`);
  const failures: string[] = [];
  const payload: NotifyPayload = {
    text,
    kind: meta.kind,
    dataDir: meta.dataDir,
    host: os.hostname(),
    at: new Date().toISOString(),
  };
  const jobs: Promise<void>[] = [];
  if (settings?.command) {
    jobs.push(
      runCommand(settings.command, `${text}\n`).catch((e) => {
        failures.push(`notify.command failed: ${(e as Error).message}`);
      }),
    );
  }
  if (settings?.webhook) {
    jobs.push(
      postJson(settings.webhook, payload).catch((e) => {
        failures.push(`notify.webhook failed: ${(e as Error).message}`);
      }),
    );
  }
  await Promise.all(jobs);
  for (const f of failures) process.stderr.write(`collector: ${f}\n`);
  return failures;
}

/** Run `command` through `sh -c` with `input` on stdin. @throws when it exits non-zero or times out. */
function runCommand(command: string, input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => {
      if (err.length < 500) err += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit after ${NOTIFY_TIMEOUT_MS / 1000} s`));
    }, NOTIFY_TIMEOUT_MS);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`exit ${code ?? signal}${err ? `: ${err.trim().split('\n')[0]}` : ''}`));
    });
    child.stdin.on('error', () => {}); // a command that does not read its stdin
    child.stdin.end(input);
  });
}

/** POST `payload` as JSON. @throws on a network error, a timeout or a non-2xx answer. */
async function postJson(url: string, payload: NotifyPayload): Promise<void> {
  // An agent of its own, closed at once: a kept-alive socket would keep a cron job alive for seconds.
  const dispatcher = new Agent();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(NOTIFY_TIMEOUT_MS),
      dispatcher,
    });
    await res.arrayBuffer().catch(() => {});
    if (res.status < 200 || res.status > 299) throw new Error(`HTTP ${res.status}`);
  } finally {
    await dispatcher.destroy().catch(() => {});
  }
}
