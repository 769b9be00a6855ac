import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { computePlan, renderPlan, shareProcesses } from '../../src/ops/plan.js';
import { BROWSER_BASE, BROWSER_PER_PAGE } from '../../src/supervision/memory-guard.js';
import { runCli, tempDir } from '../fixtures/cli.js';

const MB = 1024 * 1024;
const GB = 1024 * MB;
// The example of docs/operating.md: docs 24 × 16 and news 8 × 8.
const TYPES = [
  { name: 'docs', source: 'crawl', processes: 24, concurrency: 16 },
  { name: 'news', source: 'crawl', processes: 8, concurrency: 8 },
];
const box = (cpus: number, memoryBytes: number) => ({
  cpus,
  cpuSource: '--cpus',
  memoryBytes,
  memorySource: '--memory-limit',
});
const plan = (cpus: number, mem: number, measured: number | null = null) =>
  computePlan({
    limits: box(cpus, mem),
    fraction: 0.8,
    types: TYPES,
    measured,
    statusPss: null,
    probe: null,
  });

describe('collector plan', () => {
  it('2C2G: the configured 32 processes need ~2008 MB, over 80%: refused; recommended 1 + 1 processes', () => {
    const p = plan(2, 2 * GB);
    // 48 MB shared + 56 MB supervisor + 24 × (56 + 4) MB + 8 × (56 + 2) MB
    expect(p.configured.peakBytes).toBe((48 + 56 + 24 * 60 + 8 * 58) * MB);
    expect(p.configured.refused).toMatch(
      /over 80% of the 2048 MB memory limit \(1638 MB\); the largest safe process count is 25/,
    );
    expect(Math.round(p.configured.share * 100)).toBe(98);
    expect(p.recommended.entries.map((e) => [e.name, e.processes, e.concurrency])).toEqual([
      ['docs', 1, 16],
      ['news', 1, 8],
    ]);
    expect(p.recommended.peakBytes).toBe((48 + 56 + 60 + 58) * MB);
    expect(p.recommended.refused).toBe(null);
    expect(p.mostThatFits).toBe(25);
    // 32 processes on 2 CPUs: more than the cores keep busy; the recommendation is not
    expect(p.busyProcesses).toBe(1);
    expect(p.configured.overCpus).toBe(true);
    expect(p.recommended.overCpus).toBe(false);
  });

  it('processes over what the CPUs keep busy are said, memory permitting or not; one per worker type is never over', () => {
    const one = (cpus: number, processes: number, types = 1) =>
      computePlan({
        limits: box(cpus, 64 * GB),
        fraction: 0.8,
        types: Array.from({ length: types }, (_, i) => ({
          name: `t${i}`,
          source: 'crawl',
          processes,
          concurrency: 8,
        })),
        measured: null,
        statusPss: null,
        probe: null,
      }).configured;
    expect(one(2, 50)).toMatchObject({ refused: null, overCpus: true });
    expect(one(2, 1).overCpus).toBe(false);
    expect(one(2, 1, 3).overCpus).toBe(false); // three worker types, one process each
    expect(one(8, 4).overCpus).toBe(false);
    expect(one(8, 5).overCpus).toBe(true);
    expect(one(1.5, 1).overCpus).toBe(false); // a fractional quota
  });

  it('2C4G: the same plan fits (49%); 4C8G: 25%, and at most 108 processes fit', () => {
    const p4 = plan(2, 4 * GB);
    expect(p4.configured.refused).toBe(null);
    expect(Math.round(p4.configured.share * 100)).toBe(49);
    expect(p4.mostThatFits).toBe(53);
    const p8 = plan(4, 8 * GB);
    expect(p8.configured.refused).toBe(null);
    expect(Math.round(p8.configured.share * 100)).toBe(25);
    expect(p8.mostThatFits).toBe(108);
    expect(plan(8, 8 * GB).recommended.processes).toBe(4); // 1 per 2 CPUs, shared 3 : 1
    expect(plan(8, 8 * GB).recommended.entries.map((e) => e.processes)).toEqual([3, 1]);
  });

  it('a measured per-process peak replaces the default estimate, as the memory guard does', () => {
    const p = plan(2, 2 * GB, 80 * MB);
    expect(p.configured.peakBytes).toBe((48 + 56 + 32 * 80) * MB);
    expect(p.mostThatFits).toBe(19);
  });

  it('the recommendation shrinks until the guard accepts it', () => {
    const p = computePlan({
      limits: box(16, 400 * MB),
      fraction: 0.8,
      types: [{ name: 'big', source: 'crawl', processes: 8, concurrency: 256 }],
      measured: null,
      statusPss: null,
      probe: null,
    });
    expect(p.recommended.refused).toBe(null);
    expect(p.recommended.processes).toBe(1);
  });

  it('shares processes by the configured weights, at least one each', () => {
    expect(shareProcesses(TYPES, 2)).toEqual([1, 1]);
    expect(shareProcesses(TYPES, 10)).toEqual([7, 3]);
    expect(shareProcesses(TYPES, 1)).toEqual([1, 1]);
  });

  it('from the command line: a simulated 2C2G box, text and JSON', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'collector.yaml');
    fs.writeFileSync(
      config,
      `data: ${dir}/data\nworkers:\n  - { name: docs, source: crawl, processes: 24, concurrency: 16, seeds: [https://docs.example.org/] }\n` +
        '  - { name: news, source: crawl, processes: 8, concurrency: 8, seeds: [https://news.example.org/] }\n',
    );
    const r = await runCli(['plan', '--config', config, '--cpus', '2', '--memory-limit', '2G']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^box: 2 CPUs \(--cpus\), memory limit 2 GB \(--memory-limit\); budget 80% = 1.6 GB/,
    );
    expect(r.stdout).toMatch(/configured\s+docs 24 × 16, news 8 × 8\s+32\s+2 GB\s+98%\s+refused: over 80%/);
    expect(r.stdout).toMatch(
      /configured\s+docs 24 × 16, news 8 × 8\s+32\s+2 GB\s+98%\s+refused: over 80%\s+over: 2 CPUs keep ~1 busy/,
    );
    expect(r.stdout).toMatch(/recommended\s+docs 1 × 16, news 1 × 8\s+2\s+222 MB\s+11%\s+ok\s+ok/);
    expect(r.stdout).toContain('configured plan: 32 processes on 2 CPUs, more than the cores keep busy');
    const j = JSON.parse(
      (await runCli(['plan', '--config', config, '--cpus', '4', '--memory-limit', '8G', '--json'])).stdout,
    );
    expect(j.configured.refused).toBe(null);
    expect(j.input.limits).toMatchObject({ cpus: 4, memoryBytes: 8 * GB });
    expect((await runCli(['plan', '--cpus', 'two'])).code).toBe(2);
  });

  it('refuses a config as run does: a misspelt key of a source is one line, not a plan with its default', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'typo.yaml');
    fs.writeFileSync(
      config,
      `data: ${dir}/data\nworkers:\n  - { name: docs, source: crawl, concurency: 8, seeds: [https://docs.example.org/] }\n`,
    );
    const r = await runCli(['plan', '--config', config]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'collector: typo.yaml: workers[0]: unknown key "concurency" (did you mean "concurrency"?)\n',
    );
    expect((await runCli(['run', '--config', config])).stderr).toBe(r.stderr);
  });

  it("docs/operating.md's three boxes for examples/collector.yaml (2C2G, 2C4G, 4C8G)", async () => {
    const example = path.resolve(import.meta.dirname, '../../examples/collector.yaml');
    const shown = [
      ['2', '2G', '14%', '11%', 26],
      ['2', '4G', '7%', '5%', 55],
      ['4', '8G', '3%', '3%', 111],
    ] as const;
    for (const [cpus, mem, configured, recommended, most] of shown) {
      const r = await runCli([
        'plan',
        '--config',
        example,
        '--cpus',
        cpus,
        '--memory-limit',
        mem,
        '--data',
        tempDir(),
      ]);
      expect(r.stdout).toMatch(
        new RegExp(`configured\\s+docs 2 × 8, blog 1 × 4\\s+3\\s+277 MB\\s+${configured}\\s+ok`),
      );
      expect(r.stdout).toMatch(
        new RegExp(`recommended\\s+docs 1 × 8, blog 1 × 4\\s+2\\s+219 MB\\s+${recommended}\\s+ok`),
      );
      expect(r.stdout).toContain(`at most ${most} processes fit`);
    }
  });

  it('a rendering worker type (render: auto) counts its browsers, and says so', () => {
    const input = (renderPages?: number) => ({
      limits: box(2, 2 * GB),
      fraction: 0.8,
      types: [{ name: 'spa', source: 'crawl', processes: 2, concurrency: 8, renderPages }],
      measured: null,
      statusPss: null,
      probe: null,
    });
    const plain = computePlan(input());
    const rendering = computePlan(input(2));
    expect(rendering.configured.peakBytes - plain.configured.peakBytes).toBe(
      2 * (BROWSER_BASE + 2 * BROWSER_PER_PAGE),
    );
    expect(rendering.recommended.entries[0].renderPages).toBe(2);
    const text = renderPlan(rendering);
    expect(text).toMatch(/rendering types \(render: auto\|always\), per process: a headless browser/);
    expect(text).toMatch(/spa 2 × 8 \(\+2 rendering\)/);
    expect(renderPlan(plain)).not.toMatch(/rendering/);
  });
});
