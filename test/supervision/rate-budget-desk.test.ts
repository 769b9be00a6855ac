/**
 * The supervisor's rate budgets: `budget` messages answered per worker (one budget for all),
 * waits shown in status, the budget saved to state/rate-budget.json and restored by the next
 * supervisor (a damaged file is reported and replaced).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { ToWorker } from '../../src/supervision/ipc.js';
import { RateBudgetDesk, rateBudgetPath } from '../../src/supervision/rate-budget-desk.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function place() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'g10-desk-'));
  dirs.push(dataDir);
  return { dataDir, log: pino({ level: 'silent' }) };
}

function worker() {
  const got: ToWorker[] = [];
  const send = (m: ToWorker): boolean => {
    got.push(m);
    return true;
  };
  return { got, send };
}

const key = { identity: 'token-abc', resource: 'core' };

describe('RateBudgetDesk', () => {
  it('one budget for every worker: a limit one worker met makes the other wait; status says until when', async () => {
    const p = place();
    const desk = new RateBudgetDesk();
    const a = worker();
    const b = worker();
    desk.answer(a, { t: 'budget', op: 'reserve', id: 1, key }, p);
    expect(a.got).toEqual([{ t: 'budget-grant', id: 1, grant: { ok: true } }]);
    const reset = Math.ceil(Date.now() / 1000) + 3600;
    desk.answer(
      a,
      {
        t: 'budget',
        op: 'observe',
        key,
        status: 200,
        headers: {
          'x-ratelimit-limit': '5000',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(reset),
          'x-ratelimit-resource': 'core',
        },
      },
      p,
    );
    desk.answer(b, { t: 'budget', op: 'reserve', id: 7, key }, p);
    expect(b.got).toEqual([
      { t: 'budget-grant', id: 7, grant: { ok: false, waitUntil: reset * 1000 + 1000, reason: 'primary' } },
    ]);
    const status = desk.extend({ workers: [] });
    expect(status.rateLimits).toEqual([
      {
        identity: 'token-abc',
        scope: 'core',
        reason: 'primary',
        until: new Date(reset * 1000 + 1000).toISOString(),
        message: `waiting for rate limit until ${new Date(reset * 1000 + 1000).toISOString()} (core, primary)`,
      },
    ]);
    // Saved, and a new supervisor (restart) keeps the wait.
    await desk.flush();
    const saved = JSON.parse(fs.readFileSync(rateBudgetPath(p.dataDir), 'utf8'));
    expect(saved.resources).toEqual([
      expect.objectContaining({ identity: 'token-abc', resource: 'core', remaining: 0 }),
    ]);
    const again = new RateBudgetDesk();
    const c = worker();
    again.answer(c, { t: 'budget', op: 'reserve', id: 1, key }, p);
    expect(c.got[0]).toMatchObject({ grant: { ok: false, reason: 'primary' } });
  });

  it('no budget used: status has no rateLimits; a damaged file is replaced', () => {
    const p = place();
    expect(new RateBudgetDesk().extend({ workers: [] })).toEqual({ workers: [] });
    fs.mkdirSync(path.dirname(rateBudgetPath(p.dataDir)), { recursive: true });
    fs.writeFileSync(rateBudgetPath(p.dataDir), '{"version":1,"resour');
    const desk = new RateBudgetDesk();
    const w = worker();
    desk.answer(w, { t: 'budget', op: 'reserve', id: 1, key }, p);
    expect(w.got[0]).toMatchObject({ grant: { ok: true } });
    expect(desk.extend({}).rateLimits).toEqual([]);
  });

  it('a grant its worker cannot receive (exited) is given back: the next worker is not held up', () => {
    const p = place();
    const desk = new RateBudgetDesk();
    desk.answer({ send: () => false }, { t: 'budget', op: 'reserve', id: 1, key }, p);
    const w = worker();
    desk.answer(w, { t: 'budget', op: 'reserve', id: 2, key }, p);
    expect(w.got[0]).toMatchObject({ grant: { ok: true } });
  });
});
