/**
 * status.json for a one-process crawl (`--processes 1`, no supervisor): the crawl process is its
 * own supervisor and its only worker, so `collector status`, `watchdog` and the metrics server
 * read it exactly as they read a supervised crawl's.
 */
import path from 'node:path';
import { SupervisorSettingsSchema } from '../config/config-file.js';
import { type CrawlOptions, ONE_SHOT_PARSE } from '../config/crawl-options.js';
import type { Crawler } from '../engine/crawler.js';
import type { LaunchRecord } from '../supervision/launch-record.js';
import { memoryOfAsync, treeMemoryOfAsync } from '../supervision/memory-guard.js';
import { selfIdentity } from '../supervision/process-identity.js';
import { writeStatusJson } from '../supervision/status-file.js';
import { STATUS_FILE_FORMAT, type StatusFile } from '../supervision/status-format.js';
import { STATUS_INTERVAL_MS } from '../supervision/supervisor.js';
import type { CounterSet } from '../supervision/worker-counters.js';

/** The supervisor's default timings, recorded for the watchdog as a supervised crawl's would be. */
const SUPERVISOR_DEFAULTS = SupervisorSettingsSchema.parse({}, ONE_SHOT_PARSE);

/** The status of a crawl running in this process, written every `statusIntervalMs`. */
export class InProcessStatus {
  private readonly startedAt = new Date();
  private readonly self = selfIdentity();
  private timer: NodeJS.Timeout | null = null;
  private state: StatusFile['state'] = 'running';
  private diskFull: string | null = null;
  private rate = { items: 0, at: Date.now(), perSec: 0 };
  /** Epoch ms of the last item written. */
  lastProgressAt: number | null = null;
  /**
   * The last memory sample, bytes: this process's PSS and its browser tree's (0 before the first
   * sample, or without a browser). Taken before each write, off the event loop.
   */
  private memory = { pss: 0, browser: 0 };
  /** With a shared backend: its state (`totals.backend`: connected, crawl id, machine...). */
  backendStatus: (() => Record<string, unknown>) | null = null;

  constructor(
    private readonly workerId: string,
    private readonly crawler: Crawler,
    private readonly counters: CounterSet,
    private readonly opts: CrawlOptions,
    private readonly launch: LaunchRecord,
    private readonly memoryLimitBytes: number,
    private readonly statusIntervalMs = STATUS_INTERVAL_MS,
  ) {}

  /** The status document now. */
  status(): StatusFile {
    const c = this.crawler;
    const now = Date.now();
    if (now - this.rate.at >= 1000) {
      this.rate = {
        items: c.stats.items,
        at: now,
        perSec: ((c.stats.items - this.rate.items) * 1000) / (now - this.rate.at),
      };
    }
    const rendering = c.rendering;
    const browserMB = rendering?.browserPid == null ? 0 : Math.round(this.memory.browser / 1048576);
    const pss = Math.round(this.memory.pss / 1048576);
    const rss = Math.round(process.memoryUsage.rss() / 1048576);
    const counters = this.counters.snapshot();
    const worker = {
      id: this.workerId,
      type: 'crawl',
      source: 'crawl',
      pid: process.pid,
      pidStartTicks: this.self.startTicks,
      state:
        this.state === 'running'
          ? c.frontier.queued + c.busy > 0
            ? 'running'
            : 'idle'
          : this.state === 'stopping'
            ? 'stopping'
            : 'done',
      items: c.stats.items,
      itemsThisRun: c.stats.itemsThisRun,
      // a crawl that has ended fetches nothing: its last rate is not its rate
      pagesPerSec:
        this.state === 'finished' || this.state === 'stopped' ? 0 : Math.round(this.rate.perSec * 10) / 10,
      errors: c.stats.errors,
      queue: c.frontier.queued,
      inFlight: c.busy,
      rssMB: rss,
      pssMB: pss,
      ...(rendering === null ? {} : { rendered: rendering.rendered, browserMB }),
      lastProgressAt: this.lastProgressAt ? new Date(this.lastProgressAt).toISOString() : null,
      restarts: 0,
      // A shared backend's problem (Redis out of memory, the crawl's state lost), one line.
      lastError: (this.backendStatus?.().problem as string | null | undefined) ?? null,
      counters,
    };
    return {
      format: STATUS_FILE_FORMAT,
      mode: 'in-process',
      supervisorPid: process.pid,
      supervisor: this.self,
      startedAt: this.startedAt.toISOString(),
      updatedAt: new Date().toISOString(),
      state: this.state,
      launch: this.launch,
      timings: {
        statusIntervalMs: this.statusIntervalMs,
        restartBackoffMs: SUPERVISOR_DEFAULTS.restartBackoff,
        joinTimeoutMs: this.opts.joinTimeout,
        stallTimeoutMs: SUPERVISOR_DEFAULTS.stallTimeout,
      },
      expected: { crawl: 1 },
      memoryLimitMB: Math.round(this.memoryLimitBytes / 1048576),
      diskFull: this.diskFull,
      workers: [worker],
      totals: {
        items: worker.items,
        itemsThisRun: worker.itemsThisRun,
        errors: worker.errors,
        queue: worker.queue,
        pagesPerSec: worker.pagesPerSec,
        rssMB: rss,
        pssMB: pss + browserMB,
        workers: 1,
        parked: 0,
        skipped: { ...c.stats.skipped },
        counters,
        ...(this.backendStatus === null ? {} : { backend: this.backendStatus() }),
      },
    };
  }

  /** Write status.json now and every status interval. */
  start(): void {
    void this.write();
    this.timer = setInterval(() => void this.write(), this.statusIntervalMs);
    this.timer.unref();
  }

  /** The crawl is stopping (a signal). */
  stopping(): void {
    if (this.state === 'running') this.state = 'stopping';
  }

  /**
   * Stop writing; the last write says `finished` or `stopped`, and `diskFull`: where the disk
   * filled when a full disk stopped the crawl.
   */
  async end(finished: boolean, diskFull: string | null = null): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.state = finished ? 'finished' : 'stopped';
    this.diskFull = diskFull;
    await this.write();
  }

  /** Sample the memory figures of {@link status} (reads /proc on libuv's threads). */
  private async sampleMemory(): Promise<void> {
    const browserPid = this.crawler.rendering?.browserPid;
    const [pss, browser] = await Promise.all([
      memoryOfAsync(process.pid),
      browserPid == null ? 0 : treeMemoryOfAsync(browserPid),
    ]);
    this.memory = { pss, browser };
  }

  /** Writes in the order asked: the last one (end's) is the one that stays. */
  private writing: Promise<void> = Promise.resolve();

  private write(): Promise<void> {
    this.writing = this.writing.then(async () => {
      try {
        await this.sampleMemory();
        await writeStatusJson(path.resolve(this.opts.out), this.status());
      } catch {
        // advisory: a crawl never fails for its status file
      }
    });
    return this.writing;
  }
}
