/**
 * The `collector` command line: parses the command, runs it, and turns user mistakes into one
 * line on stderr with exit code 2 (DESIGN §3).
 */
import { Command, CommanderError } from 'commander';
import { PACKAGE_VERSION } from '../config/package-info.js';
import { UsageError } from '../config/usage-error.js';
import { DISK_FULL_EXIT_CODE, diskFullLine, diskFullPath, isDiskFull } from '../sinks/disk-full.js';
import { registerCrawl } from './crawl.js';
import { registerExport } from './export.js';
import { registerInstall } from './install.js';
import { registerPlan } from './plan.js';
import { registerRun } from './run.js';
import { registerSize } from './size.js';
import { registerStatus } from './status.js';
import { registerStop } from './stop.js';
import { registerWatchdog } from './watchdog.js';

const program = new Command();
program
  .name('collector')
  .description('High-throughput, multi-process web collector for small servers')
  .version(PACKAGE_VERSION)
  .exitOverride()
  .configureOutput({
    writeErr: (s) => process.stderr.write(s),
    outputError: (s, write) => write(`collector: ${s.replace(/^error: /, '').trim()}\n`),
  });
registerCrawl(program);
registerRun(program);
registerStatus(program);
registerStop(program);
registerWatchdog(program);
registerSize(program);
registerPlan(program);
registerInstall(program);
registerExport(program);
for (const c of program.commands) c.exitOverride();

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    // help and version exit 0; every other commander error was already printed as one line.
    process.exitCode = e.exitCode === 0 ? 0 : 2;
  } else if (e instanceof UsageError) {
    process.stderr.write(`collector: ${e.message}\n`);
    process.exitCode = 2;
  } else if (isDiskFull(e)) {
    // E.g. a resume on a disk still full: the lock or the plan cannot be written (the command
    // named the directory: locateDiskFull).
    process.stderr.write(`collector: ${diskFullLine(diskFullPath(e, process.cwd()))}\n`);
    process.exitCode = DISK_FULL_EXIT_CODE;
  } else {
    process.stderr.write(`collector: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exitCode = 1;
  }
}
