/**
 * Where an ops command finds the `notify:` settings: the config given with `--config`, else the
 * config file the collector on the data dir was started with (recorded in status.json). A config
 * that cannot be read any more is one line on stderr; messages still go to stdout.
 */
import { loadConfig } from '../config/config-file.js';
import { readStatusFile } from '../supervision/status-format.js';
import type { NotifySettings } from './notify.js';

/** The notify settings for `dataDir` (undefined: stdout only). */
export async function notifySettingsFor(
  dataDir: string,
  configFile?: string,
): Promise<NotifySettings | undefined> {
  let file = configFile;
  if (!file) {
    const status = await readStatusFile(dataDir);
    file = typeof status === 'string' ? undefined : (status.launch.configFile ?? undefined);
  }
  if (!file) return undefined;
  try {
    return (await loadConfig(file)).config.notify;
  } catch (e) {
    process.stderr.write(`collector: notify settings not read (${(e as Error).message}); stdout only\n`);
    return undefined;
  }
}
