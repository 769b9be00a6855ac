/**
 * The status page in a real browser (headless Chromium): served by a running collector at `/`,
 * self-contained (no request leaves the collector's address), rendering the worker table and the
 * three charts; its numbers agree with `/metrics`. A screenshot is taken (set
 * UPDATE_SCREENSHOT=1 to refresh docs/status-page.png for docs/operating.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from '../fixtures/chromium.js';
import { startCli, tempDir, waitExit, waitFor } from '../fixtures/cli.js';
import { freePort, readStatus, stopRecordedCollector } from '../fixtures/ops.js';
import { parsePrometheusText } from '../fixtures/prometheus-text.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

const PAGES = 60;
const chromium = chromiumPath();
let site: FixtureServer;

beforeAll(async () => {
  site = await startServer({}, (req, res) => {
    const m = /^\/p(\d+)\.html$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<title>missing</title>');
      return;
    }
    const i = Number(m[1]);
    const links = [`p${(i + 1) % PAGES}.html`, `p${(i * 5 + 2) % PAGES}.html`];
    if (i % 20 === 0) links.push(`gone${i}.html`);
    html(page(`page ${i}`, links, 'x'.repeat(20_000)))(req, res);
  });
});

afterAll(async () => {
  await site.close();
});

describe.skipIf(!chromium)('status page in headless Chromium', () => {
  let data = '';
  afterAll(async () => {
    if (data) await stopRecordedCollector(data);
  });

  it('shows every worker and the three charts, with the numbers /metrics gives', async () => {
    const dir = tempDir();
    data = path.join(dir, 'data');
    const port = await freePort();
    const config = path.join(dir, 'collector.yaml');
    fs.writeFileSync(
      config,
      [
        `data: ${data}`,
        `metrics: { listen: 127.0.0.1:${port}, sample: 500ms }`,
        'workers:',
        '  - name: docs',
        '    source: crawl',
        '    processes: 2',
        '    delay: 80ms',
        '    interval: 1h',
        `    seeds: [${site.origin}/p0.html]`,
        '',
      ].join('\n'),
    );
    const run = startCli(['run', '--config', config, '--quiet']);
    const exited = waitExit(run);
    const expected = PAGES + 3; // the pages and three missing ones
    await waitFor(() => {
      const s = readStatus(data);
      return s?.totals?.items === expected && s.workers.every((w: any) => w.state === 'idle');
    }, 60_000);
    const base = `http://127.0.0.1:${port}`;
    // The data size is walked in the background, spaced by 50× the last walk's time: on a loaded
    // machine the first walk (of an empty dir, at start) can be the last one for a while.
    const sized = async () =>
      parsePrometheusText(await (await fetch(`${base}/metrics`)).text()).sum('collector_data_bytes') > 0;
    for (const end = Date.now() + 120_000; !(await sized()); ) {
      if (Date.now() > end) throw new Error('the data size was never measured above 0');
      await new Promise((r) => setTimeout(r, 200));
    }
    // One more history sample after the last item, so the charts end where the counts do.
    await new Promise((r) => setTimeout(r, 1200));
    const { browser, close } = await launchChromium();
    try {
      const tab = await browser.newPage();
      await tab.setViewport({ width: 1280, height: 760 });
      const foreign: string[] = [];
      tab.on('request', (r) => {
        if (!r.url().startsWith(base)) foreign.push(r.url());
      });
      await tab.goto(`${base}/`, { waitUntil: 'load' });
      await tab.waitForSelector('body[data-loaded]', { timeout: 60_000 });
      await tab.waitForSelector('#workers tbody tr');
      // Read in the page (a string: the tests are typed without the DOM library).
      const shown = (await tab.evaluate(`(() => ({
        verdict: document.getElementById('verdict').textContent,
        items: Number(document.getElementById('total-items').textContent),
        errors: Number(document.getElementById('total-errors').textContent),
        up: document.getElementById('workers-up').textContent,
        rows: [...document.querySelectorAll('#workers tbody tr')].map((tr) => ({
          id: tr.dataset.worker,
          items: Number(tr.querySelector('td.items').textContent),
          errors: Number(tr.querySelector('td.errors').textContent),
        })),
        charts: document.querySelectorAll('.chart .uplot canvas').length,
        external: document.querySelectorAll('script[src], link[href], img[src]').length,
        dataSize: document.getElementById('data-size').textContent,
      }))()`)) as Record<string, any>;
      const m = parsePrometheusText(await (await fetch(`${base}/metrics`)).text());
      expect(shown.verdict).toBe('healthy');
      expect(shown.items).toBe(expected);
      expect(shown.items).toBe(m.sum('collector_worker_items'));
      expect(shown.errors).toBe(3);
      expect(shown.errors).toBe(m.sum('collector_errors_total'));
      expect(shown.up).toBe(`${m.sum('collector_workers_up')}/${m.sum('collector_workers_expected')}`);
      expect(shown.rows.map((r: any) => r.id).sort()).toEqual(['docs-0', 'docs-1']);
      for (const r of shown.rows) {
        expect(r.items).toBe(m.sum('collector_worker_items', { worker: r.id as string }));
      }
      expect(shown.rows.reduce((a: number, r: any) => a + r.errors, 0)).toBe(3);
      expect(shown.charts).toBe(3);
      expect(shown.external).toBe(0);
      expect(shown.dataSize).not.toBe('0.0 MB');
      expect(foreign).toEqual([]);
      const shot = path.join(dir, 'status-page.png');
      await tab.screenshot({ path: shot as `${string}.png`, fullPage: true });
      const png = fs.readFileSync(shot);
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(png.length).toBeGreaterThan(10_000);
      if (process.env.UPDATE_SCREENSHOT === '1') {
        fs.copyFileSync(shot, path.resolve(import.meta.dirname, '../../docs/status-page.png'));
      }
      // Without the token a non-loopback server would refuse; on loopback the page needs none.
      expect((await fetch(`${base}/nothing-here`)).status).toBe(404);
    } finally {
      await close();
      await stopRecordedCollector(data);
      await exited;
    }
  });
});

it.skipIf(chromium)(
  'status page test skipped: chromium is not installed (apt-get install chromium; .ci/run does)',
  () => {},
);
