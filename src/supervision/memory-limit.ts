/**
 * The memory limit of this process's own cgroup: the tightest of its cgroup's limit and every
 * ancestor's, for cgroup v2 (`memory.max`) and v1 (`memory.limit_in_bytes` of the memory
 * controller's hierarchy). The cgroup comes from `/proc/self/cgroup`, and where each hierarchy
 * is mounted from `/proc/self/mountinfo` (cgroups(7), proc(5)): a systemd service or a container
 * without its own cgroup namespace sits deep in the tree, and the root's limit says nothing.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Where the facts are read: injectable, so tests can use directories that mirror real layouts. */
export interface CgroupRoots {
  /** The process's /proc dir (holds `cgroup` and `mountinfo`). Default `/proc/self`. */
  procSelf: string;
  /** Prefix for the mount points read from mountinfo. Default `/`. */
  fsRoot: string;
}

const DEFAULT_ROOTS: CgroupRoots = { procSelf: '/proc/self', fsRoot: '/' };

/**
 * Limits at or above this many bytes mean "no limit": cgroup v1 writes an unlimited limit as
 * PAGE_COUNTER_MAX × page size (9223372036854771712 with 4 KiB pages).
 */
export const UNLIMITED_BYTES = 2 ** 62;

/** One line of /proc/self/cgroup: `hierarchy-id:controllers:path`. */
interface CgroupLine {
  id: string;
  controllers: string[];
  path: string;
}

/** One cgroup mount from /proc/self/mountinfo. */
interface CgroupMount {
  /** The cgroup path mounted there (field 4). */
  root: string;
  /** Where (field 5). */
  mountPoint: string;
  /** `cgroup2` or `cgroup`. */
  fstype: string;
  /** Super options: a v1 mount's controllers are among them. */
  options: string[];
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** mountinfo escapes space, tab, newline and backslash as `\ooo`. */
function unescapeOctal(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
}

/** Parse /proc/self/cgroup. */
export function parseProcCgroup(text: string): CgroupLine[] {
  const out: CgroupLine[] = [];
  for (const line of text.split('\n')) {
    const a = line.indexOf(':');
    const b = line.indexOf(':', a + 1);
    if (a < 0 || b < 0) continue;
    const controllers = line.slice(a + 1, b);
    out.push({
      id: line.slice(0, a),
      controllers: controllers ? controllers.split(',') : [],
      path: line.slice(b + 1),
    });
  }
  return out;
}

/** The cgroup mounts of /proc/self/mountinfo. */
export function parseCgroupMounts(text: string): CgroupMount[] {
  const out: CgroupMount[] = [];
  for (const line of text.split('\n')) {
    const sep = line.indexOf(' - ');
    if (sep < 0) continue;
    const left = line.slice(0, sep).split(' ');
    const right = line.slice(sep + 3).split(' ');
    const fstype = right[0];
    if ((fstype !== 'cgroup' && fstype !== 'cgroup2') || left.length < 5) continue;
    out.push({
      root: unescapeOctal(left[3]),
      mountPoint: unescapeOctal(left[4]),
      fstype,
      options: (right[2] ?? '').split(','),
    });
  }
  return out;
}

/** A limit file's value in bytes, or null for none (`max`, unlimited, missing, garbage). */
function readLimit(file: string): number | null {
  const v = readText(file)?.trim();
  if (v === undefined || v === '' || v === 'max') return null;
  const n = Number(v);
  return Number.isFinite(n) && n > 0 && n < UNLIMITED_BYTES ? n : null;
}

/**
 * The directory of cgroup `cgPath` under `mount`, and the mount's own directory: the walk up
 * stops there (ancestors above the mount's root are not visible).
 */
function cgroupDir(roots: CgroupRoots, mount: CgroupMount, cgPath: string): { dir: string; top: string } {
  const top = path.join(roots.fsRoot, mount.mountPoint);
  const root = mount.root.replace(/\/+$/, '');
  if (cgPath === root || cgPath.startsWith(`${root}/`))
    return { dir: path.join(top, cgPath.slice(root.length)), top };
  return { dir: top, top }; // the path is outside what is mounted: only the mount's own cgroup is seen
}

/** The smallest of `file` in `dir` and each parent up to `top`, or null. */
function tightestUp(dir: string, top: string, file: string): number | null {
  let best: number | null = null;
  for (let d = dir; ; d = path.dirname(d)) {
    const v = readLimit(path.join(d, file));
    if (v !== null && (best === null || v < best)) best = v;
    if (d === top || !d.startsWith(top) || path.dirname(d) === d) break;
  }
  return best;
}

/** The mount of one hierarchy that shows `cgPath` (the longest matching root), else the first. */
function pickMount(mounts: CgroupMount[], cgPath: string): CgroupMount | undefined {
  const showing = mounts.filter((m) => {
    const r = m.root.replace(/\/+$/, '');
    return cgPath === r || cgPath.startsWith(`${r}/`);
  });
  return showing.sort((a, b) => b.root.length - a.root.length)[0] ?? mounts[0];
}

/**
 * The memory limit of this process's cgroup and its ancestors, bytes: the smallest of every
 * `memory.max` (v2) and `memory.limit_in_bytes` (v1, plus the kernel's own
 * `hierarchical_memory_limit` of the cgroup, which also covers ancestors not mounted here).
 * @returns null when no limit is set (or cgroups are not available).
 */
export function cgroupMemoryLimit(roots: CgroupRoots = DEFAULT_ROOTS): number | null {
  const cgroups = parseProcCgroup(readText(path.join(roots.procSelf, 'cgroup')) ?? '');
  const mountinfo = readText(path.join(roots.procSelf, 'mountinfo'));
  // Without mountinfo: the usual places, mounted at their root.
  const mounts =
    mountinfo !== null
      ? parseCgroupMounts(mountinfo)
      : [
          { root: '/', mountPoint: '/sys/fs/cgroup', fstype: 'cgroup2', options: [] },
          { root: '/', mountPoint: '/sys/fs/cgroup/memory', fstype: 'cgroup', options: ['memory'] },
        ];
  const limits: number[] = [];
  const v2 = cgroups.find((c) => c.id === '0' && c.controllers.length === 0);
  const v2Mount =
    v2 &&
    pickMount(
      mounts.filter((m) => m.fstype === 'cgroup2'),
      v2.path,
    );
  if (v2 && v2Mount) {
    const { dir, top } = cgroupDir(roots, v2Mount, v2.path);
    const v = tightestUp(dir, top, 'memory.max');
    if (v !== null) limits.push(v);
  }
  const v1 = cgroups.find((c) => c.controllers.includes('memory'));
  const v1Mount =
    v1 &&
    pickMount(
      mounts.filter((m) => m.fstype === 'cgroup' && m.options.includes('memory')),
      v1.path,
    );
  if (v1 && v1Mount) {
    const { dir, top } = cgroupDir(roots, v1Mount, v1.path);
    const v = tightestUp(dir, top, 'memory.limit_in_bytes');
    if (v !== null) limits.push(v);
    const m = /^hierarchical_memory_limit (\d+)$/m.exec(readText(path.join(dir, 'memory.stat')) ?? '');
    const h = m ? Number(m[1]) : null;
    if (h !== null && h > 0 && h < UNLIMITED_BYTES) limits.push(h);
  }
  return limits.length > 0 ? Math.min(...limits) : null;
}
