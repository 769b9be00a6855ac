/**
 * The Lua scripts of rounds shared through Redis (continuous collection, `interval`): one atomic
 * step decides crawl-wide when a round is over and which one machine queues the next round's
 * seeds, and a round's requests are queued once per round crawl-wide, seen before or not.
 *
 * Keys below the crawl's prefix (see `crawl-keys.ts` for the others):
 * - `round` HASH: `n` the round in progress (0 = the first pass), `at` its start (Redis clock, ms),
 *   `by` the machine that started it, `loader` + `until` the machine granted the making of the
 *   next round's requests and until when (ms), `q` 1 while the round's seeds are being queued
 *   (busy until `until`).
 * - `rs:<n>` SET of the fingerprints queued for round n (dropped when round n + 1 starts).
 */
import { COMMON, GUARD } from './frontier-scripts.js';

/**
 * Where the shared rounds stand, and what this machine is to do. ARGV: prefix, op (`join` at
 * start, `poll`, `start`), machine, the round this machine is in, intervalMs, loadMs (how long a
 * machine may take to make a round's requests before another may). @returns {action, n, at,
 * redisNowMs} where action is:
 * - `in`: this machine is in round n (the answer to `join`);
 * - `join`: round n is not this machine's: join it;
 * - `busy`: round n still has URLs queued or leased crawl-wide (or its seeds are being queued);
 * - `wait`: round n is done; the next is not due yet, or another machine is making its requests;
 * - `load` (poll): the next round is due and this machine makes its requests, then calls `start`;
 * - `start`: round n starts now, started by this machine (its requests go with ROUND_ENQUEUE);
 * - `lost` (start): the grant to start it expired (another machine may start it).
 */
export const ROUND = `${COMMON}${GUARD}
local op, machine, known, interval, loadMs = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local rk = P..'round'
local now = nowMs()
if redis.call('HSETNX', rk, 'n', 0) == 1 then redis.call('HSET', rk, 'at', now) end
local r = redis.call('HMGET', rk, 'n', 'at', 'loader', 'until', 'q', 'by')
local n, at, loader, untilMs = tonumber(r[1]), num(r[2]), r[3], num(r[4])
if op == 'join' then return {'in', n, at, now} end
-- The same start sent again (its answer lost in a reconnect): the same answer.
if op == 'start' and n == known + 1 and r[6] == machine and r[5] == '1' then return {'start', n, at, now} end
if n ~= known then return {'join', n, at, now} end
if op == 'start' then
  if loader ~= machine or untilMs < now then return {'lost', n, at, now} end
  local due = at + interval
  -- On time: interval after the previous start, unless that is more than an interval ago.
  local nextAt = due
  if now - due >= interval then nextAt = now end
  redis.call('HSET', rk, 'n', n + 1, 'at', nextAt, 'by', machine, 'q', 1, 'until', now + loadMs)
  redis.call('HDEL', rk, 'loader')
  redis.call('DEL', P..'rs:'..n)
  return {'start', n + 1, nextAt, now}
end
local busy = num(redis.call('GET', P..'n:queued')) + num(redis.call('GET', P..'n:leased')) > 0
if r[5] == '1' and untilMs > now then busy = true end
if busy then return {'busy', n, at, now} end
if now < at + interval then return {'wait', n, at, now} end
if loader and loader ~= machine and untilMs > now then return {'wait', n, at, now} end
redis.call('HSET', rk, 'loader', machine, 'until', now + loadMs)
return {'load', n, at, now}
`;

/**
 * Queue URLs for round `n`, each once this round crawl-wide (seen before or not), unless it is
 * queued or leased now. ARGV: prefix, hostConcurrency, n, last (1: the round's seeds are all
 * queued), then per URL: url, host, fingerprint, band, level, entry JSON (as ENQUEUE). Nothing is
 * queued when round n is no longer the one in progress. @returns how many were queued, -1 when
 * the round is over.
 */
export const ROUND_ENQUEUE = `${COMMON}${GUARD}
local hc, n, last = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local rk = P..'round'
if tonumber(redis.call('HGET', rk, 'n')) ~= n then return -1 end
local added = 0
local touched = {}
for i = 5, #ARGV, 6 do
  if redis.call('SADD', P..'rs:'..n, ARGV[i + 2]) == 1 and redis.call('HEXISTS', P..'e', ARGV[i]) == 0 then
    queueEntry(i, touched)
    added = added + 1
  end
end
for host in pairs(touched) do schedule(host, hc) end
if added > 0 then redis.call('INCRBY', P..'n:queued', added) end
if last == '1' then redis.call('HDEL', rk, 'q') end
return added
`;
