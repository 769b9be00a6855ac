/**
 * Links found by one worker and owned by another travel through the supervisor, in batches. A
 * batch goes to its owner when the owner's process can take it; an owner that is down gets them
 * again from the sender's handoff log when it restarts (its siblings are asked to resend).
 */
import type { HandoffLink } from './ipc.js';
import type { WorkerProcess } from './worker-process.js';

/** The processes of each worker type, by position. */
export class HandoffRouter {
  private readonly byType = new Map<string, WorkerProcess[]>();

  constructor(workers: WorkerProcess[]) {
    for (const w of workers) {
      const list = this.byType.get(w.spec.group) ?? [];
      list[w.spec.index] = w;
      this.byType.set(w.spec.group, list);
    }
  }

  /**
   * Send `links` from `from` to worker number `to` of its type. One still starting gets them now
   * (it queues messages until its state is loaded): a fresh start has no resend, so dropping them
   * would lose them.
   * @returns whether they were sent.
   */
  route(from: WorkerProcess, to: number, links: HandoffLink[]): boolean {
    const target = this.byType.get(from.spec.group)?.[to];
    const open = target?.state === 'starting' || target?.state === 'running' || target?.state === 'idle';
    if (!target || !open || !target.send({ t: 'links', links })) return false;
    target.forwarded += links.length;
    if (target.state === 'idle') target.state = 'running';
    return true;
  }

  /**
   * A restarted worker may lack links handed to it before it died: its siblings send again, from
   * their handoff logs, what they handed to it. (At a whole-crawl `--resume` every worker resends
   * its own logs as it starts, which covers the same links.)
   */
  askResend(restarted: WorkerProcess): void {
    for (const s of this.byType.get(restarted.spec.group) ?? []) {
      if (s !== restarted && s.send({ t: 'resend', owner: restarted.spec.index })) s.resendsOwed++;
    }
  }
}
