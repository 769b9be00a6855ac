/**
 * The shared frontier, as one machine sees it: a {@link FrontierQueue} whose queue, politeness
 * clock and leases live in Redis. URLs are leased in batches by one atomic script that also takes
 * each host's concurrency token and advances its next-allowed time, so politeness holds across
 * machines. The engine calls stay synchronous: leased URLs wait in a small local buffer, writes
 * are sent in order.
 *
 * An item reaches this machine's items file in this order (exactly once crawl-wide, whatever
 * pause or kill falls between two steps): the engine puts it in the journal only while its lease
 * is surely this machine's (`lease-clock.ts`; past that, after a pause, Redis is asked first:
 * CONFIRM), the journal records it in the pending items file (`pending-items.ts`), then one
 * atomic script acknowledges the URL only if this machine still holds it and records it in
 * `w:<machine>` (ACK), and on its answer the line goes to the items file (or is dropped: another
 * machine has the URL); once the pending file is emptied the records are cleared, with the next
 * acknowledgement. A machine killed after the acknowledgement and before the line finds the
 * record at its resume and writes the line then (ACKED). Acknowledgements follow the links their
 * pages led to, and are pipelined: the next batch is recorded and sent before the answer. Nothing
 * is handed out while Redis refuses writes or a fault stops the machine.
 */
import type { Logger } from 'pino';
import type { FrontierEntry, FrontierQueue } from '../../frontier/frontier-queue.js';
import type { PendingLine } from '../../frontier/pending-items.js';
import { encodeRequestMeta, parseRequestMeta, type RequestMeta } from '../../frontier/request-meta.js';
import { hostKey } from '../../url/canonicalize.js';
import { LeaseClock } from './lease-clock.js';
import type { PendingWrites } from './pending-writes.js';
import type { RedisLink } from './redis-link.js';

/** Shortest wait after a claim that got nothing, ms (never a tight loop of claims). */
const MIN_EMPTY_CLAIM_GAP_MS = 5;
/**
 * A machine counts as asking for a host's slots (their fair share, see CLAIM) for this many poll
 * intervals after its last claim, and at least {@link FAIR_WINDOW_MIN_MS}.
 */
const FAIR_WINDOW_POLLS = 4;
const FAIR_WINDOW_MIN_MS = 1_000;
/**
 * Longest wait for the answers of acknowledgements once the journal closes, ms: past it (Redis
 * unavailable at a stop) their lines stay in the pending items file, and resume settles them.
 */
export const ACK_AT_STOP_MS = 5_000;

/** Politeness and batching of one machine's shared frontier. */
export interface RedisFrontierOptions {
  /** The crawl's key prefix (`crawl-keys.ts`). */
  prefix: string;
  /** This machine's id (its leases and heartbeat). */
  machine: string;
  /** Minimum gap between request starts to one host, ms (every machine should use the same). */
  delayMs: number;
  /** Extra random gap, 0..jitter × the host's gap. */
  jitter: number;
  /** Requests in flight at once to one host, across all machines. */
  hostConcurrency: number;
  /** Largest slow-down penalty after 429/503, ms. */
  maxPenaltyMs: number;
  /** URLs leased per claim at most (this machine's fetch slots). */
  claimBatch: number;
  /** Longest wait between claims while work remains elsewhere, ms. */
  pollMs: number;
  /** The crawl's lease timeout, ms (a claim keeps this machine's heartbeat alive that long). */
  leaseTimeoutMs: number;
}

/** Shape of an entry as stored in Redis (`e` hash). */
interface StoredEntry {
  d: number;
  a: number;
  m?: string;
  /** The shared round it was queued in (continuous collection; absent: 0). */
  r?: number;
}

function entryJson(depth: number, attempt: number, meta: RequestMeta | undefined, round: number): string {
  const e: StoredEntry = { d: depth, a: attempt };
  if (meta !== undefined) e.m = encodeRequestMeta(meta);
  if (round > 0) e.r = round;
  return JSON.stringify(e);
}

