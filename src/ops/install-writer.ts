/**
 * `collector install --write`: puts the crontab block into the user's crontab (replacing an
 * earlier one) or writes the systemd unit, each with its 0600 environment file (made first, so no
 * job or unit names a file that is not there), checking the unit with `systemd-analyze verify`
 * where that tool exists.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../config/usage-error.js';
import { writeFileAtomic } from '../sinks/atomic-file.js';
import { withCronBlock } from './install.js';

/**
 * Make the environment file (mode 0600, `template` as its content) when it is missing; tighten an
 * existing one to 0600 when others may read it. Never changes what it holds.
 * @returns one line saying what was done.
 * @throws the fs error (EACCES...) when it cannot be made or changed.
 */
export function writeEnvFile(envFile: string, template: string): string {
  fs.mkdirSync(path.dirname(envFile), { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(envFile, template, { flag: 'wx', mode: 0o600 });
    return `wrote ${envFile} (mode 0600): put the tokens there`;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  if ((fs.statSync(envFile).mode & 0o077) !== 0) {
    fs.chmodSync(envFile, 0o600);
    return `${envFile}: mode set to 0600 (it holds secrets)`;
  }
  return `kept ${envFile}`;
}

/**
 * Install `block` in the crontab of the user running this, after making its environment file.
 * @returns lines saying what was done.
 * @throws UsageError when the environment file cannot be made, `crontab` is missing or refuses
 *   the new table.
 */
export function writeCrontab(name: string, block: string, envFile: string, template: string): string[] {
  let said: string;
  try {
    said = writeEnvFile(envFile, template);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new UsageError(`cannot write ${envFile} (${code}); give --secrets-file a file you can write`);
  }
  const current = spawnSync('crontab', ['-l'], { encoding: 'utf8' });
  if (current.error) {
    throw new UsageError(
      'crontab: not found; install cron, or add the block printed by `collector install --cron` by hand',
    );
  }
  // `crontab -l` exits 1 with "no crontab for <user>" when there is none yet.
  const table = current.status === 0 ? current.stdout : '';
  const next = withCronBlock(table, name, block);
  const put = spawnSync('crontab', ['-'], { input: next, encoding: 'utf8' });
  if (put.status !== 0) throw new UsageError(`crontab: refused the new table: ${(put.stderr || '').trim()}`);
  return [said, 'crontab updated (crontab -l shows it)'];
}

/**
 * `systemd-analyze verify FILE`.
 * @returns null when the tool is missing, else its warnings (empty when the unit is clean).
 */
export function verifyUnit(file: string): string[] | null {
  const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
  if (r.error) return null;
  const lines = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => l.trim() !== '');
  if (r.status !== 0 && lines.length === 0) lines.push(`systemd-analyze exited ${r.status}`);
  return lines;
}

/**
 * Write the environment file (see {@link writeEnvFile}), then the unit (atomically).
 * @param template the environment file's content when it is made.
 * @returns lines saying what was done and what to run next.
 */
export async function writeSystemd(
  unitDir: string,
  name: string,
  unit: string,
  envFile: string,
  template: string,
): Promise<string[]> {
  const unitPath = path.join(unitDir, `${name}.service`);
  const said: string[] = [];
  try {
    said.push(writeEnvFile(envFile, template));
    fs.mkdirSync(unitDir, { recursive: true });
    await writeFileAtomic(unitPath, unit);
    said.push(`wrote ${unitPath}`);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new UsageError(
      `cannot write the service files (${code}); run as root, or give --unit-dir and --env-file you can write`,
    );
  }
  const warnings = verifyUnit(unitPath);
  if (warnings === null) said.push('systemd-analyze not found: the unit was not verified here');
  else if (warnings.length === 0) said.push('systemd-analyze verify: no warnings');
  else said.push(...warnings.map((w) => `systemd-analyze: ${w}`));
  said.push(`next: systemctl daemon-reload && systemctl enable --now ${name}`);
  return said;
}
