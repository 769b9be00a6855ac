/**
 * `collector status --backend …` and `collector stop --backend …`: the text a user reads about a
 * crawl shared through Redis, one line per machine.
 */
import type { ClusterView } from '../backends/redis/cluster-view.js';

/** Exit code when no machine of the crawl is running (as `collector status`). */
export const NOT_RUNNING_EXIT = 3;

/** The status of a shared crawl as text. */
export function renderCluster(v: ClusterView, now = Date.now()): string {
  const lines = [
    `crawl ${v.crawlId}: ${v.machines.length} machine${v.machines.length === 1 ? '' : 's'} running; ` +
      `${v.done} done, ${v.leased} leased, ${v.queued} queued, ${v.seen} seen` +
      (v.stopAskedAt === null ? '' : `; stop asked ${new Date(v.stopAskedAt).toISOString()}`),
  ];
  for (const m of v.machines) {
    const age = Math.max(0, Math.round((now - m.at) / 1000));
    lines.push(
      `  ${m.machine}  ${m.state}  pid ${m.pid} on ${m.hostname}  out ${m.out}  ` +
        `${m.items} items, ${m.errors} errors, ${m.inFlight} in flight  (beat ${age}s ago)`,
    );
  }
  return `${lines.join('\n')}\n`;
}
