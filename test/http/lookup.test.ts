/** The host name lookup: `.invalid` names fail at once, without a query (RFC 6761 §6.4). */
import dns from 'node:dns';
import { describe, expect, it, vi } from 'vitest';
import { isInvalidName, lookup } from '../../src/http/lookup.js';

describe('lookup', () => {
  it('knows the .invalid names, case-insensitive, trailing dot allowed', () => {
    for (const n of ['invalid', 'nonexistent.invalid', 'A.B.INVALID', 'x.invalid.'])
      expect(isInvalidName(n)).toBe(true);
    for (const n of ['invalid.example', 'example.org', 'notinvalid', 'localhost'])
      expect(isInvalidName(n)).toBe(false);
  });

  it('fails a .invalid name with ENOTFOUND and never asks the resolver; others go to dns.lookup', async () => {
    const spy = vi.spyOn(dns, 'lookup');
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      lookup('nonexistent.invalid', {}, (e) => resolve(e)),
    );
    expect(err?.code).toBe('ENOTFOUND');
    expect(err?.message).toBe('getaddrinfo ENOTFOUND nonexistent.invalid');
    expect(spy).not.toHaveBeenCalled();
    const addr = await new Promise<string>((resolve, reject) =>
      lookup('127.0.0.1', {}, (e, a) => (e ? reject(e) : resolve(a as string))),
    );
    expect(addr).toBe('127.0.0.1');
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });
});
