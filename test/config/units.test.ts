import { describe, expect, it } from 'vitest';
import { parseDuration, parseSize } from '../../src/config/units.js';

describe('parseDuration', () => {
  it.each([
    ['200ms', 200],
    ['1.5s', 1500],
    ['15s', 15_000],
    ['2sec', 2000],
    ['5m', 300_000],
    ['5min', 300_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['0ms', 0],
    ['0.5h', 1_800_000],
  ])('%s → %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it('is case-insensitive and tolerates spaces', () => {
    expect(parseDuration('2S')).toBe(2000);
    expect(parseDuration('100MS')).toBe(100);
    expect(parseDuration(' 3 m ')).toBe(180_000);
  });

  it('reads a bare number string in the default unit', () => {
    expect(parseDuration('500')).toBe(500);
    expect(parseDuration('500', 'ms')).toBe(500);
    expect(parseDuration('15', 's')).toBe(15_000);
    expect(parseDuration('1.5', 's')).toBe(1500);
    expect(parseDuration('250ms', 's')).toBe(250); // an explicit unit wins
  });

  it('reads a number in the default unit', () => {
    expect(parseDuration(500)).toBe(500);
    expect(parseDuration(15, 's')).toBe(15_000);
    expect(parseDuration(0)).toBe(0);
  });

  it.each(['', 'abc', 'ms', '5 minutes', '5x', '-1s', '1.2.3s', '1e3', '.5s', 'Infinity'])(
    'rejects %j with a message naming the input',
    (input) => {
      expect(() => parseDuration(input)).toThrow(`got "${input}"`);
      expect(() => parseDuration(input)).toThrow(/expected a duration such as 500ms, 15s, 5m or 1h/);
    },
  );

  it('rejects negative and non-finite numbers', () => {
    expect(() => parseDuration(-1)).toThrow('expected a non-negative duration, got -1');
    expect(() => parseDuration(Number.NaN)).toThrow('got NaN');
    expect(() => parseDuration(Number.POSITIVE_INFINITY)).toThrow('got Infinity');
  });
});

describe('parseSize', () => {
  it.each([
    ['10MB', 10 * 1024 ** 2],
    ['2G', 2 * 1024 ** 3],
    ['512kb', 512 * 1024],
    ['512KiB', 512 * 1024],
    ['1k', 1024],
    ['1.5MB', 1.5 * 1024 ** 2],
    ['1tb', 1024 ** 4],
    ['100b', 100],
    ['1048576', 1_048_576],
    [' 3 mb ', 3 * 1024 ** 2],
  ])('%j → %d bytes', (input, bytes) => {
    expect(parseSize(input)).toBe(bytes);
  });

  it('rounds fractional bytes down to an integer', () => {
    expect(parseSize('1.5')).toBe(1);
    expect(parseSize('0.001kb')).toBe(1);
    expect(parseSize(10.9)).toBe(10);
    expect(Number.isInteger(parseSize('1.3k'))).toBe(true);
  });

  it('reads a number as bytes', () => {
    expect(parseSize(4096)).toBe(4096);
    expect(parseSize(0)).toBe(0);
  });

  it.each(['', 'big', 'MB', '10 megabytes', '10XB', '-5MB', '1,5MB'])(
    'rejects %j with a message naming the input',
    (input) => {
      expect(() => parseSize(input)).toThrow(`got "${input}"`);
      expect(() => parseSize(input)).toThrow(/expected a size such as 500KB, 10MB or 2G/);
    },
  );

  it('rejects negative and non-finite numbers', () => {
    expect(() => parseSize(-1)).toThrow('expected a non-negative size, got -1');
    expect(() => parseSize(Number.NaN)).toThrow('got NaN');
  });
});
