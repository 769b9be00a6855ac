import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemCount, readItems, runCli, startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { type FixtureServer, page, startServer } from '../fixtures/site-server.js';
import { testSource } from '../fixtures/test-sources.js';

// Four hosts (127.0.0.1–127.0.0.4 are all loopback); page i on host h links to pages on the
// other hosts, so most links are owned by another process and must be handed off.
const HOSTS = ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4'];
const PER_HOST = 60;
let servers: FixtureServer[] = [];
let delayMs = 3;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) Z /.test(stat); // a zombie counts as gone only once reaped; report it as alive
  } catch {
    return false;
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(d));
    } catch {
      // gone
    }
  }
  return out;
}

beforeAll(async () => {
  servers = await Promise.all(
    HOSTS.map((host, h) =>
      startServer(
        {},
        (req, res) => {
          const m = /^\/p(\d+)\.html$/.exec(req.url ?? '');
          if (!m) {
            res.writeHead(404);
            res.end();
            return;
          }
          const i = Number(m[1]);
          const links = [1, 2, 3].map((k) => {
            const other = servers[(h + k) % HOSTS.length];
            return `${other.origin}/p${(i * 7 + k) % PER_HOST}.html`;
          });
          links.push(`p${(i + 1) % PER_HOST}.html`);
          setTimeout(() => {
            res.writeHead(200, { 'content-type': 'text/html' });
            res.end(page(`${host} ${i}`, links));
          }, delayMs);
        },
        host,
      ),
    ),
  );
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const allUrls = () =>
  servers.flatMap((s) => Array.from({ length: PER_HOST }, (_, i) => `${s.origin}/p${i}.html`));
const args = (out: string, n = 4) => [
  'crawl',
  `${servers[0].origin}/p0.html`,
  '--processes',
  String(n),
  '--partition',
  'host',
  '--scope',
  'any',
  '--delay',
  '0',
  '--no-robots',
  '--quiet',
  '--out',
  out,
];

function requestsSince(marks: number[]): string[] {
  return servers.flatMap((s, h) => s.requests.slice(marks[h]).map((r) => `${s.origin}${r.path}`));
}

describe('supervisor: N worker processes', () => {
  it('4 processes over 4 hosts fetch every URL exactly once (server logs) and write it once', async () => {
    const out = tempDir();
    const marks = servers.map((s) => s.requests.length);
    const r = await runCli(args(out));
    expect(r.code).toBe(0);
    const fetched = requestsSince(marks);
    expect(fetched.sort()).toEqual(allUrls().sort());
    const items = readItems(out);
    expect(items.map((i) => i.url).sort()).toEqual(allUrls().sort());
    // ownership by host: each host's URLs are all in one worker's items
    for (const s of servers) {
      const workers = new Set(items.filter((i) => i.url.startsWith(s.origin)).map((i) => i.worker));
      expect(workers.size).toBe(1);
    }
    expect(fs.readdirSync(path.join(out, 'items')).sort()).toEqual(
      [0, 1, 2, 3].map((i) => `crawl-${i}.jsonl`),
    );
    const status = JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8'));
    expect(status.state).toBe('finished');
    expect(status.totals.items).toBe(HOSTS.length * PER_HOST);
    expect(status.workers).toHaveLength(4);
    expect(status.workers.map((w: { restarts: number }) => w.restarts)).toEqual([0, 0, 0, 0]);
    // ended: no worker fetches any more
    expect(status.totals.pagesPerSec).toBe(0);
    expect(status.workers.map((w: { pagesPerSec: number }) => w.pagesPerSec)).toEqual([0, 0, 0, 0]);
  });

  it('spills to disk past a 10-URL memory budget and still fetches every URL exactly once', async () => {
    const out = tempDir();
    const marks = servers.map((s) => s.requests.length);
    const r = await runCli([...args(out), '--max-queued-in-memory', '10']);
    expect(r.code).toBe(0);
    expect(requestsSince(marks).sort()).toEqual(allUrls().sort());
    expect(
      readItems(out)
        .map((i) => i.url)
        .sort(),
    ).toEqual(allUrls().sort());
  });

  it('resumes with the recorded process layout, and refuses a different one', async () => {
    const out = tempDir();
    const first = await runCli([...args(out, 2).filter((a) => a !== '--quiet'), '--max-pages', '40']);
    expect(first.code).toBe(0);
    // the summary says the page budget ended it, and how it was split (issue 30)
    expect(first.stderr).toMatch(
      /\d+ queued \(stopped: --max-pages 40 reached \(20 per process over 2 processes: each stops at its share\); --resume with a larger --max-pages or none continues\), 2 processes/,
    );
    const before = fs.readFileSync(path.join(out, 'items', 'crawl-0.jsonl'));
    const other = await runCli([...args(out, 4), '--resume']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /this crawl was written with --processes 2 --partition host; resume with the same/,
    );
    expect(fs.readFileSync(path.join(out, 'items', 'crawl-0.jsonl')).equals(before)).toBe(true);
    // no --processes: the recorded 2 are used
    const again = await runCli([
      'crawl',
      '--resume',
      '--out',
      out,
      '--scope',
      'any',
      '--delay',
      '0',
      '--no-robots',
      '--quiet',
    ]);
    expect(again.code).toBe(0);
    expect(fs.readdirSync(path.join(out, 'items')).sort()).toEqual(['crawl-0.jsonl', 'crawl-1.jsonl']);
    expect(
      readItems(out)
        .map((i) => i.url)
        .sort(),
    ).toEqual(allUrls().sort());
  });

  it('a worker killed with -9 mid-crawl is restarted, resumes, and every URL is still written once', async () => {
    delayMs = 15;
    try {
      const out = tempDir();
      const child = startCli(args(out));
      const exited = waitExit(child);
      await waitFor(() => itemCount(out) >= 40);
      const status = JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8'));
      const victim = status.workers.find((w: { pid: number | null }) => w.pid !== null);
      process.kill(victim.pid, 'SIGKILL');
      const r = await exited;
      expect(r.code).toBe(0);
      const urls = readItems(out).map((i) => i.url);
      expect(urls.sort()).toEqual(allUrls().sort());
      const final = JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8'));
      expect(final.workers.find((w: { id: string }) => w.id === victim.id).restarts).toBeGreaterThanOrEqual(
        1,
      );
    } finally {
      delayMs = 3;
    }
  });

  it('SIGTERM: every process gone within the join timeout, state flushed, no zombies', async () => {
    delayMs = 30;
    try {
      const out = tempDir();
      const child = startCli(args(out));
      const exited = waitExit(child);
      await waitFor(() => itemCount(out) >= 20);
      const workers = childrenOf(child.pid as number);
      expect(workers.length).toBeGreaterThanOrEqual(4);
      child.kill('SIGTERM');
      const r = await exited;
      expect(r.code).toBe(0);
      for (const pid of workers) expect(alive(pid)).toBe(false);
      // each worker stopped by itself (exit 0), none was killed at the join timeout: the decision,
      // read from the supervisor's log rather than from how long it took on a busy machine
      const exits = fs
        .readFileSync(path.join(out, 'logs', 'supervisor.log'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .filter((e) => e.msg === 'worker exited');
      expect(exits.map((e) => [e.code, e.signal])).toEqual([0, 1, 2, 3].map(() => [0, null]));
      const got = readItems(out).map((i) => i.url);
      expect(new Set(got).size).toBe(got.length);
      // Resume finishes the crawl, still exactly once.
      const r2 = await runCli([...args(out), '--resume']);
      expect(r2.code).toBe(0);
      expect(
        readItems(out)
          .map((i) => i.url)
          .sort(),
      ).toEqual(allUrls().sort());
      const status = JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8'));
      expect(status.workers.map((w: { restarts: number }) => w.restarts)).toEqual([0, 0, 0, 0]);
    } finally {
      delayMs = 3;
    }
  });

  it('workers exit by themselves when the supervisor is killed', async () => {
    delayMs = 30;
    try {
      const out = tempDir();
      const child = startCli(args(out));
      const exited = waitExit(child);
      // The workers share the supervisor's stderr: whatever they print after it died lands here.
      let stderr = '';
      child.stderr?.on('data', (d) => {
        stderr += d;
      });
      await waitFor(() => itemCount(out) >= 10);
      const workers = childrenOf(child.pid as number);
      expect(workers.length).toBeGreaterThanOrEqual(4);
      child.kill('SIGKILL');
      await exited;
      await waitFor(() => workers.every((p) => !alive(p)));
      await new Promise((r) => setTimeout(r, 100));
      // No stack trace from a send or disconnect on the closed channel.
      expect(stderr).not.toMatch(/ERR_IPC|EPIPE|\n\s+at /);
    } finally {
      delayMs = 3;
    }
  });
});

describe('memory plan: measured peak and heap cap', () => {
  const MB = 1024 * 1024;
  const rssFile = (out: string) => path.join(out, 'state', 'worker-rss.json');

  it("caps each worker's V8 old space at its share of the budget", async () => {
    delayMs = 30;
    try {
      const out = tempDir();
      // 2 GiB × 0.8 shared by 2 workers: 819 MB each
      const child = startCli([...args(out, 2), '--host-concurrency', '1', '--memory-limit', '2G']);
      const exited = waitExit(child);
      await waitFor(() => {
        try {
          const st = JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8'));
          return st.workers.length === 2 && st.workers.every((w: { pid: number | null }) => w.pid !== null);
        } catch {
          return false;
        }
      });
      const status = JSON.parse(fs.readFileSync(path.join(out, 'status.json'), 'utf8'));
      const flags = status.workers.map((w: { pid: number }) =>
        fs
          .readFileSync(`/proc/${w.pid}/cmdline`, 'utf8')
          .split('\0')
          .filter((a) => a.startsWith('--max-old-space-size=')),
      );
      expect(flags).toEqual([['--max-old-space-size=819'], ['--max-old-space-size=819']]);
      expect((await exited).code).toBe(0);
    } finally {
      delayMs = 3;
    }
  });

  it('records the peak worker memory measured, and the next plan of that data dir is checked with it', async () => {
    // 30 pages a host at 100 ms each: ~3 s, several of the memory guard's samples (one a second)
    // however fast the machine
    delayMs = 100;
    try {
      const out = tempDir();
      // long enough for the memory guard's samples (one a second)
      const first = await runCli([...args(out, 2), '--host-concurrency', '1', '--max-pages', '120']);
      expect(first.code).toBe(0);
      const measured = JSON.parse(fs.readFileSync(rssFile(out), 'utf8'));
      // a node worker's PSS: more than 16 MB, far less than 1 GB
      expect(measured.peakWorkerRss).toBeGreaterThan(16 * MB);
      expect(measured.peakWorkerRss).toBeLessThan(1024 * MB);
      expect(Number.isNaN(Date.parse(measured.at))).toBe(false);
      const before = fs.readFileSync(path.join(out, 'items', 'crawl-0.jsonl'));

      // A big measured peak refuses a plan the default estimate (56 MB a worker) would allow...
      const resume = (limit: string) => runCli([...args(out, 2), '--resume', '--memory-limit', limit]);
      fs.writeFileSync(rssFile(out), JSON.stringify({ peakWorkerRss: 900 * MB }));
      const big = await resume('2G');
      expect(big.code).toBe(2);
      expect(big.stderr).toMatch(/plan of 2 processes needs about 19\d\d MB/);
      expect(fs.readFileSync(path.join(out, 'items', 'crawl-0.jsonl')).equals(before)).toBe(true);
      // ...and a small one allows a plan the default estimate refuses (224 MB over 80% of 250 MB).
      fs.rmSync(rssFile(out));
      const unmeasured = await resume('250MB');
      expect(unmeasured.code).toBe(2);
      expect(unmeasured.stderr).toMatch(/plan of 2 processes needs about 2\d\d MB/);
      fs.writeFileSync(rssFile(out), JSON.stringify({ peakWorkerRss: 30 * MB }));
      expect((await resume('250MB')).code).toBe(0);
      expect(
        readItems(out)
          .map((i) => i.url)
          .sort(),
      ).toEqual(allUrls().sort());
    } finally {
      delayMs = 3;
    }
  });
});

describe('memory guard', () => {
  it('refuses a plan over the memory budget, naming the largest safe process count', async () => {
    const out = tempDir();
    const r = await runCli([...args(out, 8), '--memory-limit', '400MB']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/largest safe process count is \d+/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.existsSync(path.join(out, 'items'))).toBe(false);
  });

  it('recycles a worker that grows past the budget, and the crawl still completes', async () => {
    delayMs = 10;
    try {
      const dir = tempDir();
      const config = path.join(dir, 'collector.yaml');
      fs.writeFileSync(
        config,
        [
          `data: ${path.join(dir, 'data')}`,
          'workers:',
          `  - source: ${testSource('memory-hog')}`,
          '    processes: 2',
          '    concurrency: 4',
          '    scope: any',
          '    delay: 0',
          '    robots: false',
          `    seeds: ["${servers[0].origin}/p0.html"]`,
          '',
        ].join('\n'),
      );
      const r = await runCli(['run', '--config', config, '--memory-limit', '600MB', '--quiet'], {
        COLLECTOR_HOG_MB: '8',
      });
      expect(r.code).toBe(0);
      const log = fs.readFileSync(path.join(dir, 'data', 'logs', 'supervisor.log'), 'utf8');
      expect(log).toMatch(/memory over budget: paused/);
      expect(log).toMatch(/recycled by the memory guard/);
      const urls = readItems(path.join(dir, 'data')).map((i) => i.url);
      expect(urls.sort()).toEqual(allUrls().sort());
    } finally {
      delayMs = 3;
    }
  });
});
