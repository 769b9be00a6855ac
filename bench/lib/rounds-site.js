/**
 * A fixture site for continuous collection (issue 27), on 127.0.0.1: hubs and pages that do not
 * change unless told to, answering conditional requests as real servers do, and the kinds that
 * waste rounds in the wild. Every response is logged with the bytes it put on the wire (headers
 * and body, from the socket; `requestBytes`: the request's), so what a round costs is measured
 * here, not by the collector.
 *
 * Honest hubs (ETag, Last-Modified, 304): `/feed.xml` (RSS, `/a/1…`), `/sitemap-index.xml` →
 * `/sitemap-1.xml` (`/s/1…`). Liars: `/redating.xml` (RSS whose entries are dated "now" at every
 * fetch, `/r/1…`), `/now-sitemap.xml` (`<lastmod>` always now, `/n/1…`). Pages under `/a/`,
 * `/s/`, `/r/`, `/n/`, `/t/`: fixed bodies with ETag and a past Last-Modified. `/future.html`: a
 * Last-Modified in 2099 and a server that answers 304 to any If-Modified-Since not before it.
 * `/tracked.html`: links to `/t/N` with tracking parameters that change at every fetch, and to
 * `/c/1?from=…` pages whose `<link rel=canonical>` is `/c/1`. `/challenge.html`: a bot challenge
 * (503, "Just a moment...") for its first `challenges` requests, then the page; `/wall.html`: a
 * 200 "verify you are human" page, always.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { logExchange } from './wire-log.js';

const PAST = 'Mon, 01 Jan 2024 00:00:00 GMT';
const FUTURE = 'Fri, 01 Jan 2099 00:00:00 GMT';

/** Filler text of a page, `bytes` long (about). */
function filler(seed, bytes) {
  const words = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const w = `word${(i * 7919 + seed.length * 31) % 997}`;
    words.push(w);
    n += w.length + 1;
  }
  return words.join(' ');
}

function articleHtml(path, bytes, extra = '') {
  return (
    `<!doctype html><html><head><title>Article ${path}</title>${extra}</head><body><article>` +
    `<h1>Article ${path}</h1><p>${filler(path, bytes)}</p></article></body></html>`
  );
}

