/**
 * `collector install --cron | --systemd [--write]`: print (or install) the crontab block or the
 * systemd unit that runs a config unattended, with the watchdog and size reports, and the
 * environment file (mode 0600) both read the tokens from.
 */
import type { Command } from 'commander';
import { sizeFlag } from './ops-flags.js';

interface InstallFlags {
  cron: boolean;
  systemd: boolean;
  write: boolean;
  config: string;
  name: string;
  unitDir: string;
  secretsFile?: string;
  memoryLimit?: number;
  every: string;
  log?: string;
}

/** Register the `install` command. */
export function registerInstall(program: Command): void {
  program
    .command('install')
    .description('print (or --write) a crontab block or a systemd unit that runs a config unattended')
    .option('--cron', 'crontab block: start at boot, watchdog and size every 5 minutes under flock', false)
    .option('--systemd', 'systemd unit (and an environment file for tokens, mode 0600)', false)
    .option('--write', 'install it: the crontab of this user, or the unit in --unit-dir', false)
    .option('-c, --config <file>', 'config file to run', 'collector.yaml')
    .option('--name <name>', 'unit / block name', 'collector')
    .option('--unit-dir <dir>', 'where --write puts the unit', '/etc/systemd/system')
    .option(
      '--secrets-file <file>',
      'environment file for tokens, mode 0600 (default: systemd /etc/collector/<name>.env, cron ~/.config/collector/<name>.env)',
    )
    .option('--memory-limit <size>', 'MemoryMax (default: memory.limit, else what the plan needs)', sizeFlag)
    .option('--every <size>', 'size milestone step for the size report', '100MB')
    .option('--log <file>', 'cron: append output to this file instead of mailing it')
    .action(async (o: InstallFlags) => {
      const fs = await import('node:fs');
      const os = await import('node:os');
      const path = await import('node:path');
      const { UsageError } = await import('../config/usage-error.js');
      const { loadConfig } = await import('../config/config-file.js');
      const { estimatePlan, readMeasuredRss } = await import('../supervision/memory-guard.js');
      const { boxLimits } = await import('../ops/box-limits.js');
      const { cronBlock, envFileTemplate, systemdUnit } = await import('../ops/install.js');
      const { runWorkerSpecs } = await import('../runtime/run-job.js');
      const { credentialsOf } = await import('../supervision/launch-record.js');
      if (o.cron === o.systemd) throw new UsageError('install: give one of --cron or --systemd');
      sizeFlag(o.every);
      if (!/^[A-Za-z0-9_.@-]+$/.test(o.name))
        throw new UsageError(`--name ${o.name}: expected letters, digits, "_", ".", "@" or "-"`);
      const { config } = await loadConfig(o.config);
      const configPath = path.resolve(o.config);
      // The credential variables the sources read, each with its worker types (for the env file).
      const specs = await runWorkerSpecs(config, path.dirname(configPath));
      const credentials = credentialsOf(specs.map((s) => ({ type: s.group, env: s.credentialEnv ?? [] })));
      const template = envFileTemplate(credentials);
      const defaultEnvFile = o.cron
        ? path.join(os.homedir(), '.config', 'collector', `${o.name}.env`)
        : `/etc/collector/${o.name}.env`;
      const dataDir = path.resolve(path.dirname(configPath), config.data);
      const plan = config.workers.map((w) => ({
        processes: w.processes,
        concurrency: w.concurrency,
        renderPages: w.render === 'never' ? 0 : w.renderConcurrency,
      }));
      // MemoryMax: the limit as configured, else room for the plan at the guard's fraction.
      const needed = estimatePlan(plan, readMeasuredRss(dataDir)) / config.memory.limitFraction;
      const memoryMaxBytes =
        o.memoryLimit ?? config.memory.limit ?? Math.min(boxLimits().memoryBytes, Math.ceil(needed));
      const target = {
        node: process.execPath,
        bin: fs.realpathSync(process.argv[1]),
        config: configPath,
        dataDir,
        workDir: path.dirname(configPath),
        name: o.name,
        joinTimeoutMs: config.supervisor.joinTimeout ?? 10_000,
        memoryMaxBytes,
        envFile: path.resolve(o.secretsFile ?? defaultEnvFile),
        sizeEvery: o.every,
        cronLog: o.log ? path.resolve(o.log) : null,
      };
      if (o.cron) {
        const block = cronBlock(target);
        if (!o.write) {
          process.stdout.write(block);
          // stdout is the block alone (it is pasted); what it needs besides goes to stderr
          if (!fs.existsSync(target.envFile)) {
            const names = Object.keys(credentials);
            process.stderr.write(
              `collector: note: ${target.envFile} does not exist; each line sources it: create it (mode 0600, ` +
                `KEY=value lines${names.length > 0 ? `: ${names.join(', ')}` : ''}), or run with --write\n`,
            );
          }
        } else {
          const { writeCrontab } = await import('../ops/install-writer.js');
          process.stdout.write(`${writeCrontab(o.name, block, target.envFile, template).join('\n')}\n`);
        }
        return;
      }
      const unit = systemdUnit(target);
      if (!o.write) {
        process.stdout.write(unit);
        return;
      }
      const { writeSystemd } = await import('../ops/install-writer.js');
      const said = await writeSystemd(path.resolve(o.unitDir), o.name, unit, target.envFile, template);
      process.stdout.write(`${said.join('\n')}\n`);
    });
}
