import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  type CrawlOptionsInput,
  DEFAULT_USER_AGENT,
  defaultProcesses,
  pageThreadByDefault,
  parseCrawlOptions,
} from '../../src/config/crawl-options.js';

const SEED = ['https://example.org/docs/'];

/** Parse, returning the error message (or failing when there is none). */
function errorOf(input: unknown): string {
  try {
    parseCrawlOptions(input as CrawlOptionsInput);
  } catch (e) {
    return (e as Error).message;
  }
  expect.fail(`expected ${JSON.stringify(input)} to be rejected`);
}

describe('parseCrawlOptions: defaults', () => {
  it('fills every default from the schema', () => {
    const o = parseCrawlOptions({ seeds: SEED });
    expect(o).toMatchObject({
      seeds: SEED,
      out: './data',
      processes: Math.max(1, Math.floor(availableParallelism() / 2)),
      pageThread: availableParallelism() >= 2,
      memoryLimitFraction: 0.8,
      delay: 500,
      jitter: 0.5,
      concurrency: 16,
      hostConcurrency: 2,
      timeout: 15_000,
      maxBytes: 10 * 1024 * 1024,
      scope: 'prefix',
      include: [],
      exclude: [],
      retries: 3,
      retryBackoff: 1000,
      maxRetryAfter: 600_000,
      userAgent: DEFAULT_USER_AGENT,
      robots: true,
      resume: false,
      storeBodies: true,
      nearDuplicates: true,
      maxUrlLength: 2048,
      maxPathRepeat: 3,
      maxQueryVariants: 1000,
      saveEveryItems: 50,
      saveInterval: 200,
      joinTimeout: 10_000,
      quiet: false,
      maxPendingBytes: 64 * 1024 * 1024,
    });
    expect(o.maxPages).toBeUndefined();
    expect(o.maxDepth).toBeUndefined();
    expect(o.proxy).toBeUndefined();
  });

  it('defaults to one process per two CPUs, each with a page thread when it has a second core', () => {
    expect([1, 2, 3, 4, 8, 64].map((cpus) => defaultProcesses(cpus))).toEqual([1, 1, 1, 2, 4, 32]);
    expect(pageThreadByDefault(1, 1)).toBe(false);
    expect(pageThreadByDefault(1, 2)).toBe(true);
    expect(pageThreadByDefault(2, 2)).toBe(false);
    expect(pageThreadByDefault(4, 8)).toBe(true);
    expect(pageThreadByDefault(20, 2)).toBe(false);
  });

  it('the User-Agent product token is "collector"', () => {
    expect(DEFAULT_USER_AGENT.split('/')[0]).toBe('collector');
  });
});

describe('parseCrawlOptions: units and values', () => {
  it('converts durations: delay in ms by default, timeout in s by default', () => {
    const o = parseCrawlOptions({ seeds: SEED, delay: '2s', timeout: '500ms', joinTimeout: 3 });
    expect(o.delay).toBe(2000);
    expect(o.timeout).toBe(500);
    expect(o.joinTimeout).toBe(3000);
    expect(parseCrawlOptions({ seeds: SEED, delay: 250, timeout: 30 })).toMatchObject({
      delay: 250,
      timeout: 30_000,
    });
    expect(parseCrawlOptions({ seeds: SEED, delay: '250', timeout: '30' })).toMatchObject({
      delay: 250,
      timeout: 30_000,
    });
  });

  it('converts sizes', () => {
    expect(parseCrawlOptions({ seeds: SEED, maxBytes: '2MB' }).maxBytes).toBe(2 * 1024 * 1024);
    expect(parseCrawlOptions({ seeds: SEED, maxBytes: 1000 }).maxBytes).toBe(1000);
    expect(parseCrawlOptions({ seeds: SEED, maxPendingBytes: '1G' }).maxPendingBytes).toBe(1024 ** 3);
  });

  it('keeps include/exclude as checked regular-expression sources: parsed options are plain JSON', () => {
    const o = parseCrawlOptions({ seeds: SEED, include: ['/docs/'], exclude: ['\\.pdf$'] });
    expect(o.include).toEqual(['/docs/']);
    expect(new RegExp(o.include[0]).test('https://example.org/docs/a')).toBe(true);
    expect(new RegExp(o.exclude[0]).test('https://example.org/a.pdf')).toBe(true);
    expect(new RegExp(o.exclude[0]).test('https://example.org/a.pdf.html')).toBe(false);
    // What a worker process receives over IPC is what was parsed here.
    expect(JSON.parse(JSON.stringify(o))).toEqual(o);
  });

  it('accepts every scope mode and keeps explicit values', () => {
    for (const scope of ['prefix', 'host', 'domain', 'any'] as const) {
      expect(parseCrawlOptions({ seeds: SEED, scope }).scope).toBe(scope);
    }
    const o = parseCrawlOptions({
      seeds: SEED,
      concurrency: 4,
      hostConcurrency: 1,
      maxDepth: 0,
      robots: false,
    });
    expect(o).toMatchObject({ concurrency: 4, hostConcurrency: 1, maxDepth: 0, robots: false });
  });
});