/** One machine's view of the shared frontier (see the module comment). */
export class RedisFrontier implements FrontierQueue {
  /** Leased, not yet handed to the engine. */
  private readonly buffer: FrontierEntry[] = [];
  /** Every URL this machine holds a lease on (buffered, in flight, or awaiting its ack). */
  private readonly held = new Map<string, FrontierEntry>();
  private inFlightCount = 0;
  private claiming = false;
  /** performance.now() before which no claim is sent (politeness or polling). */
  private claimAfter = 0;
  /**
   * Bumped by every change this machine makes to the shared crawl (a push, a request over, a
   * write): a claim answered empty after one is not the last word (see {@link claimed}).
   */
  private changes = 0;
  /** From the last claim: URLs queued and leased crawl-wide, and the writes sent before it. */
  private last = { queued: 1, leased: 1, writes: -1 };
  /**
   * Requests over whose tokens Redis has not been told of: pairs url, answered (0/1). They go with
   * the next claim (one round trip for both), or on their own (DONE) before any other write.
   */
  private finished: (string | number)[] = [];
  /** Items written here, in journal order, whose acknowledgement is not yet sent. */
  private readonly unflushed: string[] = [];
  /**
   * URLs whose acknowledgement is sent and not yet answered (their items in the pending file):
   * still leased in Redis, and not to be given back by a reconcile (they would be fetched twice).
   */
  private readonly acking = new Map<string, FrontierEntry>();
  /** Pairs url, batch acknowledged (recorded in `w:`) whose lines the journal has not settled. */
  private acked: (string | number)[] = [];
  /** Pairs url, batch whose lines are written and the pending file emptied: cleared with the next ACK. */
  private clearing: (string | number)[] = [];
  /** Rejects {@link ACK_AT_STOP_MS} after the journal began to close: answers are given up. */
  private readonly ackDeadline: Promise<never>;
  private giveUpAcks: (() => void) | null = null;
  private reconcileDue = false;
  /** Settles when the last claim sent is answered (and its URLs buffered). */
  private claimAnswered: Promise<void> = Promise.resolve();
  /** Acknowledgements waiting for the links queued before them. */
  private acks: Promise<void> = Promise.resolve();
  /** The first write Redis refused, if any. */
  private refused: Error | null = null;
  /** Writes sent and not yet answered. */
  private readonly outstanding = new Set<Promise<void>>();
  private closed = false;
  /** Whether a lease is surely still this machine's (see `lease-clock.ts`). */
  private readonly clock: LeaseClock;
  /** Called when leased URLs arrive or the crawl-wide counts change (the engine's wake-up). */
  wake: () => void = () => {};

  constructor(
    private readonly link: RedisLink,
    private readonly writes: PendingWrites,
    private readonly opts: RedisFrontierOptions,
    private readonly log: Logger,
  ) {
    this.clock = new LeaseClock(opts.leaseTimeoutMs);
    this.ackDeadline = new Promise<never>((_resolve, reject) => {
      this.giveUpAcks = () =>
        reject(new Error('redis did not answer an acknowledgement at stop: its items are kept for --resume'));
    });
    this.ackDeadline.catch(() => {});
    link.onBack = () => {
      // A claim answered while the connection broke may have leased URLs this machine never saw.
      this.reconcileDue = true;
      this.claimAfter = 0;
      this.wake();
    };
  }

  /**
   * Work remains for this machine to wait for: URLs leased here and not handed out, writes not
   * yet answered, or (by the last claim after them) URLs queued or leased anywhere. 0 once the
   * whole crawl is done. Kept small on purpose: it is no count of the shared queue.
   */
  get queued(): number {
    const busyElsewhere =
      this.finished.length > 0 ||
      this.writes.pending > 0 ||
      this.last.writes !== this.writes.sent ||
      this.last.queued + this.last.leased > 0;
    return this.buffer.length + (busyElsewhere ? 1 : 0);
  }

