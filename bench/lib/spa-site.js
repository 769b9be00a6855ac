#!/usr/bin/env node
/**
 * A single-page application and a plain site beside it, for the render benchmark. The app
 * (127.0.0.1, its own port) serves the same shell for every `/app/p/<i>` (i in 0..N-1): an empty
 * `<div id="root">`, a `<noscript>` asking for JavaScript and one script, whose router fetches
 * `/api/page?i=<i>` (JSON: title, a paragraph, links to pages i+1 … i+4) and writes them into the
 * DOM. The plain site (another port) serves --plain-pages server-rendered pages `/plain/<i>` with the same
 * kind of text and links, and one small inline script (no rule takes them for an app).
 *
 *   node bench/lib/spa-site.js [--pages 200] [--plain-pages N (default: --pages)] [--max-seconds 300]
 *
 * Forked with IPC: sends { t: 'ready', app, plain } (origins). Exits when the parent disconnects,
 * on SIGTERM, or after --max-seconds.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '200' },
    'plain-pages': { type: 'string' },
    'max-seconds': { type: 'string', default: '300' },
  },
});
const PAGES = Number(values.pages);
const PLAIN_PAGES = Number(values['plain-pages'] ?? values.pages);
if (!(PAGES >= 1) || !(PLAIN_PAGES >= 1)) throw new Error('--pages and --plain-pages must be ≥ 1');

const SHELL =
  '<!doctype html><html><head><meta charset="utf-8"><title>Loading…</title>' +
  '<script src="/assets/app.js" defer></script></head>' +
  '<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>';

const APP_JS = `
(async () => {
  const i = Number(location.pathname.split('/').pop());
  const d = await (await fetch('/api/page?i=' + i)).json();
  document.title = d.title;
  document.getElementById('root').innerHTML = '<article><h1>' + d.title + '</h1><p>' + d.text + '</p></article><nav>' +
    d.links.map((l) => '<a href="' + l + '">' + l + '</a>').join(' ') + '</nav>';
})();
`;

const TEXT = 'Rendering reads what the scripts write into the page, links and text alike. '.repeat(10);
const next = (prefix, i, pages) =>
  [1, 2, 3, 4]
    .map((k) => i + k)
    .filter((j) => j < pages)
    .map((j) => `${prefix}${j}`);

function listen(handler) {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 5000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const app = await listen((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/assets/app.js') {
    res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'max-age=3600' });
    res.end(APP_JS);
  } else if (url.pathname === '/api/page') {
    const i = Number(url.searchParams.get('i'));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ title: `App page ${i}`, text: TEXT, links: next('/app/p/', i, PAGES) }));
  } else if (/^\/app\/p\/\d+$/.test(url.pathname)) {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(SHELL);
  } else {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  }
});

const plain = await listen((req, res) => {
  const m = /^\/plain\/(\d+)$/.exec(req.url ?? '');
  if (!m) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
    return;
  }
  const i = Number(m[1]);
  if (i >= PLAIN_PAGES) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
    return;
  }
  const links = next('/plain/', i, PLAIN_PAGES)
    .map((l) => `<a href="${l}">${l}</a>`)
    .join(' ');
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    `<!doctype html><html><head><title>Plain page ${i}</title><script>window.dataLayer = [];</script></head>` +
      `<body><article><h1>Plain page ${i}</h1><p>${TEXT}</p></article><nav>${links} <a href="#a">a</a> <a href="#b">b</a> <a href="#c">c</a></nav></body></html>`,
  );
});

const origin = (s) => `http://127.0.0.1:${s.address().port}`;
process.send?.({ t: 'ready', app: origin(app), plain: origin(plain) });
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
setTimeout(() => process.exit(0), Number(values['max-seconds']) * 1000).unref();
