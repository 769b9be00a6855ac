/**
 * The address the metrics server listens on (`HOST:PORT`), shared by `collector crawl --metrics`
 * and the config's `metrics.listen`, and the rule that only loopback may go without a token.
 */
import * as z from 'zod';

/** Default address of the metrics server: loopback only, on the port Prometheus lists for such exporters. */
export const DEFAULT_METRICS_LISTEN = '127.0.0.1:9464';

/** Environment variable holding the metrics bearer token (kept out of the config file, e.g. in systemd's EnvironmentFile). */
export const METRICS_TOKEN_ENV = 'COLLECTOR_METRICS_TOKEN';

/** Zod type of `HOST:PORT` (IPv6 in brackets). */
export const listenAddress = z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, {
  error: 'expected HOST:PORT such as 127.0.0.1:9464',
});

/** Whether `HOST:PORT` binds a loopback address only (127.0.0.0/8, ::1, localhost). */
export function isLoopbackListen(listen: string): boolean {
  const host = listen.slice(0, listen.lastIndexOf(':')).replace(/^\[|\]$/g, '');
  return /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1' || host === 'localhost';
}
