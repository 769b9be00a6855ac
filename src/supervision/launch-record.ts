/**
 * How this collector was started, recorded in status.json so the watchdog can prove a pid is this
 * collector (the exact command line) and start it again the same way (command line, working
 * directory, data dir). Environment variables are not recorded: they may hold tokens.
 */
import path from 'node:path';
import { processCmdline } from './process-identity.js';

/** The start of a collector, as the watchdog needs it. */
export interface LaunchRecord {
  /** `crawl` or `run`. */
  command: 'crawl' | 'run';
  /** This process's command line as the kernel has it (`/proc/self/cmdline`): node, its flags, the script, the arguments. */
  cmdline: string[];
  /** The command line that starts it again: `cmdline`, plus `--resume` for a crawl (its output is not empty any more). */
  restartArgv: string[];
  /** Working directory at start (relative paths in the command line are relative to it). */
  cwd: string;
  /** Absolute data directory (`--out` of a crawl, `data` of a config). */
  dataDir: string;
  /** Absolute path of the config file of `run` (notify and metrics settings), else null. */
  configFile: string | null;
  /**
   * Credential variables its sources name (`credentialEnv`) that were unset or empty at start, each
   * with the worker types that read it: names only, never values. Absent when none.
   */
  unsetEnv?: Record<string, string[]>;
}

/**
 * Every credential variable of `types`, each with the worker types that read it.
 * @param types each worker type with the variables its source names (`credentialEnv`).
 */
export function credentialsOf(
  types: Array<{ type: string; env: readonly string[] }>,
): Record<string, string[]> {
  const all: Record<string, string[]> = {};
  for (const t of types) {
    for (const name of t.env) {
      all[name] ??= [];
      if (!all[name].includes(t.type)) all[name].push(t.type);
    }
  }
  return all;
}

/**
 * The credential variables of `types` that are unset or empty in `env`, each with the worker
 * types that read it (for {@link LaunchRecord.unsetEnv}); empty when all are set.
 */
export function unsetCredentials(
  types: Array<{ type: string; env: readonly string[] }>,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string[]> {
  return Object.fromEntries(Object.entries(credentialsOf(types)).filter(([name]) => !env[name]));
}

/**
 * One line per credential variable the collector started without (no `collector:` prefix):
 * `GITHUB_TOKEN is not set: worker type topics runs without it`. Said at start, by `status`
 * (`warnings`) and by the watchdog after a restart.
 */
export function credentialWarnings(launch: Pick<LaunchRecord, 'unsetEnv'>): string[] {
  return Object.entries(launch.unsetEnv ?? {}).map(([name, types]) => {
    const who = types.length === 1 ? `worker type ${types[0]} runs` : `worker types ${types.join(', ')} run`;
    return `${name} is not set: ${who} without it`;
  });
}

/**
 * The launch record of this process.
 * @param command the command being run; a crawl gets `--resume` in its restart command line.
 * @param dataDir the data directory as given (made absolute against the working directory).
 * @param configFile the config file as given, for `run`.
 */
export function launchRecord(command: 'crawl' | 'run', dataDir: string, configFile?: string): LaunchRecord {
  const cmdline = processCmdline(process.pid) ?? [
    process.execPath,
    ...process.execArgv,
    ...process.argv.slice(1),
  ];
  const restartArgv =
    command === 'crawl' && !cmdline.slice(2).includes('--resume') ? [...cmdline, '--resume'] : [...cmdline];
  return {
    command,
    cmdline,
    restartArgv,
    cwd: process.cwd(),
    dataDir: path.resolve(dataDir),
    configFile: configFile ? path.resolve(configFile) : null,
  };
}
