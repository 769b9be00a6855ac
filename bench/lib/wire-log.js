/**
 * What a request and its answer put on the wire, measured at a fixture server's socket (headers
 * included), for the benches that count bytes per round (bench/quiet-rounds.js).
 */

/**
 * Log one exchange: a new entry in `log` with the request's path, arrival (epoch ms), validators
 * and bytes, completed with the answer's status and bytes when it is sent. A GET is read whole
 * before it is answered and the requests on one connection do not overlap (no pipelining), so
 * what the socket read since the previous request on it is this request.
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {object[]} log
 * @param {object} [extra] more fields of the entry (e.g. `service`).
 * @returns the entry: `{ path, at, status, bytes, requestBytes, ifNoneMatch, ifModifiedSince, ...extra }`.
 */
export function logExchange(req, res, log, extra = {}) {
  const socket = req.socket;
  const written = socket.bytesWritten;
  const read = socket.bytesRead - (socket.benchReadMark ?? 0);
  socket.benchReadMark = socket.bytesRead;
  const entry = {
    ...extra,
    path: req.url ?? '/',
    at: Date.now(),
    status: 0,
    bytes: 0,
    requestBytes: read,
    ifNoneMatch: req.headers['if-none-match'] ?? null,
    ifModifiedSince: req.headers['if-modified-since'] ?? null,
  };
  log.push(entry);
  res.on('finish', () => {
    entry.status = res.statusCode;
    entry.bytes = socket.bytesWritten - written;
  });
  return entry;
}
