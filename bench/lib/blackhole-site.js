#!/usr/bin/env node
/**
 * A server that accepts TCP connections on 127.0.0.1 (ephemeral port) and never answers: a
 * crawler pointed at it sits idle with its one request in flight (idle-RSS benchmark).
 *
 *   node bench/lib/blackhole-site.js [--max-seconds 120]
 *
 * Forked with IPC: sends { t: 'ready', port, url }; answers { t: 'stats' } with
 * { t: 'stats', connections, bytesReceived }. Exits when the parent disconnects, on SIGTERM, or
 * after --max-seconds.
 */
import net from 'node:net';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { 'max-seconds': { type: 'string', default: '120' } } });

const sockets = new Set();
let connections = 0;
let bytesReceived = 0;
const server = net.createServer((s) => {
  connections++;
  sockets.add(s);
  s.on('data', (d) => {
    bytesReceived += d.length; // read and ignore the request: never answer
  });
  s.on('error', () => {});
  s.on('close', () => sockets.delete(s));
});

function quit() {
  for (const s of sockets) s.destroy();
  server.close();
  process.exit(0);
}
process.on('SIGTERM', quit);
process.on('disconnect', quit);
setTimeout(quit, Number(values['max-seconds']) * 1000).unref();
process.on('message', (m) => {
  if (m?.t === 'stats') process.send?.({ t: 'stats', connections, bytesReceived });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const url = `http://127.0.0.1:${port}/slow`;
  if (process.send) process.send({ t: 'ready', port, url });
  else process.stdout.write(`${url}\n`);
});
