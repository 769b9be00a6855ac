/**
 * Which commands start a page thread before their modules load (`src/cli/prestart.ts`): a crawl
 * that will work its pages in a page thread of its own process, and nothing else.
 */
import { describe, expect, it } from 'vitest';
import { prestartsPageThread } from '../../src/cli/prestart.js';

const argv = (...args: string[]) => ['/usr/bin/node', '/x/bin/collector.js', ...args];

describe('prestartsPageThread', () => {
  it('is a crawl in one process on a machine of 2 or 3 CPUs, by default or by --processes 1', () => {
    expect(prestartsPageThread(argv('crawl', 'http://127.0.0.1/'), 2)).toBe(true);
    expect(prestartsPageThread(argv('crawl', 'http://127.0.0.1/'), 3)).toBe(true);
    expect(prestartsPageThread(argv('crawl', 'http://127.0.0.1/', '--processes', '1'), 8)).toBe(true);
    expect(prestartsPageThread(argv('crawl', '--processes=1', 'http://127.0.0.1/'), 16)).toBe(true);
  });

  it('is not a crawl of several processes (the default from 4 CPUs), whose pages are worked in its children', () => {
    expect(prestartsPageThread(argv('crawl', 'http://127.0.0.1/'), 4)).toBe(false);
    expect(prestartsPageThread(argv('crawl', 'http://127.0.0.1/', '--processes', '2'), 2)).toBe(false);
    expect(prestartsPageThread(argv('crawl', '--processes=3', 'http://127.0.0.1/'), 2)).toBe(false);
  });

  it('is not a crawl on one CPU (pages worked on the fetch loop), its help, or another command', () => {
    expect(prestartsPageThread(argv('crawl', 'http://127.0.0.1/'), 1)).toBe(false);
    expect(prestartsPageThread(argv('crawl', '--help'), 2)).toBe(false);
    expect(prestartsPageThread(argv('crawl', '-h'), 2)).toBe(false);
    for (const cmd of ['run', 'status', 'export', 'plan'])
      expect(prestartsPageThread(argv(cmd), 2)).toBe(false);
    expect(prestartsPageThread(argv(), 2)).toBe(false);
  });
});
