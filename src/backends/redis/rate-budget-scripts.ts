/**
 * The Lua of rate budgets shared by every machine of a crawl (`redis-rate-budgets.ts`): the same
 * rules as `http/rate-budget.ts` and `http/serial-budget.ts` (GitHub's documented limits), kept in
 * Redis and decided atomically, so machines together never spend more than one budget and a wait
 * learnt by one holds them all. Times are Redis's (`TIME`), the clock the machines share.
 *
 * Keys below the crawl's prefix, per credential identity (`anonymous`, `token-<16 hex>`):
 * - `rb:r:<id>:<resource>` HASH `l` limit, `m` requests left (estimate), `r` window reset ms, `k`
 *   1 once a response told the limits, `g` last grant ms;
 * - `rb:f:<id>:<resource>` ZSET grant token → grant ms: requests granted and not yet answered;
 * - `rb:b:<id>:<group>` HASH `u` blocked-until ms, `s` rate-limit refusals in a row (secondary);
 * - `rb:t:<id>` the grant token of the one API request in flight for that credential (expires).
 */
import { COMMON } from './frontier-scripts.js';

const BUDGET_COMMON = `${COMMON}
local id, resource = ARGV[2], ARGV[3]
local rk, fk = P..'rb:r:'..id..':'..resource, P..'rb:f:'..id..':'..resource
local function wait(untilMs, reason, now) return {0, untilMs, reason, now} end
`;

/**
 * Ask to send one request. ARGV: prefix, identity, resource, group, spacingMs, token, serial (1:
 * one request in flight per credential), resetMarginMs, probeWaitMs, reservationTtlMs, turnTtlMs,
 * turnPollMs. @returns {1, 0, '', now} for a grant, else {0, untilMs, reason, now}; reason `turn`:
 * another machine's request of this credential is in flight (ask again soon).
 */
export const BUDGET_RESERVE = `${BUDGET_COMMON}
local group, gap, token, serial = ARGV[4], tonumber(ARGV[5]), ARGV[6], ARGV[7] == '1'
local margin, probe, ttl, turnTtl, poll = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12])
local now = nowMs()
local blocked = tonumber(redis.call('HGET', P..'rb:b:'..id..':'..group, 'u'))
if blocked and now < blocked then return wait(blocked, 'secondary', now) end
local tk = P..'rb:t:'..id
if serial then
  local holder = redis.call('GET', tk)
  if holder and holder ~= token then return wait(now + poll, 'turn', now) end
end
redis.call('ZREMRANGEBYSCORE', fk, '-inf', now - ttl)
local inflight = redis.call('ZCARD', fk)
local s = redis.call('HMGET', rk, 'l', 'm', 'r', 'k', 'g')
local limit, left, reset, known, last = tonumber(s[1]), tonumber(s[2]), tonumber(s[3]), s[4] == '1', tonumber(s[5])
if reset and now >= reset + margin then
  -- The window is over: a fresh one with the full limit, less the requests still in flight.
  reset = nil
  redis.call('HDEL', rk, 'r')
  if limit then left = limit - inflight; redis.call('HSET', rk, 'm', left) else left = nil; redis.call('HDEL', rk, 'm') end
end
if left and left <= 0 then
  if reset then return wait(reset + margin, 'primary', now) end
  return wait(now + probe, 'probe', now)
end
if not known and inflight > 0 then return wait(now + probe, 'probe', now) end
if gap > 0 and last and now < last + gap then return wait(last + gap, 'spacing', now) end
redis.call('HSET', rk, 'g', now)
redis.call('ZADD', fk, now, token)
if left then redis.call('HSET', rk, 'm', left - 1) end
if serial then redis.call('SET', tk, token, 'PX', turnTtl) end
return {1, 0, '', now}
`;

/**
 * Record the response to a granted request. ARGV: prefix, identity, resource, group, token,
 * serial, status (-1: none came), X-RateLimit-Limit, -Remaining, -Reset (-1: absent),
 * X-RateLimit-Resource ('' absent), Retry-After ms (-1 absent), hinted (1: the body speaks of a
 * rate limit), resetMarginMs, secondaryBackoffMs, secondaryBackoffMaxMs. @returns {0} or the wait
 * it imposes {1, untilMs, reason, now}.
 */
