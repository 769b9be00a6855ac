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
