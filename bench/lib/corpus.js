/**
 * A documentation corpus served by nginx on loopback for the benchmarks: start its server
 * (stopping it afterwards only if this bench started it), its URL, page count and URL list, and
 * the CPU its nginx has used. Two corpora: the PostgreSQL docs (small pages), served by
 * ../shared/corpus/serve.sh, and the Python docs (large pages), served by bench/lib/docs-server.js.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DocsServer } from './docs-server.js';

/** Where serve.sh serves the PostgreSQL docs from (fixed in serve.sh and nginx.conf.in). */
export const DOCS_DIR = '/usr/share/doc/postgresql-doc-15/html';
/** The Python 3.11 HTML docs (Debian package python3-doc): 530 pages, 93 KB mean. */
export const PY_DOCS_DIR = '/usr/share/doc/python3.11/html';

export class Corpus {
  /**
   * @param {{ docsDir: string, prefix: string, runDir: string, script?: string, port?: number,
   *   packages?: string[] }} o  docsDir: the directory served under `prefix` (e.g. '/pg/');
   *   runDir: the server's run directory (nginx.pid is read there for the CPU figures). With
   *   `script`, a serve.sh-style script (start | stop | status | pages; `start` prints the URL)
   *   runs the server; without, a {@link DocsServer} on 127.0.0.1:`port` installing `packages`.
   */
  constructor({ docsDir, prefix, runDir, script, port, packages = [] }) {
    this.docsDir = docsDir;
    this.runDir = runDir;
    this.script = script;
    this.server = script ? null : new DocsServer({ docsDir, prefix, port, runDir, packages });
    this.startedHere = false;
    this.url = '';
    this.pages = 0;
  }

  /**
   * Start the server unless it runs; set `url` and `pages` (HTML files under docsDir).
   * @returns {this}
   * @throws Error when the script is missing, the server does not start or is not on loopback.
   */
  start() {
    if (this.server) {
      this.startedHere = this.server.start();
      this.url = this.server.url;
      this.pages = this.htmlFiles().length;
    } else {
      this.startScript();
    }
    const host = new URL(this.url).hostname;
    if (!host.startsWith('127.')) throw new Error(`corpus is not on loopback: ${this.url}`);
    return this;
  }

  startScript() {
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
    this.startedHere = !running;
    this.pages = Number(execFileSync(this.script, ['pages'], { encoding: 'utf8' }).trim());
  }

  /** CPU seconds nginx (master and workers) has used so far, or 0 if unknown. */
  serverCpuSeconds() {
    try {
      const master = this.masterPid();
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
    try {
      const workers = childPids(this.masterPid());
      return {
        seconds: workers.reduce((sum, pid) => sum + processCpuSeconds(pid), 0),
        workers: workers.length,
      };
    } catch {
      return { seconds: 0, workers: 0 };
    }
  }

  /** The nginx master's PID from <runDir>/nginx.pid. @throws Error if unreadable. */
  masterPid() {
    return Number(readFileSync(path.join(this.runDir, 'nginx.pid'), 'utf8').trim());
  }

  /** Stop the server, only if start() started it. */
  stop() {
    if (!this.startedHere) return;
    if (this.server) this.server.stop();
    else execFileSync(this.script, ['stop'], { stdio: 'ignore' });
    this.startedHere = false;
  }

  /** Every page's URL (as nginx serves them) plus the directory URL itself. */
  urls() {
    return [
      this.url,
      ...this.htmlFiles().map(
        (f) => new URL(f.split(path.sep).map(encodeURIComponent).join('/'), this.url).href,
      ),
    ];
  }

  /** Paths of the *.html files under docsDir, relative to it, sorted. */
  htmlFiles() {
    return readdirSync(this.docsDir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.html'))
      .sort();
  }
}

/**
 * The PostgreSQL 15 docs (~1,170 small pages) at http://127.0.0.1:8081/pg/, served by serve.sh
 * ($COLLECTOR_CORPUS_SERVE overrides its path; $CORPUS_RUN and $CORPUS_PORT are serve.sh's).
 * @param {string} root the project directory (serve.sh is at ../shared/corpus/).
 */
export function pgCorpus(root) {
  return new Corpus({
    docsDir: DOCS_DIR,
    prefix: '/pg/',
    runDir: process.env.CORPUS_RUN ?? '/tmp/collector-corpus',
    script: process.env.COLLECTOR_CORPUS_SERVE ?? path.resolve(root, '../shared/corpus/serve.sh'),
  });
}

/**
 * The Python 3.11 docs (530 pages, up to 2.5 MB) at http://127.0.0.1:8083/py/, nginx run from
 * /tmp/collector-pycorpus ($PYCORPUS_PORT and $PYCORPUS_RUN override them).
 */
export function pyCorpus() {
  return new Corpus({
    docsDir: PY_DOCS_DIR,
    prefix: '/py/',
    runDir: process.env.PYCORPUS_RUN ?? '/tmp/collector-pycorpus',
    port: Number(process.env.PYCORPUS_PORT ?? 8083),
    packages: ['python3-doc'],
  });
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