function rss(title, entries, summaryBytes) {
  const items = entries
    .map(
      (e) =>
        `<item><title>${e.title}</title><link>${e.url}</link><pubDate>${e.date}</pubDate>` +
        `<description>${filler(e.url, summaryBytes)}</description></item>`,
    )
    .join('');
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>${title}</title>${items}</channel></rss>`;
}

function urlset(entries) {
  const urls = entries.map((e) => `<url><loc>${e.url}</loc><lastmod>${e.lastmod}</lastmod></url>`).join('');
  return `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`;
}

const etagOf = (body) => `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;

/**
 * Start the site.
 * @param {{ articles?: number, pageBytes?: number, summaryBytes?: number, challenges?: number }} [opts]
 *   pages per hub (default 10), body bytes per page (default 6000), per feed entry's summary
 *   (default 500), challenge answers before the real page (2).
 */
export async function startRoundsSite(opts = {}) {
  const articles = opts.articles ?? 10;
  const pageBytes = opts.pageBytes ?? 6000;
  const summaryBytes = opts.summaryBytes ?? 500;
  let challenges = opts.challenges ?? 2;
  const log = [];
  /** Paths whose body was changed, and how often. */
  const versions = new Map();
  let origin = '';
  let trackedFetches = 0;
  const range = (n) => Array.from({ length: n }, (_, i) => i + 1);

  /** Serve `body` with validators; a matching If-None-Match (or, without one, If-Modified-Since) gets a 304. */
  function cacheable(req, res, body, type, lastModified = PAST) {
    const etag = etagOf(body);
    const headers = { 'content-type': type, etag, 'last-modified': lastModified };
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    const notModified =
      inm !== undefined ? inm === etag : ims !== undefined && Date.parse(ims) >= Date.parse(lastModified);
    if (notModified) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, headers);
    res.end(body);
  }

  function plain(res, status, body, type = 'text/html; charset=utf-8', headers = {}) {
    res.writeHead(status, { 'content-type': type, ...headers });
    res.end(body);
  }

  function route(req, res) {
    const url = new URL(req.url ?? '/', origin);
    const p = url.pathname;
    const version = versions.get(p) ?? 0;
    const now = new Date().toUTCString();
    if (p === '/feed.xml') {
      const entries = range(articles).map((i) => ({ title: `A${i}`, url: `${origin}/a/${i}`, date: PAST }));
      return cacheable(req, res, rss('Honest feed', entries, summaryBytes), 'application/rss+xml');
    }
    if (p === '/redating.xml') {
      const entries = range(articles).map((i) => ({ title: `R${i}`, url: `${origin}/r/${i}`, date: now }));
      return plain(res, 200, rss('Re-dating feed', entries, summaryBytes), 'application/rss+xml');
    }
    if (p === '/sitemap-index.xml') {
      const body =
        '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
        `<sitemap><loc>${origin}/sitemap-1.xml</loc><lastmod>2024-01-01</lastmod></sitemap></sitemapindex>`;
      return cacheable(req, res, body, 'application/xml');
    }
    if (p === '/sitemap-1.xml') {
      const entries = range(articles).map((i) => ({ url: `${origin}/s/${i}`, lastmod: '2024-01-01' }));
      return cacheable(req, res, urlset(entries), 'application/xml');
    }
    if (p === '/now-sitemap.xml') {
      const entries = range(articles).map((i) => ({
        url: `${origin}/n/${i}`,
        lastmod: new Date().toISOString(),
      }));
      return plain(res, 200, urlset(entries), 'application/xml');
    }
    if (p === '/future.html') {
      return cacheable(req, res, articleHtml(`${p} v${version}`, 200), 'text/html; charset=utf-8', FUTURE);
    }
    if (p === '/tracked.html') {
      trackedFetches++;
      const links = range(3).map(
        (i) =>
          `<a href="/t/${i}?utm_source=news&utm_medium=email&utm_campaign=c${trackedFetches}` +
          `&fbclid=IwAR${trackedFetches}x${i}&gclid=G${trackedFetches}">t${i}</a>`,
      );
      links.push(`<a href="/c/1?from=home">c</a>`, `<a href="/c/1?from=menu">c again</a>`);
      return plain(res, 200, `<!doctype html><title>Tracked</title><body>${links.join('\n')}</body>`);
    }
    if (p === '/c/1') {
      // the same article under several URLs, each page naming itself in a breadcrumb
      const from = url.searchParams.get('from') ?? 'direct';
      const canonical = `<link rel="canonical" href="${origin}/c/1">`;
      return plain(res, 200, articleHtml(`/c/1 (via ${from})`, 400, canonical));
    }
    if (p === '/challenge.html') {
      if (challenges > 0) {
        challenges--;
        return plain(
          res,
          503,
          '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>' +
            '<div id="challenge-running">Checking your browser before accessing the site.</div>' +
            '<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"></script></body></html>',
          'text/html; charset=utf-8',
          { 'cf-mitigated': 'challenge' },
        );
      }
      return cacheable(req, res, articleHtml(`${p} v${version}`, 400), 'text/html; charset=utf-8');
    }
    if (p === '/wall.html') {
      return plain(
        res,
        200,
        '<!doctype html><title>Attention Required</title><body><h1>Please verify you are human</h1>' +
          '<div class="g-recaptcha" data-sitekey="x"></div></body>',
      );
    }
    if (/^\/[asrnt]\/\d+$/.test(p)) {
      return cacheable(req, res, articleHtml(`${p} v${version}`, pageBytes), 'text/html; charset=utf-8');
    }
    return plain(res, 404, 'not found', 'text/plain');
  }

  const server = http.createServer((req, res) => {
    logExchange(req, res, log);
    route(req, res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    log,
    /** Give `path`'s page a new body from now on. */
    change(path) {
      versions.set(path, (versions.get(path) ?? 0) + 1);
    },
    /** Logged requests whose path (query included) starts with `prefix`. */
    requestsFor(prefix) {
      return log.filter((e) => e.path === prefix || e.path.startsWith(`${prefix}?`));
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The logged requests cut into rounds by the workers' own round starts: for each group (one
 * worker type), the fetches of its `marker` (a seed, fetched first in every round; or a test of
 * a logged request, when the round's first request varies) start its rounds — a marker fetch
 * more than `slackMs` after the round's first one starts the next round — and each request whose
 * path starts with one of its `paths` (or that `paths` accepts) belongs to the round of the last
 * start before it, or up to `slackMs` after it: a round's seeds go out together, in any order.
 * Rounds of the groups are added up by number.
 * @param {Array<{ marker: string | ((e: object) => boolean), paths: string[] | ((e: object) => boolean) }>} groups
 * @param {number} slackMs less than the interval between rounds.
 * @returns per round (0 = the first), its requests and the bytes they put on the wire (answers;
 *   `requestBytes`: the requests).
 */
export function roundsByHub(log, groups, slackMs) {
  const rounds = [];
  for (const g of groups) {
    const isMarker = typeof g.marker === 'function' ? g.marker : (e) => e.path === g.marker;
    const belongs =
      typeof g.paths === 'function' ? g.paths : (e) => g.paths.some((p) => e.path.startsWith(p));
    const starts = [];
    for (const e of log) {
      if (isMarker(e) && (starts.length === 0 || e.at > starts[starts.length - 1] + slackMs))
        starts.push(e.at);
    }
    for (const e of log) {
      if (!belongs(e)) continue;
      let n = -1;
      while (n + 1 < starts.length && starts[n + 1] <= e.at + slackMs) n++;
      if (n < 0) continue;
      rounds[n] ??= { requests: [], bytes: 0, requestBytes: 0 };
      rounds[n].requests.push(e);
      rounds[n].bytes += e.bytes;
      rounds[n].requestBytes += e.requestBytes ?? 0;
    }
  }
  return rounds.map((r) => r ?? { requests: [], bytes: 0, requestBytes: 0 });
}
