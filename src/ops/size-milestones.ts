/**
 * `collector size`, for cron: measures the collected data (items and stored bodies, not logs) and
 * says one line each time it passes the next multiple of `every` — never twice for the same
 * milestone (the last one reported is kept in `<data>/state/size.json`, written before the line
 * is printed) — with the growth since the last report, the rate, and the share of and ETA to a
 * target when one is given.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { formatBytes, measureDataSize } from './data-size.js';
import { ago } from './health.js';
import { readOpsState, writeOpsState } from './ops-state.js';

/** Default of `--every`: 100 MB. */
export const DEFAULT_SIZE_EVERY = 100 * 1024 * 1024;

/** `<data>/state/size.json`. */
interface SizeState {
  version: 1;
  /** The last milestone reported (bytes), its measured size and when (epoch ms). */
  reported: { milestone: number; bytes: number; at: number } | null;
}

/** Options of one size check. */
export interface SizeOptions {
  dataDir: string;
  /** Milestone step, bytes. */
  every: number;
  /** Target size, bytes: adds the share reached and an ETA. */
  target?: number;
  now?: number;
}

/** When the data dir started collecting (its items directory's birth time), epoch ms; null if unknown. */
async function collectingSince(dataDir: string): Promise<number | null> {
  try {
    const st = await fs.stat(path.join(dataDir, 'items'));
    return st.birthtimeMs > 0 ? st.birthtimeMs : st.ctimeMs;
  } catch {
    return null;
  }
}

/**
 * The line for a milestone, e.g. `data: 412 MB (+100 MB in 3h10m, ~31 MB/h) — 41% of 1 GB, ETA 19h`.
 * @param since the previous report (or the start of collection), or null when unknown.
 */
export function milestoneLine(
  bytes: number,
  since: { bytes: number; at: number } | null,
  now: number,
  target?: number,
): string {
  let line = `data: ${formatBytes(bytes)}`;
  let perHour: number | null = null;
  if (since !== null && now > since.at) {
    const hours = (now - since.at) / 3_600_000;
    perHour = (bytes - since.bytes) / hours;
    line += ` (+${formatBytes(Math.max(0, bytes - since.bytes))} in ${ago(now - since.at)}, ~${formatBytes(Math.max(0, perHour))}/h)`;
  }
  if (target !== undefined) {
    const pct = Math.floor((bytes / target) * 100);
    if (bytes >= target) line += ` — ${pct}% of ${formatBytes(target)}: target reached`;
    else {
      line += ` — ${pct}% of ${formatBytes(target)}`;
      if (perHour !== null && perHour > 0) line += `, ETA ${ago(((target - bytes) / perHour) * 3_600_000)}`;
    }
  }
  return line;
}

/**
 * Measure and decide.
 * @returns the line to print, or null when no new milestone was passed since the last report.
 * @throws the fs error when the state file cannot be written (then nothing is printed either).
 */
export async function checkSize(opts: SizeOptions): Promise<string | null> {
  const now = opts.now ?? Date.now();
  const { total } = await measureDataSize(opts.dataDir);
  const state = await readOpsState<SizeState>(
    opts.dataDir,
    'size',
    { version: 1, reported: null },
    (v) => (v as SizeState)?.version === 1,
  );
  const milestone = Math.floor(total / opts.every) * opts.every;
  if (milestone <= 0 || milestone <= (state.reported?.milestone ?? 0)) return null;
  const start = await collectingSince(opts.dataDir);
  const since = state.reported ?? (start !== null ? { bytes: 0, at: start } : null);
  // Recorded before it is said: a crash between the two loses a line, never repeats one.
  await writeOpsState(opts.dataDir, 'size', {
    version: 1,
    reported: { milestone, bytes: total, at: now },
  } satisfies SizeState);
  return milestoneLine(total, since, now, opts.target);
}
