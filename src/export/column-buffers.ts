/**
 * A Parquet row group's values while it is gathered (parquet-format.ts), kept out of the
 * JavaScript heap where they can be: strings and JSON as UTF-8 bytes in one growing buffer per
 * column, numbers in typed arrays, reused from one row group to the next. A row group holds
 * thousands of rows for the time of their reading; as JavaScript strings and objects they
 * outlived the young generation and grew the old one (V8's heap reached 5× its live size, an
 * export's RSS 200 MB: bench/RESULTS.md, 2026-12-03); as bytes they leave nothing to collect. The
 * values the encoder takes (one array per column) are made at the end of the group and dropped
 * with it.
 */
import type { ColumnType } from './columns.js';

/** Bytes a byte column starts with. */
const FIRST_BYTES = 64 * 1024;

/** Most bytes a byte column keeps between row groups (more was for one huge value). */
const MOST_KEPT_BYTES = 16 * 1024 * 1024;

/** Rows a column starts with room for. */
const FIRST_ROWS = 1024;

/** Distinct strings a repeating column keeps one copy of (beyond: each kept as it came). */
const MOST_DISTINCT = 4096;

/** One column's values of the row group being gathered. */
export interface ColumnBuffer {
  /**
   * Add the next row's value (null: none; a string column takes its UTF-8 bytes as well, copied).
   * @returns the bytes it takes (UTF-8 bytes of a string or JSON text; 8 for a number, 0 for null).
   */
  push(value: unknown): number;
  /** The values so far as the encoder takes them (bytes as `Uint8Array` views, int64 as bigint). */
  values(): unknown[];
  /** Start the next row group (the views of {@link values} are then overwritten). */
  clear(): void;
}

/**
 * The buffer for a column of `type`.
 * @param repeats the column has few distinct values (columns.ts): its strings are kept as
 *   strings, one copy of each, for the encoder's dictionary.
 */
export function columnBuffer(type: ColumnType, repeats: boolean): ColumnBuffer {
  switch (type) {
    case 'string':
      return repeats ? new RepeatingStrings() : new ByteValues(false);
    case 'json':
      return new ByteValues(true);
    case 'int32':
      return new NumberValues(false);
    case 'int64':
    case 'timestamp':
      return new NumberValues(true);
  }
}

/** Strings (or JSON values, as JSON text) as UTF-8 bytes, one after the other. */
class ByteValues implements ColumnBuffer {
  private bytes = Buffer.allocUnsafeSlow(FIRST_BYTES);
  private used = 0;
  /** End of each row's bytes in {@link bytes}; -1 for null. */
  private ends = new Int32Array(FIRST_ROWS);
  private count = 0;

  constructor(private readonly json: boolean) {}

  push(value: unknown): number {
    if (this.count === this.ends.length) this.ends = grown(this.ends);
    if (!this.json && value instanceof Uint8Array) {
      if (this.bytes.length - this.used < value.length) this.grow(value.length);
      this.bytes.set(value, this.used);
      this.used += value.length;
      this.ends[this.count++] = this.used;
      return value.length;
    }
    if (value === null || value === undefined || (!this.json && typeof value !== 'string')) {
      this.ends[this.count++] = -1;
      return 0;
    }
    const text = this.json ? JSON.stringify(value) : (value as string);
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    if (this.bytes.length - this.used < text.length * 3) this.grow(text.length * 3);
    const n = this.bytes.write(text, this.used, 'utf8');
    this.used += n;
    this.ends[this.count++] = this.used;
    return n;
  }

  values(): unknown[] {
    const out = new Array<unknown>(this.count);
    let start = 0;
    for (let i = 0; i < this.count; i++) {
      const end = this.ends[i];
      if (end < 0) {
        out[i] = null;
        continue;
      }
      out[i] = this.bytes.subarray(start, end);
      start = end;
    }
    return out;
  }

  clear(): void {
    this.count = 0;
    this.used = 0;
    // One huge value (a 50 MB page) does not keep its room for the rest of the export.
    if (this.bytes.length > MOST_KEPT_BYTES) this.bytes = Buffer.allocUnsafeSlow(FIRST_BYTES);
  }

  private grow(least: number): void {
    const next = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.used + least));
    this.bytes.copy(next, 0, 0, this.used);
    this.bytes = next;
  }
}

/** Whole numbers in a float array (exact to 2^53, as the columns read them: columns.ts). */
class NumberValues implements ColumnBuffer {
  private numbers = new Float64Array(FIRST_ROWS);
  private isNull = new Uint8Array(FIRST_ROWS);
  private count = 0;

  constructor(private readonly big: boolean) {}

  push(value: unknown): number {
    if (this.count === this.numbers.length) {
      this.numbers = grown(this.numbers);
      this.isNull = grown(this.isNull);
    }
    const none = typeof value !== 'number';
    this.isNull[this.count] = none ? 1 : 0;
    this.numbers[this.count++] = none ? 0 : value;
    return none ? 0 : 8;
  }

  values(): unknown[] {
    const out = new Array<unknown>(this.count);
    for (let i = 0; i < this.count; i++)
      out[i] = this.isNull[i] ? null : this.big ? BigInt(this.numbers[i]) : this.numbers[i];
    return out;
  }

  clear(): void {
    this.count = 0;
  }
}

/**
 * Strings of few distinct values, each kept once (the first copy seen), so that the copies each
 * row parsed die young; the encoder builds its dictionary from them.
 */
class RepeatingStrings implements ColumnBuffer {
  private strings: (string | null)[] = [];
  private readonly seen = new Map<string, string>();

  push(value: unknown): number {
    if (typeof value !== 'string') {
      this.strings.push(null);
      return 0;
    }
    let kept = this.seen.get(value);
    if (kept === undefined) {
      kept = value;
      if (this.seen.size < MOST_DISTINCT) this.seen.set(value, value);
    }
    this.strings.push(kept);
    return kept.length;
  }

  values(): unknown[] {
    return this.strings;
  }

  clear(): void {
    this.strings = [];
  }
}

/** A typed array of twice the length with the same first elements. */
function grown<T extends Int32Array | Float64Array | Uint8Array>(a: T): T {
  const next = new (a.constructor as new (n: number) => T)(a.length * 2);
  next.set(a);
  return next;
}
