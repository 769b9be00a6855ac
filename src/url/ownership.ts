/**
 * Which of the N processes of a worker type owns a URL (DESIGN §1): `hash(host) mod N` (each
 * host's politeness lives in one process) or `hash(url) mod N` (one big site split evenly).
 */
import { hostKey } from './canonicalize.js';
import { hash32 } from './fingerprint.js';

/**
 * The owner of canonical `url` among `count` workers, 0-based.
 * @param by what is hashed: the URL's host (with port) or the whole URL.
 */
export function ownerOf(url: string, count: number, by: 'host' | 'url'): number {
  if (count <= 1) return 0;
  return hash32(by === 'host' ? hostKey(url) : url) % count;
}
