/**
 * The item's error message for a failed connection (`describeError`): one line in words, from
 * the errors a real socket gives — OpenSSL's included, whose own message is its error queue line.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/http/fetch-error.js';

/** The error of a TLS handshake with a plain-HTTP server on loopback (an https:// URL to an http port). */
async function tlsToPlainHttp(): Promise<Error> {
  const server = http.createServer((_req, res) => res.end('plain'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<Error>((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
      socket.on('error', resolve);
      socket.on('secureConnect', () => resolve(new Error('handshake succeeded')));
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

describe('describeError', () => {
  it("an OpenSSL failure is its reason and code on one line, not OpenSSL's queue line", async () => {
    const err = await tlsToPlainHttp();
    expect(err.message).toContain('\n'); // what it would have said
    expect(describeError(err)).toBe('TLS failed: wrong version number (ERR_SSL_WRONG_VERSION_NUMBER)');
  });

  it('a refused connection: the cause in words, then the message; any message on one line', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(describeError(refused)).toBe('connection refused (connect ECONNREFUSED 127.0.0.1:9)');
    expect(describeError(new Error('first line\n  second line\n'))).toBe('first line second line');
  });
});
