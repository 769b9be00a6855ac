/**
 * A small stand-in for GitHub's REST API and raw host on 127.0.0.1, for the quiet-rounds bench
 * (issue 27): what a `github-search` worker needs, in the shapes test/fixtures/github-server.ts
 * serves to the tests (that fixture is TypeScript; the benches are plain JS run by node).
 *
 * API: `/search/repositories?q=topic:<t>&per_page=&page=` (generated results, sorted by stars,
 * `Link` pagination with `rel="next"`/`"last"`, the 1,000-result cap; an ETag and a 304 to a
 * matching If-None-Match unless `searchEtags: false`); `/repos/o/r/readme` as JSON (base64
 * content) or raw (`Accept: application/vnd.github.raw`), with a weak ETag and a 304 to a
 * matching If-None-Match; GitHub's `x-ratelimit-*` headers on every answer, a 304 not counted
 * against the limit. Every URL an answer names is on loopback. Raw host: `/<o>/<r>/HEAD/README.md` with an ETag and 304s. Any
 * `Authorization: Bearer <t>` with a token in `tokens` is accepted, others get 401.
 *
 * Nothing changes once started. Every request is logged with the bytes it put on the wire both
 * ways (from the socket, headers included), as bench/lib/rounds-site.js does.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { logExchange } from './wire-log.js';

const etagOf = (bytes) => `"${createHash('sha1').update(bytes).digest('hex')}"`;

/** `topic:llm` → `llm-dev<rank>/llm-<rank>`, as the test fixture names generated results. */
function slugOf(q, rank) {
  const word = q.replace(/^topic:/, '').replace(/[^A-Za-z0-9-]/g, '-') || 'q';
  return `${word}-dev${rank}/${word}-${rank}`;
}

/** README text of a generated repository, about `bytes` long. */
function readmeText(slug, rank, bytes) {
  const lines = [`# ${slug}`, '', `Result ${rank}: a generated repository of the bench.`, ''];
  let n = lines.join('\n').length;
  for (let i = 0; n < bytes; i++) {
    const line = `- item ${i} of ${slug}: ${'lorem ipsum dolor sit amet '.repeat(2).trim()}`;
    lines.push(line);
    n += line.length + 1;
  }
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}

/**
 * Start the API and raw servers.
 * @param {{ search?: Record<string, number>, readmeBytes?: number, tokens?: string[], searchEtags?: boolean }} [opts]
 *   results per search `q` (default `{ 'topic:llm': 60, 'topic:crawler': 60 }`), README bytes
 *   (about; default 4000), accepted tokens (default none: anonymous only), ETags on search answers
 *   (default true: GitHub's REST answers carry one).
 */
