/**
 * Runs one command as a child process and measures it: wall time, CPU time (user + sys of the
 * command and every descendant it waited for) and peak RSS summed over its process tree.
 *
 * Why a bash wrapper: Node has no getrusage(RUSAGE_CHILDREN) and `/usr/bin/time` is not on a
 * fresh machine, but bash is. The wrapper runs the command, then its `times` builtin prints
 * the children's user/sys time (getrusage, ms resolution) on fd 3. The wrapper itself is
 * excluded from the RSS sum.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const WRAPPER = [
  's=$EPOCHREALTIME',
  '"$@" 3>&-',
  'rc=$?',
  'e=$EPOCHREALTIME',
  '{ echo "rc $rc"; echo "t $s $e"; times; } >&3',
].join('\n');

/** Default sampling interval of the process tree's RSS (ms). */
export const RSS_SAMPLE_MS = 50;

/** Most output kept from the child's stdout/stderr (bytes). */
const OUTPUT_KEEP = 1 << 20;

/** Wrapper pids of the measurements still running (for killAll). */
const live = new Set();

/** SIGKILL the process trees of all running measurements (on the runner's own exit). */
export function killAll() {
  for (const pid of live) killTree(pid, 'SIGKILL');
}

export function killTree(rootPid, signal) {
  for (const pid of descendants(rootPid)) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Run `argv` (argv[0] is the program) in `cwd`. After `timeoutS` seconds the command's process
 * tree gets SIGTERM, 5 s later SIGKILL, and the result has `timedOut: true`.
 * @returns {Promise<{rc: number|null, wallS: number, userS: number, sysS: number, cpuS: number,
 *   peakRssBytes: number, processes: number, busyS: number, timedOut: boolean, stdout: string,
 *   stderr: string}>}
 *   Also startEpochS/endEpochS: wall-clock (epoch seconds) of the command's start and exit.
 *   `busyS` is the CPU time the whole machine spent (all processes, from /proc/stat) during the
 *   run, so a reader can see how much else was running (e.g. the server).
 */
export function measure(argv, { cwd, env, timeoutS = Infinity } = {}) {
  return new Promise((resolve, reject) => {
    const busy0 = machineBusySeconds();
    const t0 = process.hrtime.bigint();
    const child = spawn('bash', ['-c', WRAPPER, 'bench-wrapper', ...argv], {
      cwd,
      env: env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    const out = { stdout: '', stderr: '', fd3: '' };
    const keep = (k) => (chunk) => {
      if (out[k].length < OUTPUT_KEEP) out[k] += chunk.toString();
    };
    child.stdout.on('data', keep('stdout'));
    child.stderr.on('data', keep('stderr'));
    child.stdio[3].on('data', keep('fd3'));

    live.add(child.pid);
    const tree = new TreeRss(child.pid);
    const timer = setInterval(() => tree.sample(), RSS_SAMPLE_MS);
    tree.sample();
    let timedOut = false;
    const killers = [];
    if (Number.isFinite(timeoutS)) {
      killers.push(
        setTimeout(() => {
          timedOut = true;
          killTree(child.pid, 'SIGTERM');
          killers.push(setTimeout(() => killTree(child.pid, 'SIGKILL'), 5000));
        }, timeoutS * 1000),
      );
    }
    const done = () => {
      clearInterval(timer);
      for (const k of killers) clearTimeout(k);
      live.delete(child.pid);
    };

    child.on('error', (e) => {
      done();
      reject(e);
    });
    child.on('close', (code) => {
      done();
      const nodeWallS = Number(process.hrtime.bigint() - t0) / 1e9;
      const busyS = machineBusySeconds() - busy0;
      const rcLine = /^rc (\d+)$/m.exec(out.fd3);
      const tLine = /^t ([\d.,]+) ([\d.,]+)$/m.exec(out.fd3);
      const times = [...out.fd3.matchAll(/(\d+)m([\d.,]+)s/g)].map((m) => Number(m[1]) * 60 + num(m[2]));
      if (!rcLine || times.length < 4) {
        reject(new Error(`wrapper did not report (exit ${code}): ${out.stderr.slice(-2000)}`));
        return;
      }
      // `times` prints the shell's own user/sys, then its children's user/sys.
      const [userS, sysS] = times.slice(2, 4);
      const wallS = tLine && tLine[1] !== '' ? num(tLine[2]) - num(tLine[1]) : nodeWallS;
      resolve({
        rc: Number(rcLine[1]),
        timedOut,
        wallS,
        userS,
        sysS,
        cpuS: userS + sysS,
        startEpochS: tLine && tLine[1] !== '' ? num(tLine[1]) : null,
        endEpochS: tLine && tLine[2] !== '' ? num(tLine[2]) : null,
        peakRssBytes: tree.peakBytes(),
        processes: tree.seen.size,
        busyS,
        stdout: out.stdout,
        stderr: out.stderr,
      });
    });
  });
}

function num(s) {
  return Number(s.replace(',', '.'));
}

/** Tracks the summed VmRSS of the descendants of `rootPid` (the root itself excluded). */
class TreeRss {
  constructor(rootPid) {
    this.rootPid = rootPid;
    this.peakSum = 0;
    /** pid → highest VmHWM seen (the kernel's exact peak for that process so far). */
    this.seen = new Map();
  }

  sample() {
    let sum = 0;
    for (const pid of descendants(this.rootPid)) {
      const st = readStatus(pid);
      if (!st) continue;
      sum += st.rss;
      this.seen.set(pid, Math.max(this.seen.get(pid) ?? 0, st.hwm));
    }
    this.peakSum = Math.max(this.peakSum, sum);
  }

  /**
   * Peak of the summed RSS. Sampling can miss a short spike; a single process's VmHWM cannot,
   * so the larger of the two (both lower bounds of the true summed peak) is reported.
   */
  peakBytes() {
    return Math.max(this.peakSum, ...this.seen.values(), 0);
  }
}

/** Pids of all descendants of `pid`, via /proc/<pid>/task/<tid>/children or a /proc scan. */
export function descendants(pid) {
  const result = [];
  const stack = [pid];
  let viaScan = null;
  while (stack.length) {
    const p = stack.pop();
    let kids = childrenOf(p);
    if (kids === null) {
      viaScan ??= scanParents();
      kids = viaScan.get(p) ?? [];
    }
    for (const k of kids) {
      result.push(k);
      stack.push(k);
    }
  }
  return result;
}

/** Children of `pid` from the kernel (CONFIG_PROC_CHILDREN), [] if gone, null if unsupported. */
function childrenOf(pid) {
  let tids;
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const kids = [];
  for (const tid of tids) {
    try {
      for (const s of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ')) {
        if (s.trim()) kids.push(Number(s));
      }
    } catch (e) {
      if (e.code === 'ENOENT' && tid === String(pid) && !existsProc(pid)) return [];
      if (e.code === 'ENOENT') return null;
    }
  }
  return kids;
}

function existsProc(pid) {
  try {
    readFileSync(`/proc/${pid}/stat`);
    return true;
  } catch {
    return false;
  }
}

/** ppid → [pid] for every process, from /proc/<pid>/stat. */
function scanParents() {
  const map = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!map.has(ppid)) map.set(ppid, []);
      map.get(ppid).push(Number(name));
    } catch {
      // the process exited while scanning
    }
  }
  return map;
}

