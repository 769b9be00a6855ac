import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cgroupMemoryLimit, parseCgroupMounts, parseProcCgroup } from '../../src/supervision/memory-limit.js';
import { tempDir } from '../fixtures/cli.js';

const GiB = 1024 ** 3;
const V1_UNLIMITED = '9223372036854771712';

/** A directory tree mirroring a machine: `proc/self/{cgroup,mountinfo}` and cgroup files. */
function machine(files: Record<string, string>): { procSelf: string; fsRoot: string } {
  const root = tempDir('collector-cgroup-');
  for (const [p, text] of Object.entries(files)) {
    const f = path.join(root, p);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, text);
  }
  return { procSelf: path.join(root, 'proc/self'), fsRoot: root };
}

const V2_MOUNTINFO =
  '29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n';
// Debian 10 / CentOS 7 style: a tmpfs with one v1 hierarchy per controller, and a v2 one beside them.
const V1_MOUNTINFO = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '35 31 0:32 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:16 - cgroup cgroup rw,memory',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
  '',
].join('\n');

describe('cgroup memory limit', () => {
  it('parses /proc/self/cgroup and the cgroup mounts of mountinfo', () => {
    expect(parseProcCgroup('4:memory:/process_api/9e16\n1:cpu,cpuacct:/\n0::/user.slice\n')).toEqual([
      { id: '4', controllers: ['memory'], path: '/process_api/9e16' },
      { id: '1', controllers: ['cpu', 'cpuacct'], path: '/' },
      { id: '0', controllers: [], path: '/user.slice' },
    ]);
    const mounts = parseCgroupMounts(
      `${V1_MOUNTINFO}50 23 0:40 /a\\040b /mnt/with\\040space rw - cgroup2 none rw\n`,
    );
    expect(mounts.map((m) => [m.fstype, m.root, m.mountPoint, m.options.includes('memory')])).toEqual([
      ['cgroup', '/', '/sys/fs/cgroup/cpu', false],
      ['cgroup', '/', '/sys/fs/cgroup/memory', true],
      ['cgroup2', '/', '/sys/fs/cgroup/unified', false],
      ['cgroup2', '/a b', '/mnt/with space', false],
    ]);
  });

  it('v2: a systemd service takes the tightest memory.max of its cgroup and ancestors', () => {
    const m = machine({
      'proc/self/cgroup': '0::/system.slice/collector.service\n',
      'proc/self/mountinfo': V2_MOUNTINFO,
      'sys/fs/cgroup/cgroup.controllers': 'cpu memory pids\n',
      'sys/fs/cgroup/system.slice/memory.max': `${3 * GiB}\n`,
      'sys/fs/cgroup/system.slice/collector.service/memory.max': 'max\n',
    });
    expect(cgroupMemoryLimit(m)).toBe(3 * GiB);
  });

  it('v2 nested: the leaf is tighter than its parents', () => {
    const m = machine({
      'proc/self/cgroup': '0::/a/b/c\n',
      'proc/self/mountinfo': V2_MOUNTINFO,
      'sys/fs/cgroup/a/memory.max': `${8 * GiB}\n`,
      'sys/fs/cgroup/a/b/memory.max': 'max\n',
      'sys/fs/cgroup/a/b/c/memory.max': `${GiB}\n`,
    });
    expect(cgroupMemoryLimit(m)).toBe(GiB);
  });

  it('v2 in a container with its own cgroup namespace: the mount shows its cgroup as the root', () => {
    const m = machine({
      'proc/self/cgroup': '0::/\n',
      'proc/self/mountinfo': V2_MOUNTINFO,
      'sys/fs/cgroup/memory.max': `${512 * 1024 * 1024}\n`,
    });
    expect(cgroupMemoryLimit(m)).toBe(512 * 1024 * 1024);
  });

  it('v2 with no limit anywhere (`max`): none', () => {
    const m = machine({
      'proc/self/cgroup': '0::/user.slice/session-1.scope\n',
      'proc/self/mountinfo': V2_MOUNTINFO,
      'sys/fs/cgroup/user.slice/memory.max': 'max\n',
      'sys/fs/cgroup/user.slice/session-1.scope/memory.max': 'max\n',
    });
    expect(cgroupMemoryLimit(m)).toBeNull();
  });

  it('v1 (the case of issue 17): a 2 GiB limit deep in the memory hierarchy, unlimited above it', () => {
    const m = machine({
      'proc/self/cgroup': '9:name=systemd:/\n4:memory:/process_api/9e16\n1:cpu:/\n0::/\n',
      'proc/self/mountinfo': V1_MOUNTINFO,
      'sys/fs/cgroup/memory/memory.limit_in_bytes': `${V1_UNLIMITED}\n`,
      'sys/fs/cgroup/memory/process_api/memory.limit_in_bytes': `${V1_UNLIMITED}\n`,
      'sys/fs/cgroup/memory/process_api/9e16/memory.limit_in_bytes': `${2 * GiB}\n`,
      'sys/fs/cgroup/memory/process_api/9e16/memory.stat': `cache 0\nhierarchical_memory_limit ${2 * GiB}\n`,
    });
    expect(cgroupMemoryLimit(m)).toBe(2 * GiB);
  });

  it("v1: an ancestor's limit applies to its children", () => {
    const m = machine({
      'proc/self/cgroup': '4:memory:/system.slice/collector.service\n',
      'proc/self/mountinfo': V1_MOUNTINFO,
      'sys/fs/cgroup/memory/system.slice/memory.limit_in_bytes': `${GiB}\n`,
      'sys/fs/cgroup/memory/system.slice/collector.service/memory.limit_in_bytes': `${V1_UNLIMITED}\n`,
    });
    expect(cgroupMemoryLimit(m)).toBe(GiB);
  });

  it("v1 in a container without a cgroup namespace: its own cgroup mounted as the hierarchy's root", () => {
    const m = machine({
      'proc/self/cgroup': '4:memory:/docker/abc123\n',
      'proc/self/mountinfo':
        '700 699 0:32 /docker/abc123 /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory\n',
      'sys/fs/cgroup/memory/memory.limit_in_bytes': `${V1_UNLIMITED}\n`,
      // the host's limit on the container's parent is not visible, but the kernel sums it up here:
      'sys/fs/cgroup/memory/memory.stat': `hierarchical_memory_limit ${768 * 1024 * 1024}\n`,
    });
    expect(cgroupMemoryLimit(m)).toBe(768 * 1024 * 1024);
  });

  it('v1 unlimited everywhere (huge values): none', () => {
    const m = machine({
      'proc/self/cgroup': '4:memory:/user.slice\n',
      'proc/self/mountinfo': V1_MOUNTINFO,
      'sys/fs/cgroup/memory/memory.limit_in_bytes': `${V1_UNLIMITED}\n`,
      'sys/fs/cgroup/memory/user.slice/memory.limit_in_bytes': `${V1_UNLIMITED}\n`,
      'sys/fs/cgroup/memory/user.slice/memory.stat': `hierarchical_memory_limit ${V1_UNLIMITED}\n`,
    });
    expect(cgroupMemoryLimit(m)).toBeNull();
  });

  it('without mountinfo, the usual mount points are read', () => {
    const m = machine({
      'proc/self/cgroup': '0::/svc\n',
      'sys/fs/cgroup/svc/memory.max': `${GiB}\n`,
    });
    expect(cgroupMemoryLimit(m)).toBe(GiB);
  });

  it('no cgroup at all: none', () => {
    expect(cgroupMemoryLimit(machine({ 'proc/self/x': '' }))).toBeNull();
  });
});

