/**
 * This machine's presence in the shared crawl: a heartbeat in Redis that expires after the lease
 * timeout (while it lives, this machine's leases are its own), the reclaim of the leases of
 * machines whose heartbeat expired, and the crawl-wide stop (`collector stop --backend`).
 */
import os from 'node:os';
import type { Logger } from 'pino';
import type { RedisLink } from './redis-link.js';

/** What a machine publishes in its heartbeat (read by `collector status --backend`). */
export interface MachineStatus {
  machine: string;
  /** The machine's host name, process id and output dir. */
  hostname: string;
  pid: number;
  out: string;
  /** Items written by this machine this run. */
  items: number;
  errors: number;
  /** URLs in flight here. */
  inFlight: number;
  /** `running` or `stopping`. */
  state: string;
  /** Wall-clock ms of this beat. */
  at: number;
}

/** Settings of the heartbeat. */
export interface HeartbeatOptions {
  prefix: string;
  machine: string;
  /** Requests in flight at once to one host (the reclaim reschedules hosts with it). */
  hostConcurrency: number;
  /** A machine silent this long is dead: its leases go back to the queue, ms. */
  leaseTimeoutMs: number;
  /** The status to publish, read at each beat. */
  status: () => Omit<MachineStatus, 'machine' | 'hostname' | 'pid' | 'at'>;
  /** A stop was asked for the crawl after this machine started. */
  onStop: () => void;
  /** The crawl-wide counters changed (queued, leased, done). */
  onCounts?: (queued: number, leased: number, done: number) => void;
  /** A beat sent at `sentAt` (performance.now()) was answered; `alive` false: it had expired. */
  onKept?: (sentAt: number, alive: boolean) => void;
  /** The crawl's epoch, as this machine joined it (`JOIN`); a beat finding another is a lost crawl. */
  epoch: () => string;
  /** The crawl's record in Redis is not the one this machine joined. */
  onLost: () => void;
}

/** Beats per lease timeout: a machine misses several before it is taken for dead. */
const BEATS_PER_LEASE = 4;
/** Shortest beat interval, ms. */
const MIN_BEAT_MS = 100;

/** A new machine id: host name, pid and a random tail (a restarted process is a new machine). */
export function newMachineId(): string {
  const host =
    os
      .hostname()
      .replace(/[^A-Za-z0-9.-]/g, '-')
      .slice(0, 40) || 'host';
  return `${host}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The heartbeat of one machine. `start()`, then `stop()` at the end. */
export class MachineHeartbeat {
  private timer: NodeJS.Timeout | null = null;
  private beating = false;
  private beats = 0;
  /** Redis time of the first beat: stops asked before it are for earlier runs. */
  private startedAt = Number.POSITIVE_INFINITY;
  /** performance.now() of the last reconnect (reclaims wait a lease timeout after it). */
  private backAt = Number.NEGATIVE_INFINITY;
  private stopSeen = false;

  constructor(
    private readonly link: RedisLink,
    private readonly opts: HeartbeatOptions,
    private readonly log: Logger,
  ) {}

  /** Beat now and every lease timeout / 4. Resolves after the first beat is answered. */
  async start(): Promise<void> {
    const every = Math.max(MIN_BEAT_MS, Math.floor(this.opts.leaseTimeoutMs / BEATS_PER_LEASE));
    await this.beat();
    this.timer = setInterval(() => void this.beat(), every);
    this.timer.unref();
  }

  /**
   * The link came back after an outage: other machines get a lease timeout to beat again, and
   * this one beats at once (the crawl's record is checked before anything else is decided).
   */
  reconnected(): void {
    this.backAt = performance.now();
    if (this.timer !== null) void this.beat();
  }

  /** Stop beating (no more commands from the timer). */
  halt(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** Stop beating and remove this machine's heartbeat (its leases were given back before). */
  async stop(): Promise<void> {
    this.halt();
    const { prefix, machine } = this.opts;
    await this.link.client.multi().del(`${prefix}hb:${machine}`).srem(`${prefix}machines`, machine).exec();
  }

  private async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    const { prefix, machine, leaseTimeoutMs } = this.opts;
    const status: MachineStatus = {
      machine,
      hostname: os.hostname(),
      pid: process.pid,
      at: Date.now(),
      ...this.opts.status(),
    };
    try {
      const sentAt = performance.now();
      const r = (await this.link.script('heartbeat', [
        prefix,
        machine,
        JSON.stringify(status),
        leaseTimeoutMs,
        this.opts.epoch(),
      ])) as number[];
      const [live, stop, queued, leased, done, now, same] = r.map(Number);
      if (same !== 1) {
        this.opts.onLost();
        return;
      }
      this.opts.onKept?.(sentAt, live === 1);
      if (this.beats === 0) this.startedAt = now;
      else if (live === 0) {
        this.log.warn(
          { machine },
          'this machine was silent past the lease timeout: its leases may have gone to others',
        );
      }
      this.beats++;
      this.opts.onCounts?.(queued, leased, done);
      if (stop >= this.startedAt && !this.stopSeen) {
        this.stopSeen = true;
        this.log.info({ machine }, 'stop asked through redis');
        this.opts.onStop();
      }
      if (performance.now() - this.backAt > leaseTimeoutMs) await this.reclaim();
    } catch (e) {
      this.log.error({ err: (e as Error).message }, 'heartbeat to redis failed');
    } finally {
      this.beating = false;
    }
  }

  private async reclaim(): Promise<void> {
    const r = (await this.link.script('reclaim', [this.opts.prefix, this.opts.hostConcurrency])) as (
      | string
      | number
    )[];
    for (let i = 0; i + 1 < r.length; i += 2) {
      this.log.warn(
        { machine: String(r[i]), urls: Number(r[i + 1]) },
        'leases of a silent machine taken back into the queue',
      );
    }
  }
}
