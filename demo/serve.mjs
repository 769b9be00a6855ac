/**
 * A small static file server for the demo corpus on loopback: GET and HEAD, `index.html` for a
 * directory URL (and a redirect to add the slash), gzip when the client accepts it (as a real
 * documentation server would), 404 for anything else. Never serves outside its root.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** Bodies worth compressing (images are already compressed). */
const COMPRESSIBLE = new Set(['.html', '.css', '.txt', '.js', '.svg']);

/**
 * Serve `root` on `host:port` (port 0: any free port).
 * @returns the server, listening, and its base URL (`http://127.0.0.1:PORT`).
 */
export async function serveDirectory(root, host = '127.0.0.1', port = 0) {
  const base = path.resolve(root);
  const gzipped = new Map();
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    let file = path.join(base, pathname);
    if (file !== base && !file.startsWith(base + path.sep)) {
      res.writeHead(404).end();
      return;
    }
    let st = fs.statSync(file, { throwIfNoEntry: false });
    if (st?.isDirectory()) {
      if (!pathname.endsWith('/')) {
        res.writeHead(301, { location: `${pathname}/` }).end();
        return;
      }
      file = path.join(file, 'index.html');
      st = fs.statSync(file, { throwIfNoEntry: false });
    }
    if (!st?.isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    const ext = path.extname(file).toLowerCase();
    const headers = { 'content-type': TYPES[ext] ?? 'application/octet-stream', vary: 'accept-encoding' };
    let body = fs.readFileSync(file);
    if (COMPRESSIBLE.has(ext) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      let gz = gzipped.get(file);
      if (gz === undefined) {
        gz = zlib.gzipSync(body);
        gzipped.set(file, gz);
      }
      body = gz;
      headers['content-encoding'] = 'gzip';
    }
    headers['content-length'] = body.length;
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const { port: bound } = server.address();
  return { server, url: `http://${host}:${bound}` };
}