  /**
   * URLs leased here and not yet handed out: what this machine reports as queued (status, the
   * supervisor's stall watch: a machine waiting while the others work is not stalled).
   */
  get heldHere(): number {
    return this.buffer.length;
  }

  /** URLs handed out here and not yet done or retried. */
  get inFlight(): number {
    return this.inFlightCount;
  }

  /** URLs queued crawl-wide at the last claim. */
  get sharedQueued(): number {
    return this.last.queued;
  }

  /** The shared round this machine is in (`shared-rounds.ts`): written in the entries it queues. */
  round = 0;
  /**
   * Told, before a leased URL is handed out, that it was queued in a later round than this
   * machine's (which then joins that round at once, so its item says the right round).
   */
  onLaterRound: ((round: number) => void) | null = null;

  /**
   * Shared rounds (`shared-rounds.ts`) take the pushes that go once per round, seen or not (a
   * round's requests, an every-round hub): true when taken, else the push is a plain one.
   */
  divert:
    | ((
        url: string,
        host: string,
        depth: number,
        priority: number,
        json: string,
        meta?: RequestMeta,
      ) => boolean)
    | null = null;

  push(url: string, depth: number, priority = 0, meta?: RequestMeta): void {
    const json = entryJson(depth, 0, meta, this.round);
    const host = hostKey(url);
    if (this.divert?.(url, host, depth, priority, json, meta) !== true) {
      this.writes.push(url, host, depth, priority, json);
    }
    this.changes++;
    this.claimAfter = 0;
  }

  next(): FrontierEntry | null {
    // Redis refuses writes (out of memory) or a fault stops this machine: nothing new starts.
    if (this.link.faults.paused) return null;
    const e = this.buffer.shift();
    if (e !== undefined) {
      this.inFlightCount++;
      return e;
    }
    this.claim();
    return null;
  }

  nextReadyIn(): number {
    if (this.link.faults.paused) return this.opts.pollMs;
    if (this.buffer.length > 0) return 0;
    if (this.claiming) return Number.POSITIVE_INFINITY;
    return Math.max(0, this.claimAfter - performance.now());
  }

  done(entry: FrontierEntry, answered = true): void {
    this.inFlightCount--;
    this.changes++;
    this.finished.push(entry.url, answered ? 1 : 0);
    // The token given back may make its host ready: claim again now, the claim giving it back
    // first (one round trip), rather than at the next poll, so the answer is here by the time the
    // engine's slot is free (the body may still be being stored). With a claim on its way, the
    // next one gives it back, sent as soon as that one is answered; with no claim to send, it
    // goes on its own.
    this.claimAfter = 0;
    this.claim();
    if (!this.claiming) this.sendFinished();
  }

  /** Tell Redis now, on their own, of the requests over (before any other write, in order). */
  private sendFinished(): void {
    if (this.finished.length === 0) return;
    const o = this.opts;
    const pairs = this.finished;
    this.finished = [];
    this.send('done', [o.machine, o.delayMs, o.hostConcurrency, ...pairs]);
  }

  retry(entry: FrontierEntry, delayMs: number, released = false, counts = true): void {
    if (!released) this.inFlightCount--;
    if (counts) entry.attempt++;
    this.held.delete(entry.url);
    this.clock.forget(entry.url);
    const o = this.opts;
    const json = entryJson(entry.depth, entry.attempt, entry.meta, this.round);
    this.writes.flush();
    this.sendFinished();
    this.send('retry', [
      o.machine,
      entry.url,
      Math.max(0, Math.round(delayMs)),
      json,
      o.delayMs,
      o.hostConcurrency,
    ]);
    this.claimAfter = 0;
  }

  pauseHost(host: string, ms: number): void {
    this.sendFinished();
    this.send('pauseHost', [host, Math.max(0, Math.round(ms)), this.opts.hostConcurrency]);
  }

