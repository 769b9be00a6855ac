/**
 * Flag parsers shared by the ops commands (status, watchdog, size, plan, install): durations,
 * sizes and counts, each failing with commander's one-line usage error.
 */
import { InvalidArgumentError } from 'commander';
import { parseDuration, parseSize } from '../config/units.js';

/** A duration flag (`10m`, `90s`; a bare number is seconds), in ms. */
export function durationFlag(v: string): number {
  try {
    return parseDuration(v, 's');
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

/** A size flag (`100MB`, `2G`), in bytes; 0 is refused. */
export function sizeFlag(v: string): number {
  let n: number;
  try {
    n = parseSize(v);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
  if (n <= 0) throw new InvalidArgumentError(`expected a size above 0, got "${v}"`);
  return n;
}

/** A positive integer flag. */
export function countFlag(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < 1 || n > 1_000_000) {
    throw new InvalidArgumentError(`expected an integer from 1 to 1000000, got "${v}"`);
  }
  return n;
}

/** A positive number flag (CPUs may be fractional: a cgroup quota of 1.5 CPUs). */
export function positiveNumberFlag(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 4096) {
    throw new InvalidArgumentError(`expected a number above 0, got "${v}"`);
  }
  return n;
}
