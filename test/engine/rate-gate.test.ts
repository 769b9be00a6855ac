/**
 * How a response is judged a rate-limit refusal: by its headers first, then by its message, which
 * is read after its Content-Encoding is removed (GitHub compresses refusals like any answer).
 */
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bodyHint, isRateLimited, rateLimitRefusal } from '../../src/engine/rate-gate.js';

const SECONDARY =
  '{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}';
const FORBIDDEN = '{"message":"Resource not accessible by integration"}';

describe('rate-limit refusals', () => {
  it('a compressed secondary-limit message (gzip, br, deflate) is read and recognised', () => {
    for (const [enc, body] of [
      ['gzip', zlib.gzipSync(SECONDARY)],
      ['br', zlib.brotliCompressSync(SECONDARY)],
      ['deflate', zlib.deflateSync(SECONDARY)],
    ] as const) {
      const hint = bodyHint(403, body, enc);
      expect(hint, enc).toContain('secondary rate limit');
      // Budget left, no Retry-After: only the message says it is a rate limit.
      expect(rateLimitRefusal(403, { 'x-ratelimit-remaining': '4990' }, hint), enc).toBe('secondary');
    }
  });

  it('a compressed permission error is final; a body that cannot be decoded gives no hint', () => {
    const hint = bodyHint(403, zlib.gzipSync(FORBIDDEN), 'gzip');
    expect(hint).toBe(FORBIDDEN);
    expect(isRateLimited(403, { 'x-ratelimit-remaining': '4990' }, hint)).toBe(false);
    expect(bodyHint(403, Buffer.from([0x1f, 0x8b, 1, 2, 3]), 'gzip')).toBeUndefined();
    expect(bodyHint(403, Buffer.from('x'), 'zstd-unknown')).toBeUndefined();
    expect(bodyHint(200, Buffer.from(SECONDARY), null)).toBeUndefined();
  });

  it('headers first: Retry-After and X-RateLimit-Remaining: 0 decide without the body', () => {
    expect(rateLimitRefusal(403, { 'retry-after': '60' }, undefined)).toBe('retry-after');
    expect(rateLimitRefusal(429, { 'retry-after': '1' }, undefined)).toBe('retry-after');
    expect(rateLimitRefusal(403, { 'x-ratelimit-remaining': '0' }, FORBIDDEN)).toBe('primary');
    expect(rateLimitRefusal(429, {}, undefined)).toBe('secondary');
    expect(rateLimitRefusal(403, {}, undefined)).toBeNull();
    expect(rateLimitRefusal(404, { 'retry-after': '1' }, undefined)).toBeNull();
  });
});
