/**
 * The `collector` command line as a commander program: every command and option, with nothing
 * run. `main.ts` parses the process's arguments with it; `scripts/cli-docs.mjs` writes
 * docs/cli.md from it, so the reference is the definitions themselves.
 */
import { Command } from 'commander';
import { PACKAGE_VERSION } from '../config/package-info.js';
import { registerCrawl } from './crawl.js';
import { registerExport } from './export.js';
import { addHelpExamples } from './help-examples.js';
import { registerInstall } from './install.js';
import { registerPlan } from './plan.js';
import { registerRun } from './run.js';
import { registerSize } from './size.js';
import { registerStatus } from './status.js';
import { registerStop } from './stop.js';
import { registerWatchdog } from './watchdog.js';

/**
 * The program with every command registered. Errors throw (exitOverride) instead of exiting, and
 * commander's messages are one line on stderr prefixed `collector:` (DESIGN §3).
 */
export function buildProgram(): Command {
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
  addHelpExamples(program);
  for (const c of program.commands) c.exitOverride();
  return program;
}
