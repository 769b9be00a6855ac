/**
 * Size of what a collector has collected: its item lines (`items/`) and stored bodies (`files/`),
 * in bytes — not its logs or state. Walked like `du --apparent-size`, one directory at a time.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/** Bytes under `<data>/items` and `<data>/files`. */
export interface DataSize {
  items: number;
  files: number;
  /** items + files. */
  total: number;
  /** Regular files counted. */
  fileCount: number;
}

async function walk(dir: string, acc: { bytes: number; count: number }): Promise<void> {
  let handle: import('node:fs').Dir;
  try {
    handle = await fs.opendir(dir);
  } catch {
    return; // missing or unreadable: counts as empty
  }
  for await (const e of handle) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await walk(p, acc);
    else if (e.isFile()) {
      try {
        acc.bytes += (await fs.stat(p)).size;
        acc.count++;
      } catch {
        // removed meanwhile
      }
    }
  }
}

/** Measure `dataDir`'s collected data (bytes). A missing directory measures 0. */
export async function measureDataSize(dataDir: string): Promise<DataSize> {
  const items = { bytes: 0, count: 0 };
  const files = { bytes: 0, count: 0 };
  await walk(path.join(dataDir, 'items'), items);
  await walk(path.join(dataDir, 'files'), files);
  return {
    items: items.bytes,
    files: files.bytes,
    total: items.bytes + files.bytes,
    fileCount: items.count + files.count,
  };
}

/** `412 MB`, `1.2 GB`, `800 KB` (binary units, as sizes are given: 1 MB = 1024² bytes). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  // One decimal below 10 (1.5 GB), none above (412 MB), and no ".0" (1 GB).
  const shown = u === 0 || v >= 10 ? Math.round(v).toString() : v.toFixed(1).replace(/\.0$/, '');
  return `${shown} ${units[u]}`;
}
