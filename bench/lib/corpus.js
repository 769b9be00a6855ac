/**
 * The PostgreSQL-docs corpus served by nginx on loopback (../shared/corpus/serve.sh): start it
 * (stopping it afterwards only if this bench started it), its URL, page count and URL list.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Where serve.sh serves the docs from (fixed in serve.sh and nginx.conf.in). */
export const DOCS_DIR = '/usr/share/doc/postgresql-doc-15/html';

export class Corpus {
  /** @param {string} root the project directory (serve.sh is at ../shared/corpus/). */
  constructor(root) {
    this.script = process.env.COLLECTOR_CORPUS_SERVE ?? path.resolve(root, '../shared/corpus/serve.sh');
    this.startedHere = false;
    this.url = '';
    this.pages = 0;
  }

  start() {
    if (!existsSync(this.script)) throw new Error(`corpus script not found: ${this.script}`);
    let running = true;
    try {
      execFileSync(this.script, ['status'], { stdio: 'ignore' });
    } catch {
      running = false;
    }
    const out = execFileSync(this.script, ['start'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const m = /(http:\/\/\S+)/.exec(out);
    if (!m) throw new Error(`serve.sh start printed no URL: ${out}`);
    this.url = m[1];
    const host = new URL(this.url).hostname;
    if (!host.startsWith('127.')) throw new Error(`corpus is not on loopback: ${this.url}`);
    this.startedHere = !running;
    this.pages = Number(execFileSync(this.script, ['pages'], { encoding: 'utf8' }).trim());
    return this;
  }

  /** CPU seconds nginx (master and workers) has used so far, or 0 if unknown. */
  serverCpuSeconds() {
    const run = process.env.CORPUS_RUN ?? '/tmp/collector-corpus';
    try {
      const master = Number(readFileSync(path.join(run, 'nginx.pid'), 'utf8').trim());
      return [master, ...childPids(master)].reduce((sum, pid) => sum + processCpuSeconds(pid), 0);
    } catch {
      return 0;
    }
  }

  /**
   * CPU seconds the nginx worker processes (children of the master in nginx.pid) have used so
   * far, and how many workers there are; { seconds: 0, workers: 0 } if unknown.
   */
  workerCpuSeconds() {
    const run = process.env.CORPUS_RUN ?? '/tmp/collector-corpus';
    try {
      const master = Number(readFileSync(path.join(run, 'nginx.pid'), 'utf8').trim());
      const workers = childPids(master);
      return {
        seconds: workers.reduce((sum, pid) => sum + processCpuSeconds(pid), 0),
        workers: workers.length,
      };
    } catch {
      return { seconds: 0, workers: 0 };
    }
  }

  stop() {
    if (this.startedHere) execFileSync(this.script, ['stop'], { stdio: 'ignore' });
  }

  /** Every page's URL (as nginx serves them) plus the directory URL itself. */
  urls() {
    const files = readdirSync(DOCS_DIR, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.html'))
      .sort();
    return [
      this.url,
      ...files.map((f) => new URL(f.split(path.sep).map(encodeURIComponent).join('/'), this.url).href),
    ];
  }
}

/** utime + stime of a process from /proc/<pid>/stat (USER_HZ = 100), 0 if it is gone. */
function processCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

function childPids(pid) {
  const kids = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) kids.push(Number(name));
    } catch {
      // exited while scanning
    }
  }
  return kids;
}