// A real cgroup (v1 memory controller, as on this project's machines): needs root and a writable
// hierarchy; skipped with the reason otherwise.
const ownMemoryCgroup = (() => {
  const line = fs
    .readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((l) => /^\d+:([^:]*,)?memory(,[^:]*)?:/.test(l));
  const dir = line && path.join('/sys/fs/cgroup/memory', line.slice(line.lastIndexOf(':') + 1));
  try {
    if (!dir || process.getuid?.() !== 0) return null;
    fs.accessSync(dir, fs.constants.W_OK);
    return dir;
  } catch {
    return null;
  }
})();

describe.skipIf(ownMemoryCgroup === null)(
  'a real cgroup v1 memory limit (root, writable cgroup hierarchy)',
  () => {
    it('a crawl started inside a 2 GiB cgroup is refused 100 processes: the largest safe count is 25', async () => {
      const cg = path.join(ownMemoryCgroup as string, `collector-test-${process.pid}`);
      fs.mkdirSync(cg);
      try {
        fs.writeFileSync(path.join(cg, 'memory.limit_in_bytes'), String(2 * GiB));
        const out = tempDir();
        // The shell moves itself into the cgroup, then becomes the collector.
        const child = spawn(
          'sh',
          [
            '-c',
            `echo $$ > ${cg}/cgroup.procs && exec "$0" "$@"`,
            process.execPath,
            path.resolve(import.meta.dirname, '../../bin/collector.js'),
            'crawl',
            'http://127.0.0.1:9/',
            '--processes',
            '100',
            '--out',
            out,
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stderr = '';
        child.stderr.on('data', (d) => {
          stderr += d;
        });
        const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
        expect(stderr).toMatch(/of the 2048 MB memory limit .* the largest safe process count is 25 /);
        expect(code).toBe(2);
      } finally {
        fs.rmdirSync(cg);
      }
    });
  },
);
