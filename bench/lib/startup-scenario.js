/**
 * The `startup` scenario (issue 31): the time from spawning `collector crawl` to the first request
 * reaching a server on 127.0.0.1 (its robots.txt), as users start it (the bin run as a program:
 * /bin/sh, then node with the bin's flags). Each run crawls a server that answers 404 to
 * everything, so the crawl ends at once. `node -e` making one request is run in turn with it, as
 * the floor: what Node itself takes to start and send a request on this machine, at the same time.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

/** Target of issue 31: spawn to first request, ms. */
const TARGET_MS = 80;

/**
 * ms from spawning `argv` to the first request the server sees (`arrive` is set for it), after
 * which the command is waited for; `out`, when given, is appended to the argv and removed after.
 */
async function timeToFirstRequest(argv, server, out) {
  const first = new Promise((resolve) => {
    server.arrive = resolve;
  });
  const t0 = performance.now();
  const child = spawn(argv[0], out === null ? argv.slice(1) : [...argv.slice(1), out], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise((resolve) => child.on('close', resolve));
  const at = await Promise.race([first, exited.then(() => null)]);
  await exited;
  server.arrive = null;
  if (at === null) throw new Error(`${argv[0]} made no request: ${stderr.trim().slice(-300)}`);
  return at - t0;
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[s.length >> 1], min: s[0], max: s.at(-1) };
};

export const startup = {
  name: 'startup',
  kind: 'custom',
  head: ['scenario', 'runs', 'spawn → first request ms: median', 'min', 'max', 'target', 'verdict', 'detail'],
  async run(ctx) {
    const runs = ctx.opts.startupRuns;
    const state = { arrive: null };
    const server = http.createServer((_req, res) => {
      state.arrive?.(performance.now());
      state.arrive = null;
      res.writeHead(404).end();
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${server.address().port}/`;
    const crawl = [ctx.cli, 'crawl', url, '--quiet', '--processes', '1', '--out'];
    const floor = [process.execPath, '-e', 'require("http").get(process.argv[1]).on("error", () => {})', url];
    const times = { crawl: [], floor: [] };
    try {
      for (let r = 0; r < runs; r++) {
        const dir = mkdtempSync(path.join(ctx.outDir('tmpfs'), 'startup-'));
        try {
          times.crawl.push(await timeToFirstRequest(crawl, state, path.join(dir, 'out')));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
        times.floor.push(await timeToFirstRequest(floor, state, null));
      }
    } finally {
      server.close();
    }
    const c = stats(times.crawl);
    const f = stats(times.floor);
    const ms = (x) => x.toFixed(0);
    ctx.log(
      `  startup: collector crawl ${ms(c.median)} ms (${ms(c.min)}–${ms(c.max)}), node alone ${ms(f.median)} ms`,
    );
    return {
      rows: [
        [
          'startup',
          String(runs),
          ms(c.median),
          ms(c.min),
          ms(c.max),
          `≤ ${TARGET_MS}`,
          c.median <= TARGET_MS ? 'ok' : 'over',
          `\`collector crawl <a 404 site> --processes 1\` run as a program; load ${os.loadavg()[0].toFixed(1)}`,
        ],
        [
          'startup floor',
          String(runs),
          ms(f.median),
          ms(f.min),
          ms(f.max),
          '—',
          '—',
          '`node -e` sending one request, run in turn with the crawl',
        ],
      ],
      notes: [],
      warnings: [],
      raw: times,
    };
  },
};