  slowDown(host: string): void {
    this.sendFinished();
    this.send('slowDown', [host, this.opts.delayMs, this.opts.maxPenaltyMs]);
  }

  setCrawlDelay(host: string, ms: number): void {
    this.writes.flush();
    this.sendFinished();
    this.track(
      this.link.send(() => this.link.client.hset(`${this.opts.prefix}h:${host}`, 'c', Math.round(ms))),
    );
  }

  /** The item of `url` is in the journal (not yet on disk). */
  itemWritten(url: string): void {
    this.unflushed.push(url);
  }

  /**
   * The next `count` items of the journal are in the pending items file as batch `batch`:
   * acknowledge their URLs (ACK, after the links they led to are sent, so an acknowledged page's
   * links are never lost), only those this machine still holds. The answer is not waited for
   * before the next batch is sent.
   * @returns per item, whether it was acknowledged (its line may be written); the others are
   *   dropped here (another machine holds or acknowledged the URL). Rejects when Redis refused a
   *   write before (no acknowledgement after it), refuses this one, or does not answer within
   *   {@link ACK_AT_STOP_MS} of {@link closing}: the URLs are then this machine's leases again
   *   (given back at close) and their lines stay pending for resume.
   */
  acknowledge(count: number, batch: number): Promise<boolean[]> {
    const urls = this.unflushed.splice(0, count);
    const entries = urls.map(
      (url) => this.held.get(url) ?? { url, host: hostKey(url), depth: 0, attempt: 0 },
    );
    for (const e of entries) {
      this.held.delete(e.url);
      this.clock.forget(e.url);
      this.acking.set(e.url, e);
    }
    this.writes.flush();
    // Only once Redis has taken every link queued before (a refused one leaves the page unacknowledged).
    const settled = this.writes.settled();
    const sent = this.acks.then(async () => {
      await settled;
      if (this.refused !== null) throw this.refused;
      this.sendFinished();
      const o = this.opts;
      const clear = this.clearing;
      this.clearing = [];
      const call = this.link.script('ack', [
        o.prefix,
        o.machine,
        o.hostConcurrency,
        batch,
        clear.length / 2,
        ...clear,
        ...entries.flatMap((e) => [e.url, e.host]),
      ]);
      this.track(call);
      call.catch(() => {
        this.clearing = [...clear, ...this.clearing];
      });
      return { call };
    });
    // Sent in order; their answers are awaited apart.
    this.acks = sent.then(
      () => {},
      () => {},
    );
    const answer = sent
      .then(({ call }) => call)
      .then(
        (reply) => {
          const held = (reply as unknown[]).map((x) => Number(x) === 1);
          let dropped = 0;
          urls.forEach((url, i) => {
            this.acking.delete(url);
            if (held[i]) this.acked.push(url, batch);
            else dropped++;
          });
          if (dropped > 0) {
            this.dropped += dropped;
            this.log.warn(
              { results: dropped, of: urls.length },
              "results dropped at their acknowledgement: their leases are no longer this machine's",
            );
          }
          return held;
        },
        (e: Error) => {
          this.takeBack(entries);
          throw e;
        },
      );
    return Promise.race([answer, this.ackDeadline]).catch((e: Error) => {
      this.takeBack(entries);
      throw e;
    });
  }

  /** Acknowledgements with no answer: their URLs are this machine's leases again (see releaseAll). */
  private takeBack(entries: FrontierEntry[]): void {
    for (const e of entries) {
      if (this.acking.delete(e.url)) this.held.set(e.url, e);
    }
  }

  /**
   * The journal wrote (or dropped) the line of every URL acknowledged so far and emptied its
   * pending file: their records in `w:<machine>` go, with the next acknowledgement (or at close).
   */
  itemsSettled(): void {
    this.clearing.push(...this.acked);
    this.acked = [];
  }

  /** The journal is closing: answers not in within `ms` (default {@link ACK_AT_STOP_MS}) are given up. */
  closing(ms = ACK_AT_STOP_MS): void {
    const giveUp = this.giveUpAcks;
    if (giveUp === null) return;
    this.giveUpAcks = null;
    setTimeout(giveUp, ms).unref();
  }

