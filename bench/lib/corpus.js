/**
 * The PostgreSQL-docs corpus served by nginx on loopback (../shared/corpus/serve.sh): start it
 * (stopping it afterwards only if this bench started it), its URL, page count and URL list.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
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
    const out = execFileSync(this.script, ['start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    const m = /(http:\/\/\S+)/.exec(out);
    if (!m) throw new Error(`serve.sh start printed no URL: ${out}`);
    this.url = m[1];
    const host = new URL(this.url).hostname;
    if (!host.startsWith('127.')) throw new Error(`corpus is not on loopback: ${this.url}`);
    this.startedHere = !running;
    this.pages = Number(execFileSync(this.script, ['pages'], { encoding: 'utf8' }).trim());
    return this;
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
    return [this.url, ...files.map((f) => new URL(f.split(path.sep).map(encodeURIComponent).join('/'), this.url).href)];
  }
}
