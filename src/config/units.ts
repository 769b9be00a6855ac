/**
 * Parsing of human-written durations (`200ms`, `60s`, `5m`, `1h`) and sizes (`100MB`, `2G`)
 * used by both the config file and CLI flags, so every place accepts the same spelling.
 */

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};

const UNIT_RE = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/;

/**
 * Parse a duration into milliseconds.
 * @param input a number or a string such as `500`, `200ms`, `1.5s`, `5m`, `1h`, `1d`; a number or
 *   a bare number string means `defaultUnit` (`15` with `s` is 15000 ms).
 * @param defaultUnit unit of a bare number: `ms` (flags like `--delay`) or `s` (`--timeout`).
 * @returns milliseconds, a finite non-negative number.
 * @throws Error naming the input and the accepted forms when it cannot be parsed.
 */
export function parseDuration(input: string | number, defaultUnit: 'ms' | 's' = 'ms'): number {
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0)
      throw new Error(`expected a non-negative duration, got ${input}`);
    return input * DURATION_UNITS[defaultUnit];
  }
  const m = UNIT_RE.exec(input);
  const unit = m ? (m[2] || defaultUnit).toLowerCase() : '';
  const factor = DURATION_UNITS[unit];
  if (!m || factor === undefined) {
    throw new Error(`expected a duration such as 500ms, 15s, 5m or 1h, got "${input}"`);
  }
  return Number(m[1]) * factor;
}

/**
 * Parse a byte size.
 * @param input a number (bytes) or a string such as `1048576`, `512KB`, `10MB`, `2G` (binary units:
 *   1 KB = 1024 bytes, as memory limits are usually meant).
 * @returns bytes, a non-negative integer.
 * @throws Error naming the input and the accepted forms when it cannot be parsed.
 */
export function parseSize(input: string | number): number {
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) throw new Error(`expected a non-negative size, got ${input}`);
    return Math.floor(input);
  }
  const m = UNIT_RE.exec(input);
  const factor = m ? SIZE_UNITS[(m[2] || 'b').toLowerCase()] : undefined;
  if (!m || factor === undefined) {
    throw new Error(`expected a size such as 500KB, 10MB or 2G, got "${input}"`);
  }
  return Math.floor(Number(m[1]) * factor);
}

/** Units a duration is written back in, largest first. */
const DURATION_OUT: Array<[string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/**
 * Write a duration the way a person would: the largest unit that divides it (`600000` → `10m`,
 * `15000` → `15s`, `500` → `500ms`). {@link parseDuration} reads it back to the same value.
 * @param ms a non-negative duration in milliseconds.
 */
export function formatDuration(ms: number): string {
  for (const [unit, factor] of DURATION_OUT) if (ms > 0 && ms % factor === 0) return `${ms / factor}${unit}`;
  return `${ms}ms`;
}

/**
 * Write a byte size the way a person would: the largest binary unit that divides it
 * (`10485760` → `10MB`, `65536` → `64KB`, `1000` → `1000B`). {@link parseSize} reads it back.
 * @param bytes a non-negative integer.
 */
export function formatSize(bytes: number): string {
  for (const [unit, factor] of [
    ['TB', 1024 ** 4],
    ['GB', 1024 ** 3],
    ['MB', 1024 ** 2],
    ['KB', 1024],
  ] as const) {
    if (bytes > 0 && bytes % factor === 0) return `${bytes / factor}${unit}`;
  }
  return `${bytes}B`;
}
