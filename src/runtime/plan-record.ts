/**
 * The process layout a data dir was written with (`<data>/state/plan.json`): per worker type,
 * its process count and partition. They decide which process owns each URL, so a resume with a
 * different layout would fetch URLs twice or lose them; it is refused with a clear message.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../config/usage-error.js';
import { writeFileAtomic } from '../sinks/atomic-file.js';

/** Layout of one worker type. */
export interface TypeLayout {
  processes: number;
  partition: 'host' | 'url';
}

/** Layouts by worker type name. */
export type PlanRecord = Record<string, TypeLayout>;

/** Name of the record in `<data>/state/`. */
export const PLAN_FILE = 'plan.json';

/** A record as read: `missing` (no file) and `damaged` (not a valid record) read as empty. */
export interface LoadedPlan {
  record: PlanRecord;
  status: 'ok' | 'missing' | 'damaged';
}

function validLayout(v: unknown): v is TypeLayout {
  const l = v as TypeLayout;
  return (
    typeof l === 'object' &&
    l !== null &&
    Number.isSafeInteger(l.processes) &&
    l.processes > 0 &&
    (l.partition === 'host' || l.partition === 'url')
  );
}

/** Read and validate `<data>/state/plan.json`. */
export async function loadPlanRecord(dataDir: string): Promise<LoadedPlan> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dataDir, 'state', PLAN_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { record: {}, status: 'missing' };
    return { record: {}, status: 'damaged' };
  }
  try {
    const r = JSON.parse(text) as unknown;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) throw new Error('not an object');
    if (!Object.values(r).every(validLayout)) throw new Error('not a layout');
    return { record: r as PlanRecord, status: 'ok' };
  } catch {
    return { record: {}, status: 'damaged' };
  }
}

/** Whether two layouts assign URLs to processes the same way. */
export function sameLayout(a: TypeLayout, b: TypeLayout): boolean {
  return a.processes === b.processes && (a.processes === 1 || a.partition === b.partition);
}

/**
 * Check `current` against what `dataDir` recorded (`recorded`: see plan-recovery.ts for a record
 * that was lost), then record it.
 * @param describe how to name a type in the message (e.g. `--processes` for crawl, `workers[1]` for run).
 * @throws UsageError when a type's layout changed.
 */
export async function checkAndRecordPlan(
  dataDir: string,
  current: PlanRecord,
  describe: (type: string, was: TypeLayout, now: TypeLayout) => string,
  recorded: PlanRecord,
): Promise<void> {
  for (const [type, now] of Object.entries(current)) {
    const was = recorded[type];
    if (was && !sameLayout(was, now)) throw new UsageError(describe(type, was, now));
  }
  await fs.mkdir(path.join(dataDir, 'state'), { recursive: true });
  await writeFileAtomic(
    path.join(dataDir, 'state', PLAN_FILE),
    `${JSON.stringify({ ...recorded, ...current }, null, 2)}\n`,
  );
}
