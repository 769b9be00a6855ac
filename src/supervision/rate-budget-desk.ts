/**
 * The collector's rate budgets, held by the supervisor for all its worker processes (DESIGN §2b:
 * one budget per credential and resource, so 8 processes never spend 8× the budget): answers
 * their `budget` messages, shows the waits in force in status.json, and keeps the budget in
 * `<data>/state/rate-budget.json` (replaced atomically) so a wait survives a restart.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { RateBudget } from '../http/rate-budget.js';
import { SerialBudget } from '../http/serial-budget.js';
import { writeFileAtomic } from '../sinks/atomic-file.js';
import type { BudgetMessage, ToWorker } from './ipc.js';

/** The budget is written at most this often while it changes, ms. */
export const RATE_BUDGET_SAVE_MS = 500;

/** `<data>/state/rate-budget.json` */
export function rateBudgetPath(dataDir: string): string {
  return path.join(dataDir, 'state', 'rate-budget.json');
}

/** A wait in force, as status.json shows it. */
export interface RateLimitStatus {
  /** `anonymous` or `token-<16 hex>` (a hash: never the token). */
  identity: string;
  /** The resource (`search`, `core`) or, for a secondary limit, the group (`api`). */
  scope: string;
  reason: 'primary' | 'secondary';
  /** ISO 8601. */
  until: string;
  /** `waiting for rate limit until <until> (<scope>, <reason>)` */
  message: string;
}

/** Where the desk keeps its file and logs. */
export interface DeskPlace {
  dataDir: string;
  log: Logger;
}

/** The supervisor's rate budgets (see the module comment). */
export class RateBudgetDesk {
  private budget: SerialBudget | null = null;
  private place: DeskPlace | null = null;
  private saveTimer: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();

  /** Answer one `budget` message of worker `w`. */
  answer(w: { send(m: ToWorker): boolean }, m: BudgetMessage, place: DeskPlace): void {
    const budget = this.open(place);
    switch (m.op) {
      case 'reserve':
        budget.reserve(m.key, (grant) => {
          // A grant its worker cannot get (it exited) is given back at once.
          if (!w.send({ t: 'budget-grant', id: m.id, grant }) && grant.ok) budget.release(m.key);
        });
        return;
      case 'observe':
        // A new wait is written at once: it must survive a restart that follows closely.
        if (budget.observe(m.key, m.status, m.headers, m.hint) !== null) void this.flush();
        else this.scheduleSave();
        return;
      case 'release':
        budget.release(m.key);
    }
  }

  /** `doc` with `rateLimits`: the waits in force (absent when no source uses a budget). */
  extend<D extends object>(doc: D): D & { rateLimits?: RateLimitStatus[] } {
    if (this.budget === null) return doc;
    const rateLimits = this.budget.budget.waits().map((w) => {
      const until = new Date(w.until).toISOString();
      return {
        identity: w.identity,
        scope: w.scope,
        reason: w.reason,
        until,
        message: `waiting for rate limit until ${until} (${w.scope}, ${w.reason})`,
      };
    });
    return { ...doc, rateLimits };
  }

  /** Write the budget now (e.g. before exit). Never rejects: a failure is logged. */
  flush(): Promise<void> {
    if (this.saveTimer !== null) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    const budget = this.budget;
    const place = this.place;
    if (budget === null || place === null) return this.saving;
    const file = rateBudgetPath(place.dataDir);
    const text = `${JSON.stringify(budget.budget.snapshot())}\n`;
    this.saving = this.saving
      .then(() => writeFileAtomic(file, text))
      .catch((e: Error) => place.log.warn({ err: e.message, file }, 'rate budget not saved'));
    return this.saving;
  }

  private scheduleSave(): void {
    if (this.saveTimer !== null) return;
    this.saveTimer = setTimeout(() => void this.flush(), RATE_BUDGET_SAVE_MS);
    this.saveTimer.unref();
  }

  /** The budget, restored from its file at first use (a damaged file is reported and replaced). */
  private open(place: DeskPlace): SerialBudget {
    if (this.budget !== null) return this.budget;
    this.place = place;
    const file = rateBudgetPath(place.dataDir);
    mkdirSync(path.dirname(file), { recursive: true });
    let text: string | null = null;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // none yet
    }
    let budget = new RateBudget();
    if (text !== null) {
      try {
        budget = RateBudget.fromSnapshot(JSON.parse(text));
      } catch (e) {
        place.log.warn({ file, err: (e as Error).message }, 'rate budget file damaged: starting afresh');
      }
    }
    this.budget = new SerialBudget(budget);
    return this.budget;
  }
}