  /**
   * At resume, per line of the pending items file (written under an earlier machine id, the
   * `tag`): whether its acknowledgement was made (ACKED), so its item is due.
   * @throws when Redis refuses (the crawl's state lost...).
   */
  async acknowledged(lines: PendingLine[]): Promise<boolean[]> {
    const args = lines.flatMap((l) => [l.tag, l.url, l.batch]);
    const reply = (await this.link.script('acked', [this.opts.prefix, ...args])) as unknown[];
    return reply.map((x) => Number(x) === 1);
  }

  /** At resume, the pending lines of the machines `tags` are settled: their `w:` records go. */
  async forget(tags: string[]): Promise<void> {
    const keys = tags.filter((t) => t !== this.opts.machine).map((t) => `${this.opts.prefix}w:${t}`);
    if (keys.length > 0) await this.link.send(() => this.link.client.del(...keys));
  }

  /** A heartbeat sent at `sentAt` (performance.now()) was answered; `alive` false: it had expired. */
  heartbeatKept(sentAt: number, alive: boolean): void {
    this.clock.kept(sentAt, alive, this.leasedBefore());
  }

  /**
   * May the item of `url` be written now? True at once while its lease is surely this machine's
   * (`lease-clock.ts`); otherwise Redis is asked first, and the answer says whether this machine
   * still holds the URL (a URL another machine holds or acknowledged is forgotten here: its item
   * is not to be written).
   */
  mayWrite(url: string): true | Promise<boolean> {
    if (!this.held.has(url) || this.clock.sure(url)) return true;
    return this.confirm([url]).then((held) => held[0]);
  }

  /**
   * Whether this machine holds the leases of `urls`, from Redis (which keeps the heartbeat alive
   * in the same step, and leases again a URL taken back into the queue and not yet leased
   * elsewhere). Waits while Redis is unavailable, at most a lease timeout (after which the
   * leases are surely gone): then, or when a fault stops the machine, none is held.
   */
  private async confirm(urls: string[]): Promise<boolean[]> {
    const o = this.opts;
    if (urls.length === 0) return [];
    const args = urls.flatMap((u) => [u, hostKey(u)]);
    const none = () => urls.map(() => false);
    for (;;) {
      const sentAt = performance.now();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((r) => {
        timer = setTimeout(() => r('timeout'), o.leaseTimeoutMs);
      });
      const call = this.link.script('confirm', [
        o.prefix,
        o.machine,
        o.leaseTimeoutMs,
        o.hostConcurrency,
        ...args,
      ]);
      let reply: unknown;
      try {
        reply = await Promise.race([call, timeout]);
      } catch (e) {
        if (this.link.faults.fatal !== null) return none();
        this.log.error({ err: (e as Error).message }, 'asking redis for leases failed: asking again');
        await new Promise((r) => setTimeout(r, o.pollMs));
        continue;
      } finally {
        clearTimeout(timer);
      }
      if (reply === 'timeout') {
        call.catch(() => {});
        // Any lease still recorded for this machine is given back once Redis answers again.
        this.reconcileDue = true;
        for (const u of urls) this.drop(u, 'redis did not answer within the lease timeout');
        return none();
      }
      const r = (reply as (string | number)[]).map(Number);
      const asked = new Set(urls);
      this.clock.kept(
        sentAt,
        r[0] === 1,
        this.leasedBefore().filter((u) => !asked.has(u)),
      );
      const held = urls.map((_u, i) => r[i + 1] === 1);
      urls.forEach((u, i) => {
        if (held[i]) this.clock.confirmed(u);
        else this.drop(u, 'another machine took it while this one was silent');
      });
      return held;
    }
  }

