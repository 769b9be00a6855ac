/**
 * A worker process's side of the collector's rate budgets: each `reserve` is a message to the
 * supervisor (`rate-budget-desk.ts`) answered by `budget-grant`; observations and releases go
 * without an answer. Messages on one IPC channel arrive in order, so a response observed before
 * the next reserve is counted when that reserve is answered.
 */
import type { RateBudgets } from '../engine/rate-gate.js';
import type { BudgetKey, Grant } from '../http/rate-budget.js';
import type { BudgetMessage } from './ipc.js';

/** How long requests wait when the supervisor is gone (the worker is stopping then), ms. */
const ORPHAN_WAIT_MS = 60_000;

/** The supervisor's budgets, seen from a worker (see the module comment). */
export class RemoteRateBudgets implements RateBudgets {
  private nextId = 1;
  private readonly pending = new Map<number, (g: Grant) => void>();
  private closed = false;

  /** @param send sends a message to the supervisor (dropped when the channel is closed). */
  constructor(private readonly send: (m: BudgetMessage) => void) {}

  reserve(key: BudgetKey): Promise<Grant> {
    if (this.closed) return Promise.resolve(orphanWait());
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.send({ t: 'budget', op: 'reserve', id, key });
    });
  }

  observe(key: BudgetKey, status: number | null, headers: Record<string, string>, hint?: string): void {
    this.send({ t: 'budget', op: 'observe', key, status, headers, ...(hint === undefined ? {} : { hint }) });
  }

  release(key: BudgetKey): void {
    this.send({ t: 'budget', op: 'release', key });
  }

  /** The supervisor's answer to reserve `id`. */
  settle(id: number, grant: Grant): void {
    const resolve = this.pending.get(id);
    this.pending.delete(id);
    resolve?.(grant);
  }

  /** The supervisor is gone: every waiting request (and any later one) waits; the worker stops. */
  close(): void {
    this.closed = true;
    for (const resolve of this.pending.values()) resolve(orphanWait());
    this.pending.clear();
  }
}

function orphanWait(): Grant {
  return { ok: false, waitUntil: Date.now() + ORPHAN_WAIT_MS, reason: 'probe' };
}
