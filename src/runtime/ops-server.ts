/**
 * Starting the metrics server and status page of a crawl or run (src/ops/metrics-server.ts) when
 * one is asked for, with the token from the config or the environment.
 */
import path from 'node:path';
import { isLoopbackListen, METRICS_TOKEN_ENV } from '../config/listen-address.js';
import { UsageError } from '../config/usage-error.js';
import type { MetricsServer } from '../ops/metrics-server.js';
import type { StatusFile } from '../supervision/status-format.js';

/**
 * Serve `/metrics` and `/` on `listen` (nothing when undefined).
 * @param snapshot the current status document.
 * @throws UsageError when the address is not loopback and no token is set, or cannot be bound.
 */
export async function startOpsServer(
  listen: string | undefined,
  dataDir: string,
  snapshot: () => StatusFile,
  configToken?: string,
  historySampleMs?: number,
): Promise<MetricsServer | null> {
  if (listen === undefined) return null;
  const token = process.env[METRICS_TOKEN_ENV] || configToken;
  if (!isLoopbackListen(listen) && !token) {
    throw new UsageError(
      `metrics ${listen}: not a loopback address; set metrics.token or ${METRICS_TOKEN_ENV} so only you can read it`,
    );
  }
  // Loaded only when asked for: the metrics library is not read by a crawl without it.
  const { startMetricsServer } = await import('../ops/metrics-server.js');
  try {
    const server = await startMetricsServer({
      listen,
      token,
      snapshot,
      dataDir: path.resolve(dataDir),
      historySampleMs,
    });
    return server;
  } catch (e) {
    throw new UsageError(`${(e as Error).message}; choose another metrics address`);
  }
}
