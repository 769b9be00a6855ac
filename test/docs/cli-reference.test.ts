/**
 * docs/cli.md is the commander program written out by scripts/cli-docs.mjs: the page must be
 * exactly what the script prints from the built program (`npm run docs:cli` rewrites it), and the
 * script must leave out no command or option that `--help` shows.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { distIsStale } from '../fixtures/build-once.js';
import { runCli } from '../fixtures/cli.js';

const root = path.resolve(import.meta.dirname, '../..');
const page = () => fs.readFileSync(path.join(root, 'docs/cli.md'), 'utf8');

/** What the generator prints now, from dist/ (built by the global setup when stale). */
async function generated(): Promise<string> {
  expect(distIsStale(), 'dist/ is older than src/: run `npm run build`').toBe(false);
  const { stdout } = await promisify(execFile)(process.execPath, ['scripts/cli-docs.mjs'], { cwd: root });
  return stdout;
}

/** The section of docs/cli.md for one command: from its heading to the next. */
function section(md: string, command: string): string {
  const start = md.indexOf(`\n## collector ${command}\n`);
  expect(start, `docs/cli.md has no section for collector ${command}`).toBeGreaterThan(0);
  const next = md.indexOf('\n## ', start + 1);
  return md.slice(start, next === -1 ? undefined : next);
}

describe('docs/cli.md', () => {
  it('is what scripts/cli-docs.mjs prints from the commander definitions (else run `npm run docs:cli`)', async () => {
    const now = await generated();
    expect(now).toMatch(/^# Command line reference\n/);
    if (page() !== now) {
      // The first differing line makes the failure readable; the message says what to do.
      const a = page().split('\n');
      const b = now.split('\n');
      const i = a.findIndex((l, k) => l !== b[k]);
      expect.fail(
        `docs/cli.md is out of date at line ${i + 1}: run \`npm run docs:cli\`\n  page:      ${a[i]}\n  generated: ${b[i]}`,
      );
    }
  });

  it('has every command of `collector --help`, and every option of each command, with its default', async () => {
    const md = page();
    const top = await runCli(['--help']);
    const commands = [...top.stdout.matchAll(/^ {2}([a-z][\w-]*) /gm)]
      .map((m) => m[1])
      .filter((c) => c !== 'help');
    expect(commands).toEqual(expect.arrayContaining(['crawl', 'run', 'status', 'watchdog', 'install']));
    for (const command of commands) {
      const help = (await runCli([command, '--help'])).stdout;
      const doc = section(md, command);
      const flags = [...help.matchAll(/^ {2}((?:-\w, )?--[\w-]+(?: <[^>]+>)?) /gm)].map((m) => m[1]);
      expect(flags.length, command).toBeGreaterThan(1);
      for (const flag of flags)
        expect(doc, `${command} ${flag}`).toContain(`| \`${flag.replaceAll('|', '\\|')}\` |`);
    }
    // Defaults are in their own column, as the help states them.
    expect(section(md, 'crawl')).toContain('| `--delay <ms>` | `500ms` |');
    expect(section(md, 'watchdog')).toContain('| `--stall <duration>` | `10m` |');
    expect(section(md, 'size')).toContain('| `--every <size>` | `100MB` |');
    expect(section(md, 'run')).toContain('| `-c, --config <file>` | `collector.yaml` |');
  });
});
