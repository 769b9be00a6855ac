/**
 * The ops commands on a crawl shared through Redis: `collector status --backend … --crawl-id …`
 * (every machine, from Redis) and `collector stop --backend … --crawl-id …` (all of them stop
 * gracefully). Loaded only when `--backend` is given.
 */

import { readCluster, stopCluster } from '../backends/redis/cluster-view.js';
import { CRAWL_ID_PATTERN } from '../backends/redis/crawl-keys.js';
import { UsageError } from '../config/usage-error.js';
import { NOT_RUNNING_EXIT, renderCluster } from '../ops/cluster-report.js';

function checkId(crawlId: string | undefined): string {
  if (crawlId === undefined) {
    throw new UsageError(
      '--backend needs --crawl-id NAME (the crawl id a collector printed when it started)',
    );
  }
  if (!CRAWL_ID_PATTERN.test(crawlId)) {
    throw new UsageError(`--crawl-id ${crawlId}: use 1 to 64 letters, digits, '.', '_' or '-'`);
  }
  return crawlId;
}

/**
 * Print the status of a shared crawl. @returns the exit code: 0 machines running, 3 none, 1
 * Redis unavailable (one line on stderr). @throws UsageError for a bad address or crawl id.
 */
export async function clusterStatus(
  backend: string,
  crawlId: string | undefined,
  json: boolean,
): Promise<number> {
  const id = checkId(crawlId);
  try {
    const view = await readCluster(backend, id);
    process.stdout.write(json ? `${JSON.stringify(view, null, 2)}\n` : renderCluster(view));
    return view.machines.length > 0 ? 0 : NOT_RUNNING_EXIT;
  } catch (e) {
    return failed(e);
  }
}

/**
 * Ask every machine of a shared crawl to stop. @returns 0 (told), 3 (no machine was running), 1
 * Redis unavailable. @throws UsageError for a bad address or crawl id.
 */
export async function clusterStop(backend: string, crawlId: string | undefined): Promise<number> {
  const id = checkId(crawlId);
  try {
    const n = await stopCluster(backend, id);
    process.stdout.write(`stop asked for crawl ${id}: ${n} machine${n === 1 ? '' : 's'} running will stop\n`);
    return n > 0 ? 0 : NOT_RUNNING_EXIT;
  } catch (e) {
    return failed(e);
  }
}

function failed(e: unknown): number {
  const msg = (e as Error).message;
  if (/^backend "|^crawl id "/.test(msg)) throw new UsageError(msg);
  process.stderr.write(`collector: ${msg}\n`);
  return 1;
}
