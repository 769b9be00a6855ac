/**
 * How long this machine may still take its leases for its own, on its monotonic clock
 * (`performance.now()`, which a wall-clock jump does not move). Redis takes a machine's leases
 * back once its heartbeat has been silent for the lease timeout; every script that keeps the
 * heartbeat alive (a beat, a claim, a confirm) is sent at a known instant, so the leases are
 * certainly still held until that instant plus the lease timeout. The holder gives up earlier, a
 * quarter of the timeout before (clock rates differ a little; a write takes a little), so it
 * treats a lease as expired before Redis does. A machine that stopped for longer (SIGSTOP, a VM
 * freeze, a GC storm, a partition) finds its clock past that point and asks Redis, atomically,
 * before it writes an item (`CONFIRM` in `frontier-scripts.ts`). A keep-alive answered with "the
 * heartbeat had expired" makes every lease taken before it suspect, however recent the answer.
 */

/** The part of the lease timeout given up before Redis would take the leases back. */
export const LEASE_MARGIN = 0.25;

/** The lease clock of one machine (see the module comment). */
export class LeaseClock {
  /** performance.now() up to which leases taken before the last keep-alive are surely held. */
  private until = Number.NEGATIVE_INFINITY;
  /** URLs leased before a keep-alive found the heartbeat expired: each is confirmed before its item. */
  private readonly suspect = new Set<string>();

  /** @param leaseTimeoutMs the crawl's lease timeout, ms. */
  constructor(private readonly leaseTimeoutMs: number) {}

  /**
   * A keep-alive sent at `sentAt` (performance.now()) was answered: `alive` false when the heartbeat
   * had expired, so the leases of `held` (those taken before it) may have gone to other machines.
   */
  kept(sentAt: number, alive: boolean, held: Iterable<string>): void {
    if (!alive) for (const u of held) this.suspect.add(u);
    this.until = Math.max(this.until, sentAt + this.leaseTimeoutMs * (1 - LEASE_MARGIN));
  }

  /** Whether the lease of `url` is surely still this machine's now (no need to ask Redis). */
  sure(url: string): boolean {
    return performance.now() < this.until && !this.suspect.has(url);
  }

  /** Redis said this machine holds `url` (its heartbeat kept alive in the same step). */
  confirmed(url: string): void {
    this.suspect.delete(url);
  }

  /** `url` is no longer leased here (acknowledged, given back, or dropped). */
  forget(url: string): void {
    this.suspect.delete(url);
  }
}