/** VmRSS, VmHWM, RssAnon (bytes) and thread count of `pid`, or null if it is gone (or a zombie without memory). */
export function readStatus(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const rss = /^VmRSS:\s+(\d+) kB/m.exec(text);
  const hwm = /^VmHWM:\s+(\d+) kB/m.exec(text);
  const anon = /^RssAnon:\s+(\d+) kB/m.exec(text);
  const threads = /^Threads:\s+(\d+)/m.exec(text);
  if (!rss) return null;
  return {
    rss: Number(rss[1]) * 1024,
    hwm: hwm ? Number(hwm[1]) * 1024 : 0,
    anon: anon ? Number(anon[1]) * 1024 : 0,
    threads: threads ? Number(threads[1]) : 0,
  };
}

/**
 * Proportional set size of `pid` (shared pages — the node binary, libraries — divided among the
 * processes mapping them), from /proc/<pid>/smaps_rollup; bytes, or null if unavailable. A sum
 * of PSS over processes is what they really occupy; a sum of VmRSS counts shared pages N times.
 */
export function readPss(pid) {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Summed VmRSS of `pid` and all its descendants (threads are inside their process), bytes. */
export function treeRssBytes(pid) {
  let sum = 0;
  for (const p of [pid, ...descendants(pid)]) sum += readStatus(p)?.rss ?? 0;
  return sum;
}

/**
 * utime + stime of `pid` and its live descendants, plus the children they already reaped
 * (cutime + cstime), from /proc/<pid>/stat; seconds. Processes gone before the call are missed.
 */
export function treeCpuSeconds(pid) {
  let ticks = 0;
  for (const p of [pid, ...descendants(pid)]) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch {
      // exited
    }
  }
  return ticks / CLK_TCK;
}

/** CPU seconds (all CPUs, all processes, non-idle) the machine has spent since boot. */
export function machineBusySeconds() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal guest guest_nice; guest is inside user.
  const busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
  return busy / CLK_TCK;
}

/** USER_HZ: 100 on every Linux architecture Node supports. */
const CLK_TCK = 100;