describe('parseCrawlOptions: errors are `path: message`', () => {
  it('allows no seeds (resume) but rejects a non-array', () => {
    expect(parseCrawlOptions({}).seeds).toEqual([]);
    expect(errorOf({ seeds: 'http://x/' as unknown as string[] })).toMatch(/^seeds: /);
  });

  it('names a bad duration, size and regex with the input', () => {
    expect(errorOf({ seeds: SEED, delay: 'soon' })).toBe(
      'delay: expected a duration such as 500ms, 15s, 5m or 1h, got "soon"',
    );
    expect(errorOf({ seeds: SEED, maxBytes: 'huge' })).toBe(
      'maxBytes: expected a size such as 500KB, 10MB or 2G, got "huge"',
    );
    expect(errorOf({ seeds: SEED, include: ['ok', '(unclosed'] })).toMatch(
      /^include\.1: invalid regular expression "\(unclosed": /,
    );
    expect(errorOf({ seeds: SEED, timeout: -5 })).toBe('timeout: expected a non-negative duration, got -5');
  });

  it('rejects out-of-range numbers and unknown enum values', () => {
    expect(errorOf({ seeds: SEED, concurrency: 0 })).toMatch(/^concurrency: /);
    expect(errorOf({ seeds: SEED, hostConcurrency: 1.5 })).toMatch(/^hostConcurrency: /);
    expect(errorOf({ seeds: SEED, jitter: -0.1 })).toMatch(/^jitter: /);
    expect(errorOf({ seeds: SEED, jitter: 11 })).toMatch(/^jitter: /);
    expect(errorOf({ seeds: SEED, retries: -1 })).toMatch(/^retries: /);
    expect(errorOf({ seeds: SEED, maxDepth: -1 })).toMatch(/^maxDepth: /);
    expect(errorOf({ seeds: SEED, scope: 'world' })).toMatch(/^scope: /);
    expect(errorOf({ seeds: SEED, robots: 'yes' })).toMatch(/^robots: /);
  });

  it('reports every problem, one `path: message` each, joined by "; "', () => {
    const msg = errorOf({ seeds: SEED, concurrency: 0, delay: 'x', scope: 'nope' });
    const parts = msg.split('; ');
    expect(parts).toHaveLength(3);
    expect(parts.map((p) => p.split(':')[0]).sort()).toEqual(['concurrency', 'delay', 'scope']);
  });

  it('names the whole object when the input is not an object', () => {
    expect(errorOf(null)).toMatch(/^options: /);
  });
});

describe('parseCrawlOptions: nearDuplicates', () => {
  it('is on by default, off with false, and a boolean only', () => {
    expect(parseCrawlOptions({ seeds: SEED, nearDuplicates: false }).nearDuplicates).toBe(false);
    expect(errorOf({ seeds: SEED, nearDuplicates: 'no' })).toMatch(/^nearDuplicates: /);
  });
});

describe('parseCrawlOptions: issue 14 options', () => {
  it('cookies on, no kept parameters, 256 KiB of headers and no cap per URL shape by default', () => {
    expect(parseCrawlOptions({ seeds: SEED })).toMatchObject({
      cookies: true,
      keepParams: [],
      maxHeaderBytes: 256 * 1024,
      maxShapeVariants: 0,
    });
  });

  it('takes cookies: false, keepParams, a header size and a shape cap', () => {
    expect(
      parseCrawlOptions({
        seeds: SEED,
        cookies: false,
        keepParams: ['sid'],
        maxHeaderBytes: '1MB',
        maxShapeVariants: 500,
      }),
    ).toMatchObject({
      cookies: false,
      keepParams: ['sid'],
      maxHeaderBytes: 1024 * 1024,
      maxShapeVariants: 500,
    });
    expect(() => parseCrawlOptions({ seeds: SEED, maxHeaderBytes: '1KB' })).toThrow(
      'maxHeaderBytes: expected at least 16KB',
    );
    expect(parseCrawlOptions({ seeds: SEED, trackingParams: ['ref', 'src_*'] }).trackingParams).toEqual([
      'ref',
      'src_*',
    ]);
    expect(() => parseCrawlOptions({ seeds: SEED, trackingParams: ['a=b'] })).toThrow('trackingParams');
  });
});
