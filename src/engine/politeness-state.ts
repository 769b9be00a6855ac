/**
 * What protects a worker's hosts and identifies its rounds, kept across restarts: each host's
 * 429/503 slow-down and running pause (Retry-After, rate-limit reset, retry back-off), the origins
 * whose robots.txt was unavailable and until when, and the round number with its start.
 * `state/<worker-id>/politeness.json`, replaced atomically (never seen half-written) every
 * {@link POLITENESS_SAVE_MS} when it changed, at a round's start and at close; read back at start
 * with every field checked: a damaged file or entry is reported in one line and ignored (its hosts
 * are then treated as new, the round numbering starts again).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { FrontierQueue } from '../frontier/frontier-queue.js';
import type { RobotsCache } from '../http/robots.js';
import { writeFileAtomic } from '../sinks/atomic-file.js';

/** How often the state is saved when it changed, ms. */
export const POLITENESS_SAVE_MS = 2000;

/** Hosts saved at most (the longest waits first): the memory of a few hosts that misbehave. */
export const SAVED_HOSTS_MAX = 1000;

/** The file's layout version. */
const FORMAT = 1;

/** A round's number and start. */
export interface RoundMark {
  /** 0: the first pass, before any later round. */
  number: number;
  /** Epoch ms. */
  startedAt: number;
}

/** politeness.json. Times are epoch ms (the frontier's own clock is monotonic, per process). */
export interface SavedPoliteness {
  format: number;
  savedAt: number;
  round: RoundMark;
  hosts: Array<{ host: string; penaltyMs: number; pausedUntil: number; reason: string }>;
  robots: Array<{ origin: string; until: number }>;
}

/** The path of the file in a worker's state dir. */
export function politenessPath(stateDir: string): string {
  return path.join(stateDir, 'politeness.json');
}

const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isText = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;

/**
 * Check a saved document field by field.
 * @returns the valid part and how many entries were skipped, or a one-line reason when the whole
 *   document is unusable.
 */
export function parseSavedPoliteness(text: string): { saved: SavedPoliteness; skipped: number } | string {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const d = doc as Partial<SavedPoliteness> | null;
  if (typeof d !== 'object' || d === null || d.format !== FORMAT) return `not format ${FORMAT}`;
  const r = d.round;
  if (
    typeof r !== 'object' ||
    r === null ||
    !Number.isSafeInteger(r.number) ||
    r.number < 0 ||
    !isTime(r.startedAt)
  )
    return 'bad round';
  if (!Array.isArray(d.hosts) || !Array.isArray(d.robots)) return 'no hosts or robots list';
  let skipped = 0;
  const hosts = d.hosts.filter((h) => {
    const ok =
      typeof h === 'object' &&
      h !== null &&
      isText(h.host, 300) &&
      /^[a-z0-9.[\]:-]+$/i.test(h.host) &&
      isTime(h.penaltyMs) &&
      isTime(h.pausedUntil) &&
      isText(h.reason, 200);
    if (!ok) skipped++;
    return ok;
  });
  const robots = d.robots.filter((o) => {
    const ok =
      typeof o === 'object' &&
      o !== null &&
      isText(o.origin, 320) &&
      /^https?:\/\/[^/]+$/.test(o.origin) &&
      isTime(o.until);
    if (!ok) skipped++;
    return ok;
  });
  return {
    saved: {
      format: FORMAT,
      savedAt: isTime(d.savedAt) ? d.savedAt : 0,
      round: { number: r.number, startedAt: r.startedAt },
      hosts,
      robots,
    },
    skipped,
  };
}

/** What the state is made of. */
export interface PolitenessParts {
  frontier: FrontierQueue;
  /** null with `--no-robots`. */
  robots: RobotsCache | null;
  /** The round in progress. */
  round(): RoundMark;
  log: Logger;
}

/** One worker's saved politeness and round. */
export class PolitenessState {
  private timer: NodeJS.Timeout | null = null;
  /** The last document written, without its `savedAt`. */
  private last = '';
  private writing: Promise<void> = Promise.resolve();
  private failed = false;

  private constructor(
    private readonly file: string,
    private readonly parts: PolitenessParts,
  ) {}

  /**
   * Read the saved state (if any) into the frontier's hosts and the robots.txt cache, and start
   * saving it every {@link POLITENESS_SAVE_MS}.
   * @returns the state, and the round saved (null when none or unusable): the caller continues it.
   */
  static async open(
    stateDir: string,
    parts: PolitenessParts,
  ): Promise<{ state: PolitenessState; round: RoundMark | null }> {
    const file = politenessPath(stateDir);
    const state = new PolitenessState(file, parts);
    const round = await state.load();
    state.timer = setInterval(() => state.save(), POLITENESS_SAVE_MS);
    state.timer.unref();
    return { state, round };
  }

  /** Save now (a round started: its number must survive a kill that follows). */
  saveSoon(): void {
    this.save();
  }

  /** Stop saving, after a last save. Never rejects. */
  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.save();
    await this.writing;
  }

  private async load(): Promise<RoundMark | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
        this.parts.log.warn(
          { file: this.file, err: (e as Error).message },
          'politeness state unreadable: ignored',
        );
      return null;
    }
    const parsed = parseSavedPoliteness(text);
    if (typeof parsed === 'string') {
      this.parts.log.warn({ file: this.file, problem: parsed }, 'politeness state damaged: ignored');
      return null;
    }
    const { saved, skipped } = parsed;
    if (skipped > 0)
      this.parts.log.warn({ file: this.file, skipped }, 'politeness state: invalid entries skipped');
    const now = Date.now();
    const { frontier, robots } = this.parts;
    for (const h of saved.hosts) {
      frontier.restore?.({
        host: h.host,
        penaltyMs: h.penaltyMs,
        pausedForMs: Math.max(0, h.pausedUntil - now),
        reason: h.reason,
      });
    }
    if (robots !== null) for (const o of saved.robots) robots.restoreUnavailable(o.origin, o.until);
    this.parts.log.info(
      { round: saved.round.number, hosts: saved.hosts.length, robots: saved.robots.length },
      'politeness state restored',
    );
    return { number: saved.round.number, startedAt: Math.min(saved.round.startedAt, now) };
  }

  /** Write the document when it changed since the last write (one write at a time). */
  private save(): void {
    const now = Date.now();
    const { frontier, robots, round } = this.parts;
    const hosts = (frontier.politeness?.(SAVED_HOSTS_MAX) ?? [])
      .filter((h) => h.penaltyMs > 0 || h.pausedForMs > 0)
      .map((h) => ({
        host: h.host,
        penaltyMs: h.penaltyMs,
        pausedUntil: now + h.pausedForMs,
        reason: h.reason,
      }));
    const body = { format: FORMAT, round: round(), hosts, robots: robots?.unavailableOrigins() ?? [] };
    // pausedUntil moves with the clock's rounding: compare with a second's resolution
    const key = JSON.stringify({
      ...body,
      hosts: hosts.map((h) => ({ ...h, pausedUntil: Math.round(h.pausedUntil / 1000) })),
    });
    if (key === this.last) return;
    this.last = key;
    const text = `${JSON.stringify({ ...body, savedAt: now })}\n`;
    this.writing = this.writing.then(() =>
      writeFileAtomic(this.file, text).then(
        () => {
          this.failed = false;
        },
        (e: Error) => {
          this.last = ''; // written again next time
          if (!this.failed)
            this.parts.log.warn({ file: this.file, err: e.message }, 'saving politeness state failed');
          this.failed = true;
        },
      ),
    );
  }
}