export async function startGithubSite(opts = {}) {
  const searches = opts.search ?? { 'topic:llm': 60, 'topic:crawler': 60 };
  const readmeBytes = opts.readmeBytes ?? 4000;
  const tokens = new Set(opts.tokens ?? []);
  const searchEtags = opts.searchEtags ?? true;
  const log = [];
  const used = new Map();
  const origins = { api: '', raw: '' };

  /** The README of a generated repository, or undefined for an unknown one. */
  function readmeOf(owner, repo) {
    const m = /^(.+)-dev(\d+)$/.exec(owner);
    if (!m || repo !== `${m[1]}-${m[2]}`) return undefined;
    const rank = Number(m[2]);
    const q = Object.keys(searches).find((k) => slugOf(k, rank) === `${owner}/${repo}`);
    if (q === undefined || rank < 1 || rank > searches[q]) return undefined;
    return readmeText(`${owner}/${repo}`, rank, readmeBytes);
  }

  function send(res, status, headers, body = '') {
    res.writeHead(status, headers);
    res.end(body);
  }

  /** Rate-limit headers of an answer; `count: false` for a 304 (not counted by GitHub). */
  function rate(identity, resource, count) {
    const key = `${identity} ${resource}`;
    const n = (used.get(key) ?? 0) + (count ? 1 : 0);
    used.set(key, n);
    const limit =
      identity === 'anonymous' ? (resource === 'search' ? 10 : 60) : resource === 'search' ? 30 : 5000;
    return {
      'x-ratelimit-limit': String(limit * 1000),
      'x-ratelimit-remaining': String(limit * 1000 - n),
      'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 3600),
      'x-ratelimit-used': String(n),
      'x-ratelimit-resource': resource,
    };
  }

  function api(req, res) {
    const json = { 'content-type': 'application/json; charset=utf-8' };
    const u = new URL(req.url ?? '/', origins.api);
    const auth = /^(?:Bearer|token) (\S+)$/i.exec(req.headers.authorization ?? '');
    if (req.headers.authorization && (!auth || !tokens.has(auth[1])))
      return send(res, 401, json, '{"message":"Bad credentials"}');
    const identity = auth ? auth[1] : 'anonymous';
    const inm = req.headers['if-none-match'];
    if (u.pathname === '/search/repositories') {
      const q = u.searchParams.get('q') ?? '';
      const perPage = Math.min(100, Math.max(1, Number(u.searchParams.get('per_page') ?? 30) || 30));
      const page = Math.max(1, Number(u.searchParams.get('page') ?? 1) || 1);
      const total = searches[q] ?? 0;
      const reachable = Math.min(total, 1000);
      const last = Math.max(1, Math.ceil(reachable / perPage));
      const items = [];
      for (let rank = (page - 1) * perPage + 1; rank <= Math.min(page * perPage, reachable); rank++) {
        const full = slugOf(q, rank);
        const [owner, name] = full.split('/');
        items.push({
          id: rank,
          node_id: `R_${rank}`,
          name,
          full_name: full,
          private: false,
          owner: { login: owner, id: rank, type: 'User', html_url: `${origins.api}/${owner}` },
          html_url: `${origins.api}/${full}`,
          description: `Result ${rank} for ${q}`,
          fork: false,
          url: `${origins.api}/repos/${full}`,
          created_at: '2020-01-01T12:00:00Z',
          updated_at: '2024-01-01T12:00:00Z',
          pushed_at: '2024-01-01T12:00:00Z',
          size: 1000 + rank,
          stargazers_count: 100_000 - rank,
          watchers_count: 100_000 - rank,
          language: rank % 2 ? 'Python' : 'Rust',
          forks_count: rank,
          open_issues_count: rank % 7,
          license: { key: 'mit', name: 'MIT License', spdx_id: 'MIT' },
          topics: [q.replace(/^topic:/, ''), 'bench'],
          default_branch: 'main',
          score: 1,
        });
      }
      const at = (p) => {
        const x = new URL(u.href);
        x.searchParams.set('page', String(p));
        return x.href;
      };
      const links = [];
      if (page > 1) links.push(`<${at(page - 1)}>; rel="prev"`);
      if (page < last) links.push(`<${at(page + 1)}>; rel="next"`);
      links.push(`<${at(last)}>; rel="last"`, `<${at(1)}>; rel="first"`);
      const body = JSON.stringify({ total_count: total, incomplete_results: false, items });
      const headers = { ...json, link: links.join(', ') };
      if (searchEtags) {
        const etag = `W/${etagOf(body)}`;
        headers.etag = etag;
        if (inm === etag) return send(res, 304, { ...rate(identity, 'search', false), ...headers });
      }
      return send(res, 200, { ...rate(identity, 'search', true), ...headers }, body);
    }
    const m = /^\/repos\/([^/]+)\/([^/]+)\/readme$/.exec(u.pathname);
    const bytes = m ? readmeOf(decodeURIComponent(m[1]), decodeURIComponent(m[2])) : undefined;
    if (bytes === undefined)
      return send(res, 404, { ...rate(identity, 'core', true), ...json }, '{"message":"Not Found"}');
    const raw = /application\/vnd\.github\.raw/.test(req.headers.accept ?? '');
    const etag = `W/${etagOf(bytes)}${raw ? '-raw' : ''}`;
    if (inm === etag) return send(res, 304, { ...rate(identity, 'core', false), etag });
    if (raw)
      return send(
        res,
        200,
        { ...rate(identity, 'core', true), 'content-type': 'application/vnd.github.raw', etag },
        bytes,
      );
    const slug = `${m[1]}/${m[2]}`;
    const b64 = bytes.toString('base64');
    const body = JSON.stringify({
      type: 'file',
      encoding: 'base64',
      size: bytes.length,
      name: 'README.md',
      path: 'README.md',
      content: `${(b64.match(/.{1,60}/g) ?? []).join('\n')}\n`,
      sha: etagOf(bytes).slice(1, -1),
      url: `${origins.api}/repos/${slug}/contents/README.md?ref=main`,
      html_url: `${origins.api}/${slug}/blob/main/README.md`,
      download_url: `${origins.raw}/${slug}/main/README.md`,
    });
    return send(res, 200, { ...rate(identity, 'core', true), ...json, etag }, body);
  }

  function raw(req, res) {
    const text = { 'content-type': 'text/plain; charset=utf-8' };
    const u = new URL(req.url ?? '/', origins.raw);
    const m = /^\/([^/]+)\/([^/]+)\/(?:HEAD|main)\/README\.md$/.exec(u.pathname);
    const bytes = m ? readmeOf(m[1], m[2]) : undefined;
    if (bytes === undefined) return send(res, 404, text, '404: Not Found');
    const etag = etagOf(bytes);
    if (req.headers['if-none-match'] === etag) return send(res, 304, { etag });
    return send(res, 200, { ...text, etag }, bytes);
  }

  /** A server whose every answer is logged with its wire bytes both ways. */
  async function serve(service, handle) {
    const server = http.createServer((req, res) => {
      logExchange(req, res, log, { service });
      handle(req, res);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  }

  const servers = [await serve('api', api), await serve('raw', raw)];
  origins.api = `http://127.0.0.1:${servers[0].address().port}`;
  origins.raw = `http://127.0.0.1:${servers[1].address().port}`;
  return {
    /** The bases for a source's `github:` option (web: the API's origin; nothing is asked there). */
    bases: { web: origins.api, api: origins.api, raw: origins.raw },
    log,
    /** Repositories a search lists in all. */
    total: (q) => searches[q] ?? 0,
    close() {
      return Promise.all(
        servers.map((s) => {
          s.closeAllConnections();
          return new Promise((resolve) => s.close(() => resolve()));
        }),
      );
    },
  };
}