export const BUDGET_OBSERVE = `${BUDGET_COMMON}
local group, token, serial, status = ARGV[4], ARGV[5], ARGV[6] == '1', tonumber(ARGV[7])
local limit, remaining, reset, named = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10]), ARGV[11]
local retryAfter, hinted = tonumber(ARGV[12]), ARGV[13] == '1'
local margin, backoff, backoffMax = tonumber(ARGV[14]), tonumber(ARGV[15]), tonumber(ARGV[16])
local now = nowMs()
redis.call('ZREM', fk, token)
if serial and redis.call('GET', P..'rb:t:'..id) == token then redis.call('DEL', P..'rb:t:'..id) end
if status >= 0 then redis.call('HSET', rk, 'k', 1) end
-- A 304 (a conditional request not modified) does not count against the limit: given back.
if status == 304 then
  local h = redis.call('HMGET', rk, 'm', 'l')
  local m, l = tonumber(h[1]), tonumber(h[2])
  if m ~= nil and (l == nil or m < l) then redis.call('HSET', rk, 'm', m + 1) end
end
-- Take in the server's figures for one resource's window (requests in flight: not counted yet).
local function learn(key, flights, resetAt)
  redis.call('HSET', key, 'k', 1)
  if limit >= 0 then redis.call('HSET', key, 'l', limit) end
  local estimate = remaining - redis.call('ZCARD', flights)
  local h = redis.call('HMGET', key, 'r', 'm')
  local r, m = tonumber(h[1]), tonumber(h[2])
  if r == nil or resetAt > r then
    redis.call('HSET', key, 'm', estimate, 'r', resetAt)
  elseif resetAt == r then
    redis.call('HSET', key, 'm', math.min(m or estimate, estimate))
  end
end
local namedKey = rk
if remaining >= 0 and reset >= 0 then
  local resetAt = reset * 1000
  if reset <= 1e9 then resetAt = now + reset * 1000 end
  learn(rk, fk, resetAt)
  if named ~= '' and named ~= resource then
    namedKey = P..'rb:r:'..id..':'..named
    learn(namedKey, P..'rb:f:'..id..':'..named, resetAt)
  end
end
if status < 0 then return {0} end
local bk = P..'rb:b:'..id..':'..group
if (status >= 200 and status < 300) or status == 304 then
  if redis.call('EXISTS', bk) == 1 then redis.call('HSET', bk, 's', 0) end
  return {0}
end
if status ~= 403 and status ~= 429 then return {0} end
if status == 403 and retryAfter < 0 and remaining > 0 and not hinted then return {0} end
if retryAfter < 0 and remaining == 0 and reset >= 0 then
  local r = tonumber(redis.call('HGET', namedKey, 'r'))
  if r then return wait(r + margin, 'primary', now) end
  return {0}
end
local prev = redis.call('HMGET', bk, 'u', 's')
local streak = (tonumber(prev[2]) or 0) + 1
local ms = retryAfter
if ms < 0 then ms = math.min(backoffMax, backoff * 2 ^ math.min(streak - 1, 30)) end
local untilMs = math.max(now + ms, tonumber(prev[1]) or 0)
redis.call('HSET', bk, 'u', untilMs, 's', streak)
return wait(untilMs, 'secondary', now)
`;

/**
 * A granted request was not sent: its grant is given back. ARGV: prefix, identity, resource,
 * token, serial. @returns 1 when the grant was held.
 */
export const BUDGET_RELEASE = `${BUDGET_COMMON}
local token, serial = ARGV[4], ARGV[5] == '1'
if serial and redis.call('GET', P..'rb:t:'..id) == token then redis.call('DEL', P..'rb:t:'..id) end
if redis.call('ZREM', fk, token) == 0 then return 0 end
local h = redis.call('HMGET', rk, 'l', 'm')
local limit, left = tonumber(h[1]), tonumber(h[2])
if left and limit and left < limit then redis.call('HSET', rk, 'm', left + 1) end
return 1
`;

/** The scripts of this module by name, as the link defines them. */
export const RATE_BUDGET_SCRIPTS = {
  budgetReserve: BUDGET_RESERVE,
  budgetObserve: BUDGET_OBSERVE,
  budgetRelease: BUDGET_RELEASE,
} as const;