  /** The result of `url` is not written here: its lease is not (or not surely) this machine's. */
  private drop(url: string, why: string): void {
    this.held.delete(url);
    this.clock.forget(url);
    this.dropped++;
    this.log.warn({ url, why }, "result dropped: its lease is no longer this machine's");
  }

  /** Results not written because their leases had gone to other machines. */
  dropped = 0;

  /** URLs leased here now: held, written and not yet sent for acknowledgement, being acknowledged. */
  private leasedBefore(): string[] {
    return [...this.held.keys(), ...this.unflushed, ...this.acking.keys()];
  }

  /**
   * Redis refused a write (a script error, or out of memory): no acknowledgement is sent after it,
   * so a page whose links may not be queued is fetched again by another machine.
   */
  refuse(e: Error): void {
    this.refused ??= e;
  }

  /**
   * Give back every lease this machine still holds (a stop: URLs leased and not written), after
   * every write before. Resolves when Redis has them, or rejects when it is unavailable.
   */
  async releaseAll(): Promise<void> {
    this.closed = true;
    // A claim on its way may still lease URLs: they are given back with the others.
    await this.claimAnswered;
    await this.acks;
    this.writes.flush();
    this.sendFinished();
    const o = this.opts;
    for (const e of this.buffer) this.held.set(e.url, e);
    this.buffer.length = 0;
    const calls = [...this.held.keys()].map((url) =>
      this.link.script('retry', [o.prefix, o.machine, url, 0, '', o.delayMs, o.hostConcurrency]),
    );
    this.held.clear();
    // The records of acknowledgements whose lines are written (those not settled stay for resume).
    if (this.clearing.length > 0) {
      const clear = this.clearing;
      this.clearing = [];
      calls.push(
        this.link.script('ack', [o.prefix, o.machine, o.hostConcurrency, 0, clear.length / 2, ...clear]),
      );
    }
    await Promise.all(calls);
    await this.writes.settled();
  }

  /** Lease a batch when none is on its way and the last answer allows. */
  private claim(): void {
    if (this.claiming || this.closed || this.link.faults.paused || performance.now() < this.claimAfter)
      return;
    const o = this.opts;
    const want = o.claimBatch - this.inFlightCount - this.buffer.length;
    if (want <= 0) return;
    this.claiming = true;
    this.writes.flush();
    const writes = this.writes.sent;
    const changes = this.changes;
    const reconcile = this.reconcileDue ? this.reconcile() : Promise.resolve();
    this.reconcileDue = false;
    const randoms = Array.from({ length: want }, () => Math.random());
    let sentAt = 0;
    let finished: (string | number)[] = [];
    this.claimAnswered = reconcile
      .then(() => {
        sentAt = performance.now();
        // The requests over so far go in this claim, their tokens given back before it leases.
        finished = this.finished;
        this.finished = [];
        return this.link.script('claim', [
          o.prefix,
          o.machine,
          want,
          o.delayMs,
          o.jitter,
          o.hostConcurrency,
          o.leaseTimeoutMs,
          Math.max(FAIR_WINDOW_MIN_MS, FAIR_WINDOW_POLLS * o.pollMs),
          finished.length / 2,
          ...finished,
          ...randoms,
        ]);
      })
      .then(
        (reply) => this.claimed(reply as (string | number)[], writes, sentAt, changes),
        (e: Error) => {
          this.log.error({ err: e.message }, 'claiming URLs from redis failed');
          this.claimAfter = performance.now() + o.pollMs;
          // Given back again (DONE is idempotent), first.
          this.finished = [...finished, ...this.finished];
        },
      )
      .finally(() => {
        this.claiming = false;
        // Requests over while the claim was on its way: the next claim (due at once after an
        // answer, see claimed()) gives their tokens back, or they go on their own.
        if (this.finished.length > 0) {
          this.claim();
          if (!this.claiming) this.sendFinished();
        }
        this.wake();
      });
  }

