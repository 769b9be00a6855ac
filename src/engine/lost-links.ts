/**
 * Finding again the links a damaged frontier log lost. When resume finds the log shorter than the
 * journal's mark says it was (journal-mark.ts), the URLs it had queued and not yet fetched are
 * unknown; those found on this worker's own pages are found again by reading each stored page of
 * the items file through the source once more — no fetch, no new item — its links then going
 * through depth, scope, dedup and ownership like any page's (what is already known is dropped
 * there; what is new is queued and written to the frontier log again). Pages without a stored
 * body (`--no-store`, `store: false`, errors) cannot be read again and are counted.
 *
 * Its progress (the items line to go on from) is kept in `state/<worker>/relink.json`, written
 * before the journal's next mark and replaced atomically as it goes, so a stop or a crash midway
 * continues where it was at the next resume; the file is removed once every page was read.
 */
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { writeFileAtomic } from '../sinks/atomic-file.js';
import type { LinkFollower } from './link-follower.js';
import type { PageProcessor } from './page-processor.js';

/** The progress file's name in a worker's state dir. */
export const RELINK_FILE = 'relink.json';

/** Items lines read between two saves of the progress (also saved every {@link RELINK_SAVE_MS}). */
const RELINK_SAVE_LINES = 1000;
/** Longest time between two saves of the progress, ms. */
const RELINK_SAVE_MS = 5000;

function relinkPath(stateDir: string): string {
  return path.join(stateDir, RELINK_FILE);
}

/**
 * The items line a pending re-read goes on from, or null when none is pending (or the file is
 * damaged: then it starts again from the first line, which repeats work but loses nothing).
 */
export async function pendingRelink(stateDir: string): Promise<number | null> {
  let text: string;
  try {
    text = await fs.readFile(relinkPath(stateDir), 'utf8');
  } catch {
    return null;
  }
  try {
    const from = (JSON.parse(text) as { fromLine?: unknown })?.fromLine;
    return typeof from === 'number' && Number.isSafeInteger(from) && from >= 0 ? from : 0;
  } catch {
    return 0;
  }
}

/**
 * Record that the stored pages are to be read again from items line `fromLine` (fsynced: it must
 * outlive the journal's next mark, which no longer shows the loss).
 * @throws the fs error (ENOSPC...).
 */
export async function saveRelink(stateDir: string, fromLine: number): Promise<void> {
  await writeFileAtomic(relinkPath(stateDir), `${JSON.stringify({ fromLine })}\n`, { fsync: true });
}

/** What a re-read did. */
export interface RelinkResult {
  /** Stored pages read through the source again. */
  read: number;
  /** 2xx pages without a stored body: their links could not be found again. */
  unstored: number;
  /** Stored bodies no longer there (removed by hand, or an older version given up). */
  missing: number;
  /** New URLs queued by this worker meanwhile (links owned by sibling processes go to them). */
  queued: number;
  /** Every page was read (false: stopped midway; the next resume goes on). */
  done: boolean;
}

/** What the re-read works with. */
export interface LinkRecoveryParts {
  stateDir: string;
  itemsPath: string;
  /** `<out>`: item `file`s are relative to it. */
  outDir: string;
  /** The items line to start from ({@link pendingRelink}). */
  fromLine: number;
  pages: PageProcessor;
  /** A page id no other page of the processor has. */
  pageId(): number;
  follower: LinkFollower;
  /** The round of a URL (continuous collection). */
  round(url: string): number;
  /** URLs this worker has queued so far (to tell how many the re-read added). */
  queued(): number;
  /** Largest body, bytes. */
  maxBytes: number;
  log: Logger;
  isStopping(): boolean;
  /** The frontier log as the closing line names it (`state/docs-0/frontier.log`). */
  logName: string;
}

/** Whether an item is a page whose links were followed when it was fetched, and how to read it again. */
function relinkable(it: Record<string, unknown>): boolean {
  const data = it.data as Record<string, unknown> | undefined;
  return (
    typeof it.url === 'string' &&
    typeof it.status === 'number' &&
    it.status >= 200 &&
    it.status < 300 &&
    it.error === undefined &&
    // a body seen before had its links followed from its first copy; one not decoded was not read
    data?.duplicateOf === undefined &&
    data?.contentEncoding !== 'unknown-encoding'
  );
}

