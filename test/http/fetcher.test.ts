/**
 * Fetcher edge cases against a raw TCP server on 127.0.0.1 (responses written by hand, so they
 * can be cut off or stall where an HTTP library would not let them).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchError } from '../../src/http/fetch-error.js';
import { Fetcher } from '../../src/http/fetcher.js';

const RESPONSES: Record<string, string> = {
  // A redirect whose declared body never fully arrives: the connection closes after 10 bytes.
  '/cut-redirect': 'HTTP/1.1 301 Moved\r\nLocation: /target\r\nContent-Length: 100\r\n\r\n0123456789',
  // A body that is cut off the same way: a network error.
  '/cut-page': 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100\r\n\r\n0123456789',
  // Over --max-bytes by Content-Length, all in the first packet.
  '/over': `HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n${'x'.repeat(2000)}`,
};

let server: net.Server;
let origin: string;
beforeAll(async () => {
  server = net.createServer((sock) => {
    sock.once('data', (d) => {
      const path = d.toString('latin1').split(' ')[1] ?? '';
      const r = RESPONSES[path];
      if (r === undefined) sock.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      else sock.end(r);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});
afterAll(() => server.close());

describe('Fetcher', () => {
  const fetcher = () => new Fetcher({ userAgent: 'collector-test', timeoutMs: 2000, maxBytes: 1000 });

  it('follows a redirect whose body is cut off: the Location is what counts', async () => {
    const f = fetcher();
    const r = await f.fetchHop(`${origin}/cut-redirect`);
    expect(r.status).toBe(301);
    expect(r.location).toBe('/target');
    expect(r.body.length).toBe(0);
    await f.close();
  });

  it('reports a cut-off page as a network error and a declared oversize body as too-large', async () => {
    const f = fetcher();
    await expect(f.fetchHop(`${origin}/cut-page`)).rejects.toMatchObject({ kind: 'network' });
    const e = await f.fetchHop(`${origin}/over`).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FetchError);
    expect(e).toMatchObject({ kind: 'too-large', status: 200 });
    await f.close();
  });
});
