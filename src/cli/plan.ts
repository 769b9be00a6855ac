/**
 * `collector plan [--config F] [--memory-limit 2G] [--cpus 2]`: the scaling table of a config (or
 * of a default crawl) for this box or a simulated one, with what the memory guard would refuse.
 */
import type { Command } from 'commander';
import type { PlanType } from '../ops/plan.js';
import { positiveNumberFlag, sizeFlag } from './ops-flags.js';

/** Register the `plan` command. */
export function registerPlan(program: Command): void {
  program
    .command('plan')
    .description(
      'processes × concurrency per worker type for this box, expected peak memory, what would be refused',
    )
    .option('-c, --config <file>', 'config file to plan (default: a crawl with default options)')
    .option(
      '--data <dir>',
      "data directory whose measurements to use (default: the config's data, else ./data)",
    )
    .option(
      '--memory-limit <size>',
      'simulate this memory limit (2G; default: cgroup limit, else RAM)',
      sizeFlag,
    )
    .option(
      '--cpus <n>',
      'simulate this many CPUs (default: cgroup quota, else CPUs available)',
      positiveNumberFlag,
    )
    .option('--json', 'print the plan as JSON', false)
    .action(
      async (o: { config?: string; data?: string; memoryLimit?: number; cpus?: number; json: boolean }) => {
        const path = await import('node:path');
        const { boxLimits } = await import('../ops/box-limits.js');
        const { computePlan, renderPlan } = await import('../ops/plan.js');
        const { readMeasuredRss, memoryOf } = await import('../supervision/memory-guard.js');
        const { readStatusFile } = await import('../supervision/status-format.js');
        const { defaultProcesses } = await import('../config/crawl-options.js');
        const limits = boxLimits({ cpus: o.cpus, memoryLimit: o.memoryLimit });
        let types: PlanType[] = [
          {
            name: 'crawl',
            source: 'crawl',
            processes: defaultProcesses(Math.floor(limits.cpus)),
            concurrency: 16,
          },
        ];
        let fraction = 0.8;
        let dataDir = o.data ?? './data';
        if (o.config) {
          const { loadConfig } = await import('../config/config-file.js');
          const { runWorkerSpecs } = await import('../runtime/run-job.js');
          const { UsageError } = await import('../config/usage-error.js');
          const { config } = await loadConfig(o.config);
          // Checked as `run` checks it (each source loaded, its own keys, the seeds): a config run
          // refuses gets the same line here, not a plan made with a misspelt key's default.
          await runWorkerSpecs(config, path.dirname(path.resolve(o.config))).catch((e: unknown) => {
            if (e instanceof UsageError && /^workers\[/.test(e.message)) {
              throw new UsageError(`${path.basename(o.config!)}: ${e.message}`);
            }
            throw e;
          });
          types = config.workers.map((w, i) => ({
            name:
              w.name ??
              (config.workers.filter((x) => x.source === w.source).length > 1 ? `${w.source}${i}` : w.source),
            source: w.source,
            processes: w.processes,
            concurrency: w.concurrency,
            renderPages: w.render === 'never' ? 0 : w.renderConcurrency,
          }));
          fraction = config.memory.limitFraction;
          if (o.memoryLimit === undefined && config.memory.limit !== undefined) {
            limits.memoryBytes = config.memory.limit;
            limits.memorySource = 'memory.limit';
          }
          dataDir = o.data ?? config.data;
        }
        const status = await readStatusFile(path.resolve(dataDir));
        const pss = typeof status === 'string' ? [] : status.workers.map((w) => w.pssMB).filter((m) => m > 0);
        const plan = computePlan({
          limits,
          fraction,
          types,
          measured: readMeasuredRss(dataDir),
          statusPss: pss.length ? Math.max(...pss) * 1048576 : null,
          probe: memoryOf(process.pid) || null,
        });
        process.stdout.write(o.json ? `${JSON.stringify(plan, null, 2)}\n` : renderPlan(plan));
      },
    );
}
