/**
 * The `collector` command line, run when imported (by `main.ts`): parses the command, runs it, and
 * turns user mistakes into one line on stderr with exit code 2 (DESIGN §3).
 */
import { CommanderError } from 'commander';
import { UsageError } from '../config/usage-error.js';
import { DISK_FULL_EXIT_CODE, diskFullLine, diskFullPath, isDiskFull } from '../sinks/disk-full.js';
import { buildProgram } from './program.js';

const program = buildProgram();

// `collector status --json | head`: the reader went away; the command's work is done, not failed.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
  process.exit(process.exitCode ?? 0);
});

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
