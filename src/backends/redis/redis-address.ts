/**
 * The address of a Redis backend: checked once where a command starts, and shown without its
 * password in logs and messages. No client is loaded here (commands that only check or show an
 * address start fast).
 */

/**
 * Check a backend address: `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS).
 * @returns the URL. @throws Error naming the address and the expected form.
 */
export function parseRedisUrl(address: string): URL {
  let u: URL | null = null;
  try {
    u = new URL(address);
  } catch {
    // reported below
  }
  if (u === null || (u.protocol !== 'redis:' && u.protocol !== 'rediss:') || u.hostname === '') {
    throw new Error(`backend "${address}": expected embedded or redis://host:port/db`);
  }
  const db = u.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,2}$/.test(db)) {
    throw new Error(`backend "${address}": the database after the port must be a number (e.g. /0)`);
  }
  return u;
}

/** The address without its password, for logs and messages. */
export function redactRedisUrl(address: string): string {
  return address.replace(/\/\/([^@/]*):[^@/]*@/, '//$1:***@');
}

/** `HOST:PORT` of a checked address (port 6379 when none is given): how messages name a Redis. */
export function redisHostPort(address: string): string {
  const u = parseRedisUrl(address);
  return `${u.hostname}:${u.port || '6379'}`;
}
