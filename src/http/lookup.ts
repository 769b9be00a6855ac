/**
 * The host name lookup of direct connections: the system's (`dns.lookup`, as Node's own), except
 * for names under `.invalid`, which never resolve (RFC 6761 §6.4: name resolution APIs "SHOULD
 * always return immediately indicating that the queried name does not exist"). They fail at once,
 * as ENOTFOUND, without a query leaving the machine.
 */
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** Whether `hostname` is `invalid` or under it (RFC 6761 §6.4), case-insensitive, trailing dot allowed. */
export function isInvalidName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'invalid' || h.endsWith('.invalid');
}

/** `net.connect`'s `lookup` option: see the module comment. */
export function lookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  if (isInvalidName(hostname)) {
    const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
    err.code = 'ENOTFOUND';
    err.syscall = 'getaddrinfo';
    process.nextTick(callback, err, '', 0);
    return;
  }
  dns.lookup(hostname, options, callback);
}
