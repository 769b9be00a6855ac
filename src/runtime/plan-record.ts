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

const FILE = 'plan.json';

/** The recorded layouts of `dataDir`, or an empty record. */
export async function readPlanRecord(dataDir: string): Promise<PlanRecord> {
  try {
    return JSON.parse(await fs.readFile(path.join(dataDir, 'state', FILE), 'utf8')) as PlanRecord;
  } catch {
    return {};
  }
}

/** Whether two layouts assign URLs to processes the same way. */
export function sameLayout(a: TypeLayout, b: TypeLayout): boolean {
  return a.processes === b.processes && (a.processes === 1 || a.partition === b.partition);
}

/**
 * Check `current` against what `dataDir` recorded, then record it.
 * @param describe how to name a type in the message (e.g. `--processes` for crawl, `workers[1]` for run).
 * @throws UsageError when a type's layout changed.
 */
export async function checkAndRecordPlan(
  dataDir: string,
  current: PlanRecord,
  describe: (type: string, was: TypeLayout, now: TypeLayout) => string,
): Promise<void> {
  const recorded = await readPlanRecord(dataDir);
  for (const [type, now] of Object.entries(current)) {
    const was = recorded[type];
    if (was && !sameLayout(was, now)) throw new UsageError(describe(type, was, now));
  }
  await fs.mkdir(path.join(dataDir, 'state'), { recursive: true });
  await writeFileAtomic(
    path.join(dataDir, 'state', FILE),
    `${JSON.stringify({ ...recorded, ...current }, null, 2)}\n`,
  );
}