/** Reads the stored pages of a worker through its source again (see the module comment). */
export class LinkRecovery {
  constructor(private readonly parts: LinkRecoveryParts) {}

  /**
   * Read every stored page from `fromLine` on, then say what was found in one line (stderr and
   * log). Never rejects: a failure is logged and ends the pass (the next resume starts it again).
   */
  async run(): Promise<RelinkResult> {
    const r = await this.readAll();
    const p = this.parts;
    p.log.info(
      { ...r },
      r.done ? 'stored pages read again' : 'reading stored pages again: stopped, continues at resume',
    );
    if (r.done) {
      const left =
        r.unstored + r.missing > 0
          ? `; ${r.unstored + r.missing} page${r.unstored + r.missing === 1 ? ' has' : 's have'} no stored body: URLs found only there stay lost`
          : '';
      process.stderr.write(
        `collector: ${p.logName}: ${r.read} stored page${r.read === 1 ? '' : 's'} read again, ` +
          `${r.queued} URL${r.queued === 1 ? '' : 's'} queued again${left}\n`,
      );
    }
    return r;
  }

  private async readAll(): Promise<RelinkResult> {
    const p = this.parts;
    const result: RelinkResult = { read: 0, unstored: 0, missing: 0, queued: 0, done: false };
    const queuedBefore = p.queued();
    let line = 0;
    let savedAt = Date.now();
    let savedLine = p.fromLine;
    try {
      const input = createReadStream(p.itemsPath, { encoding: 'utf8' });
      const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
      try {
        for await (const text of lines) {
          const index = line++;
          if (index < p.fromLine || text.length === 0) continue;
          if (p.isStopping()) {
            await saveRelink(p.stateDir, index);
            return { ...result, queued: p.queued() - queuedBefore };
          }
          await this.page(text, result);
          if (index + 1 - savedLine >= RELINK_SAVE_LINES || Date.now() - savedAt >= RELINK_SAVE_MS) {
            await saveRelink(p.stateDir, index + 1);
            savedLine = index + 1;
            savedAt = Date.now();
          }
        }
      } finally {
        lines.close();
        input.destroy();
      }
      await fs.rm(relinkPath(p.stateDir), { force: true });
      result.done = true;
    } catch (e) {
      p.log.error({ err: (e as Error).message }, 'reading stored pages again failed');
    }
    return { ...result, queued: p.queued() - queuedBefore };
  }

  /** One items line: its stored page read through the source, its links followed. */
  private async page(text: string, result: RelinkResult): Promise<void> {
    const p = this.parts;
    let it: Record<string, unknown>;
    try {
      it = JSON.parse(text);
    } catch {
      return;
    }
    if (it === null || typeof it !== 'object' || !relinkable(it)) return;
    if (typeof it.file !== 'string') {
      result.unstored++;
      return;
    }
    let body: Buffer;
    try {
      body = await fs.readFile(path.join(p.outDir, it.file));
    } catch {
      result.missing++;
      return;
    }
    const url = it.url as string;
    const contentType = typeof it.contentType === 'string' ? it.contentType : null;
    const depth = typeof it.depth === 'number' ? it.depth : 0;
    const id = p.pageId();
    try {
      const worked = await p.pages.work({
        id,
        url,
        finalUrl: typeof it.finalUrl === 'string' ? it.finalUrl : url,
        status: it.status as number,
        contentType,
        contentEncoding: null, // stored as decoded
        headers: contentType === null ? {} : { 'content-type': contentType },
        depth,
        label: typeof it.label === 'string' ? it.label : undefined,
        userData: it.userData,
        maxBytes: p.maxBytes,
        extract: true,
        body,
      });
      result.read++;
      const links = worked.result?.follow;
      if (links !== undefined && links.length > 0) p.follower.follow(links, depth + 1, p.round(url));
    } finally {
      p.pages.drop(id);
    }
  }
}
