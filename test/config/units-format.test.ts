import { describe, expect, it } from 'vitest';
import { parseCrawlOptions } from '../../src/config/crawl-options.js';
import { formatDuration, formatSize, parseDuration, parseSize } from '../../src/config/units.js';

describe('durations and sizes written back for people', () => {
  it('uses the largest unit that divides the value', () => {
    expect([500, 1000, 15_000, 600_000, 3_600_000, 86_400_000, 1500, 0].map(formatDuration)).toEqual([
      '500ms',
      '1s',
      '15s',
      '10m',
      '1h',
      '1d',
      '1500ms',
      '0ms',
    ]);
    expect([10 * 1024 * 1024, 64 * 1024, 1024 ** 3, 1000, 0].map(formatSize)).toEqual([
      '10MB',
      '64KB',
      '1GB',
      '1000B',
      '0B',
    ]);
  });

  it('reads back to the same value, for every default of the crawl options', () => {
    const d = parseCrawlOptions({});
    for (const ms of [d.delay, d.timeout, d.retryBackoff, d.maxRetryAfter, d.joinTimeout, d.saveInterval]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
    for (const bytes of [d.maxBytes, d.maxPendingBytes]) expect(parseSize(formatSize(bytes))).toBe(bytes);
  });
});