  /**
   * A claim sent after `writes` writes and `changes` changes (at `sentAt`) was answered: its URLs
   * are buffered, and the next claim is due at once (URLs came, or this machine changed the crawl
   * since the claim was sent: a token given back or links queued meanwhile may be ready now), when
   * the first host is ready, or after a poll (other machines' work).
   */
  private claimed(reply: (string | number)[], writes: number, sentAt: number, changes: number): void {
    const [now, firstReady, queued, leased, alive] = reply.slice(0, 5).map(Number);
    this.last = { queued, leased, writes };
    this.clock.kept(sentAt, alive === 1, this.leasedBefore());
    for (let i = 5; i + 2 < reply.length; i += 3) {
      const url = String(reply[i]);
      const entry = this.toEntry(url, String(reply[i + 1]), String(reply[i + 2]));
      this.held.set(url, entry);
      this.buffer.push(entry);
    }
    if (this.buffer.length > 0 || this.changes !== changes) this.claimAfter = 0;
    else {
      // Nothing ready here: ask again when the first host is ready, or poll for others' work.
      const wait = firstReady >= 0 ? Math.max(MIN_EMPTY_CLAIM_GAP_MS, firstReady - now) : this.opts.pollMs;
      this.claimAfter = performance.now() + Math.min(wait, this.opts.pollMs);
    }
  }

  private toEntry(url: string, host: string, json: string): FrontierEntry {
    let stored: StoredEntry = { d: 0, a: 0 };
    try {
      stored = JSON.parse(json) as StoredEntry;
    } catch {
      this.log.warn({ url }, 'damaged entry in redis: taken as a depth-0 first try');
    }
    const entry: FrontierEntry = { url, host, depth: Number(stored.d) || 0, attempt: Number(stored.a) || 0 };
    const round = Number(stored.r) || 0;
    if (round > this.round) this.onLaterRound?.(round);
    if (typeof stored.m === 'string') {
      const meta = parseRequestMeta(stored.m);
      if (meta !== null) entry.meta = meta;
    }
    return entry;
  }

  /** After a reconnect: give back leases Redis holds for this machine that it never received. */
  private async reconcile(): Promise<void> {
    const o = this.opts;
    const leases = await this.link.client.hkeys(`${o.prefix}l:${o.machine}`);
    // Not a URL held here, written and not yet sent for acknowledgement, or being acknowledged.
    const unknown = leases.filter(
      (u) => !this.held.has(u) && !this.unflushed.includes(u) && !this.acking.has(u),
    );
    for (const url of unknown) {
      await this.link.script('retry', [o.prefix, o.machine, url, 0, '', o.delayMs, o.hostConcurrency]);
    }
    if (unknown.length > 0) this.log.info({ urls: unknown.length }, 'leases lost in a reconnect given back');
  }

  private send(name: 'done' | 'retry' | 'pauseHost' | 'slowDown', args: (string | number)[]): void {
    this.track(this.link.script(name, [this.opts.prefix, ...args]));
  }

  /**
   * A write of this machine was answered. With nothing leased here to start, claim again at once
   * rather than after a poll: what it changed (a token given back, the last acknowledgements of
   * the crawl) may be what the last claim waited for.
   */
  private written(): void {
    if (this.buffer.length > 0 || this.inFlightCount > 0) return;
    this.claimAfter = 0;
    if (!this.claiming) this.wake();
  }

  /**
   * Resolves when every write sent so far (and every pending push, and every request over) is
   * answered, the claim on its way too (it may carry requests over).
   */
  async settled(): Promise<void> {
    this.writes.flush();
    this.sendFinished();
    await this.claimAnswered;
    await this.acks;
    await Promise.all([...this.outstanding, this.writes.settled()]);
  }

  private track(p: Promise<unknown>): void {
    this.writes.sent++;
    this.changes++;
    const t = p.then(
      () => {
        this.outstanding.delete(t);
        this.written();
      },
      (e: Error) => {
        this.outstanding.delete(t);
        this.log.error({ err: e.message }, 'a write to redis failed');
      },
    );
    this.outstanding.add(t);
  }
}
