/**
 * The recorded process layout of a data dir, rebuilt from the state it describes when
 * `state/plan.json` is lost or damaged: the state dirs (`state/<type>-<i>/`) and items files tell
 * each worker type's process count, and the URLs in each worker's frontier log tell the partition
 * (each worker only logs URLs it owns). When the state cannot tell, the resume is refused: a
 * guessed layout would split URLs among processes anew and fetch them twice.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../config/usage-error.js';
import { FRONTIER_LOG } from '../frontier/journal.js';
import { hostKey } from '../url/canonicalize.js';
import { ownerOf } from '../url/ownership.js';
import { loadPlanRecord, PLAN_FILE, type PlanRecord, type TypeLayout } from './plan-record.js';

/** Bytes read from the start of each frontier log to tell the partition. */
export const PARTITION_SAMPLE_BYTES = 256 * 1024;

type Partition = TypeLayout['partition'];

/** Worker numbers found per worker type: `state/<type>-<i>/` dirs and `items/<type>-<i>.jsonl` files. */
export async function workersOnDisk(dataDir: string): Promise<Map<string, Set<number>>> {
  const found = new Map<string, Set<number>>();
  const add = (name: string) => {
    const m = /^(.+)-(\d+)$/.exec(name);
    if (!m) return;
    const set = found.get(m[1]) ?? new Set<number>();
    set.add(Number(m[2]));
    found.set(m[1], set);
  };
  for (const d of await fs.readdir(path.join(dataDir, 'state'), { withFileTypes: true }).catch(() => [])) {
    if (d.isDirectory()) add(d.name);
  }
  for (const f of await fs.readdir(path.join(dataDir, 'items')).catch(() => [] as string[])) {
    if (f.endsWith('.jsonl')) add(f.slice(0, -'.jsonl'.length));
  }
  return found;
}

/** URLs from the start of a worker's frontier log (complete lines only). */
async function sampleUrls(dataDir: string, workerId: string): Promise<string[]> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(path.join(dataDir, 'state', workerId, FRONTIER_LOG), 'r');
  } catch {
    return [];
  }
  try {
    const buf = Buffer.alloc(PARTITION_SAMPLE_BYTES);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const text = buf.toString('utf8', 0, bytesRead);
    const lines = text.slice(0, text.lastIndexOf('\n') + 1).split('\n');
    return lines.map((l) => l.slice(l.indexOf('\t') + 1)).filter((u) => /^https?:\/\//.test(u));
  } finally {
    await fh.close();
  }
}

/** The seeds recorded in `state/crawl.json` (crawl), for the default partition. */
async function recordedSeeds(dataDir: string): Promise<string[]> {
  try {
    const rec = JSON.parse(await fs.readFile(path.join(dataDir, 'state', 'crawl.json'), 'utf8'));
    return Array.isArray(rec?.seeds) ? rec.seeds.filter((s: unknown) => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The layout of one worker type, from its workers' frontier logs.
 * @param hint the partition to take when the logs fit both (the one asked for now, or the
 *   seeds' default).
 * @returns the layout, or the reason it cannot be told.
 */
async function recoverType(
  dataDir: string,
  type: string,
  indexes: Set<number>,
  hint: Partition,
): Promise<TypeLayout | string> {
  const processes = Math.max(...indexes) + 1;
  if (processes === 1) return { processes, partition: hint };
  const fits: Partition[] = [];
  let urls = 0;
  for (const by of ['host', 'url'] as const) {
    let ok = true;
    for (let i = 0; i < processes && ok; i++) {
      const sample = await sampleUrls(dataDir, `${type}-${i}`);
      if (by === 'host') urls += sample.length;
      ok = sample.every((u) => ownerOf(u, processes, by) === i);
    }
    if (ok) fits.push(by);
  }
  if (fits.length === 1) return { processes, partition: fits[0] };
  if (fits.length === 2 && urls > 0) return { processes, partition: hint };
  if (fits.length === 2) return `no URL in the frontier logs of ${type}-0..${processes - 1}`;
  return `the frontier logs of ${type}-0..${processes - 1} fit no partition of ${processes} processes`;
}

/**
 * The recorded layouts of `dataDir`: `state/plan.json`, or, when it is missing or damaged while
 * state exists, the layouts recovered from that state (a notice says so; the caller records them).
 * @param hints per worker type, the partition asked for now (used only when the state fits both).
 * @param label how the directory is named in messages (`--out DIR`, `data DIR`).
 * @param notice where the one-line notice goes. Default: stderr.
 * @throws UsageError naming the file and what to do when a layout cannot be recovered.
 */
export async function recordedPlan(
  dataDir: string,
  hints: Record<string, Partition | undefined>,
  label: string,
  notice: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<PlanRecord> {
  const loaded = await loadPlanRecord(dataDir);
  if (loaded.status === 'ok') return loaded.record;
  const onDisk = await workersOnDisk(dataDir);
  if (onDisk.size === 0) return {}; // nothing written yet: nothing to protect
  const file = path.join(dataDir, 'state', PLAN_FILE);
  const seeds = await recordedSeeds(dataDir);
  const seedDefault: Partition = new Set(seeds.map(hostKey)).size <= 1 ? 'url' : 'host';
  const record: PlanRecord = {};
  for (const [type, indexes] of onDisk) {
    const got = await recoverType(dataDir, type, indexes, hints[type] ?? seedDefault);
    if (typeof got === 'string') {
      throw new UsageError(
        `${label}: ${file} is ${loaded.status} and the process layout of "${type}" cannot be recovered ` +
          `from the state (${got}); restore it, e.g. {"${type}": {"processes": N, "partition": "host"}} ` +
          'with the values the crawl was started with, or use a new directory',
      );
    }
    record[type] = got;
  }
  const told = Object.entries(record)
    .map(
      ([t, l]) =>
        `${t}: ${l.processes} process${l.processes === 1 ? '' : 'es'}${l.processes > 1 ? `, partition ${l.partition}` : ''}`,
    )
    .join('; ');
  notice(`collector: ${file} was ${loaded.status}; layout recovered from the state: ${told}`);
  return record;
}
