/**
 * `collector run [--config collector.yaml]`: continuous multi-source collection (DESIGN §5).
 */
import path from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { listenAddress } from '../config/listen-address.js';
import { parseSize } from '../config/units.js';
import { UsageError } from '../config/usage-error.js';

/** The flags of `collector run`. */
interface RunCommandFlags {
  config: string;
  memoryLimit?: number;
  backend?: string;
  crawlId?: string;
  metrics?: string;
  quiet: boolean;
}

/** Register the `run` command. */
export function registerRun(program: Command): void {
  program
    .command('run')
    .description('run every worker type of a config file under one supervisor')
    .option('-c, --config <file>', 'config file (.yaml, .json, .mjs)', 'collector.yaml')
    .option(
      '--memory-limit <size>',
      'memory limit of the process tree, e.g. 2G (default: cgroup limit or RAM)',
      (v) => {
        try {
          return parseSize(v);
        } catch (e) {
          throw new InvalidArgumentError((e as Error).message);
        }
      },
    )
    .option(
      '--backend <url>',
      "share every worker type's crawl through Redis: redis://host:port/db (overrides backend:)",
    )
    .option('--crawl-id <name>', "with a Redis backend: the shared crawls' name (overrides crawlId:)")
    .option(
      '--metrics <host:port>',
      'serve Prometheus /metrics and the status page / (e.g. 127.0.0.1:9464; overrides metrics.listen)',
      (v) => {
        const r = listenAddress.safeParse(v);
        if (!r.success) throw new InvalidArgumentError('expected HOST:PORT, e.g. 127.0.0.1:9464');
        return r.data;
      },
    )
    .option('-q, --quiet', 'print nothing but errors', false)
    .action(async (o: RunCommandFlags) => {
      const { loadConfig } = await import('../config/config-file.js');
      const { runConfig } = await import('../runtime/run-job.js');
      const { locateDiskFull } = await import('../sinks/disk-full.js');
      const { config } = await loadConfig(o.config);
      const { sharedBackendFlags } = await import('../config/shared-backend-flags.js');
      Object.assign(config, sharedBackendFlags(o));
      if (o.metrics !== undefined) config.metrics = { ...config.metrics, listen: o.metrics };
      try {
        process.exitCode = await runConfig(config, {
          memoryLimit: o.memoryLimit,
          quiet: o.quiet,
          baseDir: path.dirname(path.resolve(o.config)),
          configFile: o.config,
        });
      } catch (e) {
        // Problems found in the file's content name the file, like schema errors do.
        if (e instanceof UsageError && /^(workers\[|backend |worker type )/.test(e.message)) {
          throw new UsageError(`${path.basename(o.config)}: ${e.message}`);
        }
        throw locateDiskFull(e, config.data);
      }
    });
}
