/**
 * A Parquet row group's column values as gathered before encoding (src/export/column-buffers.ts):
 * each type gives back exactly what it took (bytes as UTF-8, JSON as its text, int64 as bigint,
 * null for absent or mistyped values), across growth and from one row group to the next.
 */
import { describe, expect, it } from 'vitest';
import { columnBuffer } from '../../src/export/column-buffers.js';

const text = (v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : v);

describe('column buffers', () => {
  it('keeps strings as UTF-8 bytes, null where absent, through growth past the first buffer', () => {
    const b = columnBuffer('string', false);
    const big = 'ü'.repeat(100_000); // 200,000 bytes: more than the first 64 KiB
    const values = ['a', null, 'Tïtle ✓', 7, big, '', 'z'];
    const sizes = values.map((v) => b.push(v));
    expect(sizes).toEqual([1, 0, 10, 0, 200_000, 0, 1]);
    expect(b.values().map(text)).toEqual(['a', null, 'Tïtle ✓', null, big, '', 'z']);
  });

  it('takes UTF-8 bytes for a string column as a copy (the reader reuses its buffer)', () => {
    const b = columnBuffer('string', false);
    const scratch = Buffer.from('Tïtle ✓');
    const big = Buffer.alloc(100_000, 'x'); // past the first 64 KiB
    expect([b.push(scratch), b.push(null), b.push(big)]).toEqual([10, 0, 100_000]);
    scratch.fill(0);
    expect(b.values().map(text)).toEqual(['Tïtle ✓', null, 'x'.repeat(100_000)]);
  });

  it('starts each row group empty and does not disturb the values given before clear', () => {
    const b = columnBuffer('string', false);
    for (let i = 0; i < 3000; i++) b.push(`row ${i}`);
    const first = b.values().map(text);
    expect(first).toHaveLength(3000);
    expect(first[2999]).toBe('row 2999');
    b.clear();
    b.push('next');
    expect(b.values().map(text)).toEqual(['next']);
  });

  it('writes JSON values as their JSON text', () => {
    const b = columnBuffer('json', false);
    b.push({ a: [1, 'ü'] });
    b.push(null);
    b.push('s');
    expect(b.values().map(text)).toEqual(['{"a":[1,"ü"]}', null, '"s"']);
  });

  it('gives int64 and timestamps as bigint, int32 as numbers, null for what is not a number', () => {
    const big = columnBuffer('int64', false);
    const ts = columnBuffer('timestamp', false);
    const small = columnBuffer('int32', false);
    for (const v of [5_000_000_000, null, 0]) {
      big.push(v);
      ts.push(v);
      small.push(v === 5_000_000_000 ? 7 : v);
    }
    big.push('12');
    expect(big.values()).toEqual([5_000_000_000n, null, 0n, null]);
    expect(ts.values()).toEqual([5_000_000_000n, null, 0n]);
    expect(small.values()).toEqual([7, null, 0]);
  });

  it('keeps one copy of each repeating string', () => {
    const b = columnBuffer('string', true);
    const parsed = (s: string) => JSON.parse(JSON.stringify(s)) as string;
    expect(b.push(parsed('text/html'))).toBe(9);
    b.push(null);
    b.push(parsed('text/html'));
    const v = b.values();
    expect(v).toEqual(['text/html', null, 'text/html']);
    b.clear();
    expect(b.values()).toEqual([]);
  });
});
