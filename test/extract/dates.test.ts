import { afterEach, describe, expect, it } from 'vitest';
import { parseDate, parseDateIso } from '../../src/extract/dates.js';

describe('parseDate', () => {
  const originalTz = process.env.TZ;
  afterEach(() => {
    process.env.TZ = originalTz;
  });

  it.each([
    ['2024', '2024-01-01T00:00:00.000Z'],
    ['2024-05', '2024-05-01T00:00:00.000Z'],
    ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ['2024-5-1', '2024-05-01T00:00:00.000Z'],
    ['2024-05-01T10:00Z', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:00:00+02:00', '2024-05-01T08:00:00.000Z'],
    ['2024-05-01T10:00:00+0200', '2024-05-01T08:00:00.000Z'],
    ['2024-05-01T10:00:00-05', '2024-05-01T15:00:00.000Z'],
    ['2024-05-01T10:00:00.123456Z', '2024-05-01T10:00:00.123Z'],
    ['2024-05-01 10:00:00', '2024-05-01T10:00:00.000Z'],
    ['  2024-05-01T10:00:00  ', '2024-05-01T10:00:00.000Z'],
    ['Tue, 10 Jun 2003 04:00:00 GMT', '2003-06-10T04:00:00.000Z'],
    ['Tue, 10 Jun 2003 04:00:00 +0200', '2003-06-10T02:00:00.000Z'],
    ['10 Jun 2003 04:00:00 EST', '2003-06-10T09:00:00.000Z'],
    ['Mon, 01 Jan 24 00:00:00 GMT', '2024-01-01T00:00:00.000Z'],
    ['Wed, 02 Oct 2002 08:00:00 EST (Eastern)', '2002-10-02T13:00:00.000Z'],
    ['1714557600', '2024-05-01T10:00:00.000Z'],
  ])('%s → %s', (text, iso) => {
    expect(parseDateIso(text)).toBe(iso);
  });

  it.each(['', 'garbage', '2024-02-30', '2024-13-01', '0000-00-00', '1970-01-01', '99999-01-01', '12'])(
    'refuses %j',
    (text) => {
      expect(parseDate(text)).toBeNull();
    },
  );

  it('reads a date without zone as UTC whatever the machine’s zone', () => {
    process.env.TZ = 'America/New_York';
    expect(parseDateIso('2024-05-01T10:00:00')).toBe('2024-05-01T10:00:00.000Z');
    expect(parseDateIso('Wed, 01 May 2024 10:00:00')).toBe('2024-05-01T10:00:00.000Z');
    expect(parseDateIso('2024-05-01')).toBe('2024-05-01T00:00:00.000Z');
  });

  it('is null for non-strings', () => {
    expect(parseDate(null)).toBeNull();
    expect(parseDate(undefined)).toBeNull();
  });
});
