/**
 * Serve a documentation directory on loopback with Debian's nginx for the benchmarks, with the
 * settings of ../shared/corpus/nginx.conf.in (1 worker, gzip level 1, sendfile, keepalive,
 * open_file_cache, access log): write the configuration into a run directory under /tmp, start
 * nginx, tell whether it runs, stop it by the PID in <run>/nginx.pid. Installs nginx and the docs'
 * Debian package with apt-get when missing, as serve.sh does. Used for the Python docs
 * (bench/lib/corpus.js); the PostgreSQL docs keep ../shared/corpus/serve.sh.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The nginx configuration: one server on 127.0.0.1:port, `prefix` (e.g. '/py/') aliased to
 * `docsDir`, `/` redirected to it. Same directives as ../shared/corpus/nginx.conf.in.
 * @param {{ runDir: string, port: number, prefix: string, docsDir: string }} o
 * @returns {string}
 */
export function nginxConf({ runDir, port, prefix, docsDir }) {
  return `# Written by bench/lib/docs-server.js: ${docsDir} on 127.0.0.1:${port}${prefix}
user www-data;
worker_processes 1;            # leave the other core to the crawler being measured
pid ${runDir}/nginx.pid;
error_log ${runDir}/error.log warn;
events { worker_connections 4096; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    client_body_temp_path ${runDir}/client_body;
    proxy_temp_path       ${runDir}/proxy;
    fastcgi_temp_path     ${runDir}/fastcgi;
    uwsgi_temp_path       ${runDir}/uwsgi;
    scgi_temp_path        ${runDir}/scgi;
    log_format corpus '$msec $status $body_bytes_sent "$request" ua="$http_user_agent"';
    access_log ${runDir}/access.log corpus buffer=256k flush=1s;
    sendfile on;
    tcp_nodelay on;
    keepalive_timeout 65s;
    keepalive_requests 1000000;
    open_file_cache max=10000 inactive=120s;
    gzip on;
    gzip_vary on;
    gzip_comp_level 1;
    server {
        listen 127.0.0.1:${port};
        location = / { return 302 ${prefix}; }
        location ${prefix} { alias ${docsDir}/; }
    }
}
`;
}

/** nginx serving one docs directory; `url` is set by start(). */
export class DocsServer {
  /**
   * @param {{ docsDir: string, prefix: string, port: number, runDir: string, packages: string[] }} o
   *   docsDir: absolute path served; prefix: URL path, '/' at both ends; port: TCP port on
   *   127.0.0.1; runDir: where the configuration, nginx.pid and the logs go; packages: the
   *   Debian packages providing docsDir (installed with nginx when missing).
   */
  constructor({ docsDir, prefix, port, runDir, packages }) {
    if (!/^\/[\w-]+\/$/.test(prefix)) throw new Error(`docs server prefix must look like /name/: ${prefix}`);
    if (!(Number.isInteger(port) && port > 0 && port < 65536))
      throw new Error(`docs server port must be an integer in 1–65535 (e.g. $PYCORPUS_PORT): ${port}`);
    Object.assign(this, { docsDir, prefix, port, runDir, packages });
    this.pidFile = path.join(runDir, 'nginx.pid');
    this.url = `http://127.0.0.1:${port}${prefix}`;
  }

  /** PID of the nginx master in <run>/nginx.pid if that process runs and is nginx, else null. */
  pid() {
    try {
      const pid = Number(readFileSync(this.pidFile, 'utf8').trim());
      if (!(pid > 0)) return null;
      // "<pid> (nginx) <state> …"; a zombie (state Z) has exited
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return /^\d+ \(nginx\) [^Z]/.test(stat) ? pid : null;
    } catch {
      return null;
    }
  }

  /**
   * Start nginx unless the one of this run directory already runs (then `url` takes its port).
   * @returns {boolean} true if this call started it.
   * @throws Error when nginx or the docs cannot be installed, the configuration is refused or
   *   nginx does not come up within 5 s (e.g. the port is taken; the message names error.log).
   */
  start() {
    if (this.pid()) {
      // started earlier (by another bench run) from this run directory: use the port it listens on
      const conf = readFileSync(path.join(this.runDir, 'nginx.conf'), 'utf8');
      const port = /listen 127\.0\.0\.1:(\d+);/.exec(conf)?.[1];
      if (port) this.url = `http://127.0.0.1:${port}${this.prefix}`;
      return false;
    }
    this.installMissing();
    mkdirSync(this.runDir, { recursive: true });
    const conf = path.join(this.runDir, 'nginx.conf');
    writeFileSync(conf, nginxConf(this));
    const args = ['-p', `${this.runDir}/`, '-c', conf, '-e', path.join(this.runDir, 'error.log')];
    try {
      execFileSync('nginx', ['-t', '-q', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
      execFileSync('nginx', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      const why = String(e.stderr ?? e.message)
        .trim()
        .split('\n')
        .pop();
      throw new Error(
        `nginx did not start for ${this.url}: ${why} (a port taken? see ${this.runDir}/error.log)`,
      );
    }
    for (let i = 0; i < 50 && !this.pid(); i++) execFileSync('sleep', ['0.1']);
    if (!this.pid()) throw new Error(`nginx did not start for ${this.url}; see ${this.runDir}/error.log`);
    return true;
  }

  /** Stop the nginx of this run directory (graceful QUIT to its PID; waits up to 5 s). */
  stop() {
    const pid = this.pid();
    if (!pid) return;
    process.kill(pid, 'SIGQUIT');
    for (let i = 0; i < 50 && this.pid() === pid; i++) execFileSync('sleep', ['0.1']);
  }

  /** apt-get install nginx and the docs package when missing (needs root and network once). */
  installMissing() {
    const need = [];
    try {
      execFileSync('sh', ['-c', 'command -v nginx'], { stdio: 'ignore' });
    } catch {
      need.push('nginx');
    }
    if (!existsSync(this.docsDir)) need.push(...this.packages);
    if (!need.length) return;
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    execFileSync('apt-get', ['install', '-y', '-qq', ...need], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env,
    });
    if (!existsSync(this.docsDir))
      throw new Error(`${this.docsDir} is missing after installing ${need.join(' ')}`);
  }
}
