/**
 * At start, the credential variables a collector's sources name (`credentialEnv`, e.g.
 * `GITHUB_TOKEN`) that its environment lacks: each is said on stderr in one line — also with
 * `--quiet`, since a collector that runs anonymously (a cron job or a watchdog restart without the
 * environment file) must not be silent — and recorded in the launch record, so `status` and the
 * watchdog say it too.
 */
import { credentialWarnings, type LaunchRecord, unsetCredentials } from '../supervision/launch-record.js';

/**
 * `launch` with the unset credentials of `types` (names only), after saying each on stderr.
 * @param types each worker type with the variables its source names.
 * @param write where the lines go (default stderr).
 */
export function checkCredentials(
  launch: LaunchRecord,
  types: Array<{ type: string; env: readonly string[] }>,
  env: NodeJS.ProcessEnv = process.env,
  write: (line: string) => void = (line) => process.stderr.write(line),
): LaunchRecord {
  const unsetEnv = unsetCredentials(types, env);
  if (Object.keys(unsetEnv).length === 0) return launch;
  const checked = { ...launch, unsetEnv };
  for (const line of credentialWarnings(checked)) write(`collector: warning: ${line}\n`);
  return checked;
}
