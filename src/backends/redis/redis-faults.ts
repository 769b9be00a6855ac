/**
 * What Redis answers that pauses or stops one machine of a shared crawl, said once per incident
 * on stderr, in the log and in status:
 * - out of memory (`maxmemory` with `noeviction`: writes refused with `OOM command not allowed`):
 *   the machine stops dispatching, its refused writes are sent again with a growing back-off
 *   (`redis-link.ts`), and past a bound it stops with a failure naming the cause, so it never ends
 *   as if the crawl were done while the shared queue still holds work;
 * - the crawl's state lost (its record gone or replaced: a Redis restarted without persistence,
 *   another Redis at the address): the machine stops at once, with an exit code of its own.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CRAWL_LOST_CODE } from './frontier-scripts.js';

/** Why a machine stopped: Redis out of memory past the bound, the crawl's state lost, another refusal. */
export type SharedCrawlFaultKind = 'redis-oom' | 'crawl-lost' | 'redis-refused';

/** A fault that stops this machine; `message` is the one line that says it. */
export class SharedCrawlFault extends Error {
  constructor(
    readonly kind: SharedCrawlFaultKind,
    message: string,
  ) {
    super(message);
    this.name = 'SharedCrawlFault';
  }
}

/**
 * Exit code of a collector whose shared crawl's state in Redis was lost: 76, `EX_PROTOCOL` of
 * sysexits(3) ("the remote system returned something that was not possible"). Documented with
 * the others in docs/operating.md.
 */
export const CRAWL_LOST_EXIT_CODE = 76;

/** The exit code a fault ends a collector with: {@link CRAWL_LOST_EXIT_CODE}, or 1. */
export function faultExitCode(kind: SharedCrawlFaultKind): number {
  return kind === 'crawl-lost' ? CRAWL_LOST_EXIT_CODE : 1;
}

/** The fault `e` is, when it is one (also after it crossed a process boundary as kind and message). */
export function asSharedCrawlFault(e: unknown): SharedCrawlFault | null {
  return e instanceof SharedCrawlFault ? e : null;
}

/** The line said when the crawl's state in Redis is gone. */
export const CRAWL_LOST_LINE = 'the shared crawl state in redis was lost (restarted without persistence?)';

/** Whether `e` is Redis refusing a write for want of memory. */
export function isOutOfMemory(e: unknown): boolean {
  return e instanceof Error && e.message.includes('OOM command not allowed');
}

/** Whether `e` is a script finding the crawl's record gone (`frontier-scripts.ts`, GUARD). */
export function isCrawlLost(e: unknown): boolean {
  return e instanceof Error && e.message.includes(CRAWL_LOST_CODE);
}

/** How faults are said and acted on. */
export interface RedisFaultOptions {
  /** `HOST:PORT` of the Redis, as the lines name it. */
  at: string;
  /** The crawl id (in the crawl-lost line). */
  crawlId: string;
  /** Longest out-of-memory pause, ms: past it the machine stops. */
  giveUpMs: number;
  log: Logger;
  /** Say a line on stderr (the log has it already). */
  say(line: string): void;
  /** This machine must stop: told once, with the fault. */
  onFatal(fault: SharedCrawlFault): void;
}

/** The out-of-memory pause and the fatal faults of one machine's Redis link. */
export class RedisFaults {
  /** performance.now() when the current out-of-memory pause began; null when none. */
  private oomSince: number | null = null;
  private maxmemory = 'maxmemory unknown';
  private giveUpTimer: NodeJS.Timeout | null = null;
  /** The fault that stopped this machine, once one did. */
  fatal: SharedCrawlFault | null = null;
  /** The problem now (one line), for status: null when there is none. */
  line: string | null = null;

  constructor(private readonly opts: RedisFaultOptions) {}

  /** `HOST:PORT` of the Redis. */
  get at(): string {
    return this.opts.at;
  }

  /** Dispatching must wait: Redis refuses writes, or the machine is stopping on a fault. */
  get paused(): boolean {
    return this.oomSince !== null || this.fatal !== null;
  }

  /** Say a line on stderr (outages, reconnects). */
  say(line: string): void {
    this.opts.say(line);
  }

  /**
   * A write was refused for want of memory. The first refusal of a pause reads `maxmemory` (INFO,
   * which Redis answers when full) and says the pause.
   * @returns true to send it again after a back-off, false when the machine stops (the caller rejects).
   */
  outOfMemory(client: Redis): boolean {
    if (this.fatal !== null) return false;
    if (this.oomSince !== null) {
      if (performance.now() - this.oomSince <= this.opts.giveUpMs) return true;
      this.giveUp();
      return false;
    }
    this.oomSince = performance.now();
    this.line = `redis at ${this.at} is out of memory (${this.maxmemory}): paused`;
    this.giveUpTimer = setTimeout(() => this.giveUp(), this.opts.giveUpMs);
    this.giveUpTimer.unref();
    void client.info('memory').then(
      (info) => this.announce(info),
      () => this.announce(''),
    );
    return true;
  }

  /** A write refused for want of memory went through: the pause is over. */
  recovered(): void {
    if (this.oomSince === null || this.fatal !== null) return;
    const s = Math.round((performance.now() - this.oomSince) / 1000);
    this.oomSince = null;
    this.line = null;
    if (this.giveUpTimer !== null) clearTimeout(this.giveUpTimer);
    this.giveUpTimer = null;
    this.opts.log.warn({ redis: this.at, pausedS: s }, 'redis has memory again: resuming');
    this.say(`redis at ${this.at} has memory again after ${s} s: resuming`);
  }

  /** A script found the crawl's record gone, or a heartbeat found another crawl's: stop. */
  crawlLost(): void {
    this.stop(
      'crawl-lost',
      `${CRAWL_LOST_LINE}: stopped (redis at ${this.at}, crawl ${this.opts.crawlId}); ` +
        'its items so far are in --out; start the crawl again to collect from the seeds',
    );
  }

  /** Redis refused a write for another reason (a script error): stop. */
  refused(e: Error): void {
    this.stop('redis-refused', `redis at ${this.at} refused a write (${e.message}): stopped`);
  }

  /** Stop the give-up timer (the link is closing). */
  halt(): void {
    if (this.giveUpTimer !== null) clearTimeout(this.giveUpTimer);
    this.giveUpTimer = null;
  }

  private announce(info: string): void {
    const m = /^maxmemory:(\d+)/m.exec(info);
    if (m !== null) this.maxmemory = `maxmemory ${Math.round(Number(m[1]) / 1048576)} MB`;
    if (this.oomSince === null || this.fatal !== null) return;
    this.line = `redis at ${this.at} is out of memory (${this.maxmemory}): paused`;
    this.opts.log.error({ redis: this.at }, this.line);
    this.say(this.line);
  }

  private giveUp(): void {
    if (this.oomSince === null || this.fatal !== null) return;
    const s = Math.round((performance.now() - this.oomSince) / 1000);
    this.stop(
      'redis-oom',
      `redis at ${this.at} is out of memory (${this.maxmemory}): gave up after ${s} s paused; ` +
        'the shared crawl still has work queued: free memory in redis (or raise maxmemory) and start again',
    );
  }

  private stop(kind: SharedCrawlFaultKind, line: string): void {
    if (this.fatal !== null) return;
    this.halt();
    this.fatal = new SharedCrawlFault(kind, line);
    this.line = line;
    this.opts.log.error({ redis: this.at, kind }, line);
    this.opts.onFatal(this.fatal);
  }
}
