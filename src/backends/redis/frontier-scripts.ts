/**
 * The Lua scripts of the shared frontier: each runs atomically in Redis, so a claim takes URLs and
 * advances their hosts' politeness clocks in one step, an acknowledgement checks and removes
 * leases and records them as acknowledged in one step, and the leases of a dead machine go back
 * to the queue in one step. Times come from Redis
 * (`TIME`), the one clock every machine shares. Key names: see `crawl-keys.ts`.
 */

/** The error code a script answers with when the crawl's record is gone (see {@link GUARD}). */
export const CRAWL_LOST_CODE = 'CRAWLLOST';

/** Functions every script starts with (also the round scripts'). ARGV[1] is always the crawl's key prefix. */
export const COMMON = `
local P = ARGV[1]
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function num(v) return tonumber(v) or 0 end
-- redis.call(cmd, key, list[from..to]) in runs of at most 1000 arguments (Lua's unpack limit;
-- even, so pairs stay whole). @returns the replies' elements, joined.
local function callMany(cmd, key, list, from, to)
  local res = {}
  for j = from, to, 1000 do
    local r = redis.call(cmd, key, unpack(list, j, math.min(j + 999, to)))
    if type(r) == 'table' then for _, x in ipairs(r) do res[#res + 1] = x end end
  end
  return res
end
-- A host is in 'ready' iff it has URLs queued and a free token (f of hc taken); its score, at, is
-- when it may go (the later of its next-allowed time and its pause).
local function scheduleAt(host, hc, f, at)
  if f < hc and redis.call('ZCARD', P..'q:'..host) > 0 then
    redis.call('ZADD', P..'ready', at, host)
  else
    redis.call('ZREM', P..'ready', host)
  end
end
local function schedule(host, hc)
  local h = redis.call('HMGET', P..'h:'..host, 'n', 'p', 'f')
  scheduleAt(host, hc, num(h[3]), math.max(num(h[1]), num(h[2])))
end
local function gapOf(host, delay)
  local h = redis.call('HMGET', P..'h:'..host, 'c', 'y')
  return math.max(delay, num(h[1])) + num(h[2])
end
-- The gap also runs from the end of a request: the next may not start before now + gap.
local function gapAfter(host, delay, now)
  local g = gapOf(host, delay)
  if g > 0 then
    local hk = P..'h:'..host
    local n = num(redis.call('HGET', hk, 'n'))
    if now + g > n then redis.call('HSET', hk, 'n', now + g) end
  end
end
local function releaseToken(machine, host)
  local hk = P..'h:'..host
  if num(redis.call('HGET', hk, 'f')) > 0 then redis.call('HINCRBY', hk, 'f', -1) end
  if redis.call('HINCRBY', P..'t:'..machine, host, -1) <= 0 then redis.call('HDEL', P..'t:'..machine, host) end
end
-- Queue order: retries (band 0), then priority > 0 (1), plain by depth (2), priority < 0 (3).
local function enqueueAt(host, url, band, level)
  local seq = redis.call('INCR', P..'n:seq') % 1e9
  redis.call('ZADD', P..'q:'..host, band * 1e14 + level * 1e9 + seq, url)
end
-- Queue one URL given as six ARGV from i: url, host, fingerprint, band, level, entry JSON.
-- The caller has checked it is new (its seen-set, or a round's set), counts it in n:queued, and
-- schedules the hosts it notes in touched (once each, after the batch).
local function queueEntry(i, touched)
  local url, host = ARGV[i], ARGV[i + 1]
  redis.call('HSET', P..'e', url, ARGV[i + 5])
  enqueueAt(host, url, tonumber(ARGV[i + 3]), tonumber(ARGV[i + 4]))
  touched[host] = true
end
local function splitLease(v)
  local i = string.find(v, '|', 1, true)
  return string.sub(v, 1, i - 1), string.sub(v, i + 1)
end
-- A leased URL's request is over (see DONE): its token given back, the penalty decayed after an
-- answer, the gap run from now. @returns 1 when its token was given back.
local function finish(machine, url, answered, delay, hc, now)
  local lk = P..'l:'..machine
  local v = redis.call('HGET', lk, url)
  if not v then return 0 end
  local host, state = splitLease(v)
  if state ~= '1' then return 0 end
  redis.call('HSET', lk, url, host..'|0')
  local tk = P..'t:'..machine
  if redis.call('HINCRBY', tk, host, -1) <= 0 then redis.call('HDEL', tk, host) end
  local hk = P..'h:'..host
  local h = redis.call('HMGET', hk, 'f', 'y', 'c', 'n', 'p')
  local f, y, n = math.max(0, num(h[1]) - 1), num(h[2]), num(h[4])
  local set = {'f', f}
  if answered == '1' and y > 0 then
    if y < 50 then y = 0 else y = y * 0.8 end
    set[3], set[4] = 'y', y
  end
  local g = math.max(delay, num(h[3])) + y
  if g > 0 and now + g > n then
    n = now + g
    local m = #set
    set[m + 1] = 'n'
    set[m + 2] = n
  end
  redis.call('HSET', hk, unpack(set))
  scheduleAt(host, hc, f, math.max(n, num(h[5])))
  return 1
end
-- Keep this machine's heartbeat alive for ttl ms (its leases are its own while it lives), made
-- again when it had expired. @returns 1 when it was alive (no lease of this machine could have
-- been taken back), else 0.
local function holdBeat(machine, ttl)
  local hk = P..'hb:'..machine
  if redis.call('PEXPIRE', hk, ttl) == 1 then return 1 end
  -- Until its next beat writes its status: a machine coming back after a silence.
  local status = {machine = machine, state = 'resuming', hostname = '?', pid = 0, out = '?', items = 0, errors = 0, inFlight = 0, at = 0}
  redis.call('SET', hk, cjson.encode(status), 'PX', ttl)
  redis.call('SADD', P..'machines', machine)
  return 0
end
`;

/**
 * The crawl's record (\`crawl\`: its epoch, made once by the first machine, see JOIN) must exist,
 * or the script writes nothing and fails with \`CRAWLLOST …\`: a Redis restarted without
 * persistence, or another Redis at the same address, never gets a write of a crawl it does not
 * hold. Put right after COMMON in every script that writes the crawl's state.
 */
export const GUARD = `
if redis.call('EXISTS', P..'crawl') == 0 then
  return redis.error_reply('${CRAWL_LOST_CODE} the shared crawl state in redis was lost (restarted without persistence?)')
end
`;

/**
 * ENQUEUE after its seen-set: the body calls `seenAdd(fingerprint)` (1 when new), defined before
 * it by the exact set (ENQUEUE) or the Bloom filter (`seen-set-scripts.ts`), in the same script:
 * check-and-add and queueing stay one atomic step.
 */
export const ENQUEUE_BODY = `${GUARD}
local hc = tonumber(ARGV[2])
local added = 0
local touched = {}
for i = 3, #ARGV, 6 do
  if seenAdd(ARGV[i + 2]) == 1 then
    queueEntry(i, touched)
    added = added + 1
  end
end
for host in pairs(touched) do schedule(host, hc) end
if added > 0 then redis.call('INCRBY', P..'n:queued', added) end
return added
`;

/**
 * Queue URLs not seen before (the exact seen-set: a SET of fingerprints). ARGV: prefix,
 * hostConcurrency, then per URL: url, host, fingerprint, band (see COMMON), level, entry JSON.
 * @returns how many were new.
 */
export const ENQUEUE = `${COMMON}
local function seenAdd(fp) return redis.call('SADD', P..'seen', fp) end
${ENQUEUE_BODY}`;

/**
 * Lease up to `max` URLs whose hosts may be served now, taking a concurrency token of each host
 * and advancing its next-allowed time by its gap (max of delay and Crawl-delay, plus the
 * slow-down penalty, plus jitter). The machine's heartbeat is kept alive for `ttlMs` first (the
 * leases taken are its own for that long), and the requests it says are over are finished first,
 * as by DONE (their tokens may be the ones this claim takes: one round trip for both).
 *
 * A host's tokens are shared fairly among the machines that ask (claimed within `windowMs`):
 * one machine holds at most ceil(hostConcurrency / machines asking) of them; and when the host
 * has fewer tokens than machines ask, it takes none while another machine that wanted more than
 * it got (`hungry`) holds none of them and was served by that host less recently (`sv:<host>`:
 * machine → when it last got a token of the host), so a machine that gives a token back and
 * claims at once does not win the host again ahead of one waiting.
 * ARGV: prefix, machine, max, delayMs, jitter, hostConcurrency, ttlMs, windowMs, the number of
 * requests over (d), then d pairs url, answered (0/1) as for DONE, then `max` random numbers in
 * [0,1). @returns {redisNowMs, firstReadyMs or -1, queued, leased, heartbeat was alive (0/1), url1,
 * host1, json1, ...}.
 */
export const CLAIM = `${COMMON}${GUARD}
local machine, max, delay, jitter, hc = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local window = tonumber(ARGV[8])
local now = nowMs()
local out = {now, -1, 0, 0, holdBeat(machine, tonumber(ARGV[7]))}
local rnd = 10 + 2 * tonumber(ARGV[9])
for i = 10, rnd - 1, 2 do finish(machine, ARGV[i], ARGV[i + 1], delay, hc, now) end
redis.call('ZADD', P..'asking', now, machine)
redis.call('ZREMRANGEBYSCORE', P..'asking', '-inf', now - window)
local askers = math.max(1, redis.call('ZCARD', P..'asking'))
local cap = math.max(1, math.ceil(hc / askers))
-- Turns are taken only when a host has fewer tokens than machines ask (else the cap is enough).
local hungry = {}
if hc < askers then hungry = redis.call('ZRANGEBYSCORE', P..'hungry', now - window, '+inf') end
-- Whether this machine may take one more token of host (it holds mine of them): not past its
-- share, and (fewer tokens than machines) no machine that wants work and holds none of the
-- host's tokens waits longer for it.
-- (took: tokens of host this claim took so far: then this machine was served by it now.)
local function fairTurn(host, mine, took)
  if mine >= cap then return false end
  if #hungry == 0 then return true end
  local served = now
  if took == 0 then
    served = redis.call('HGET', P..'sv:'..host, machine)
    if not served then return true end
    served = tonumber(served)
  end
  for _, other in ipairs(hungry) do
    if other ~= machine and num(redis.call('HGET', P..'sv:'..host, other)) < served
      and num(redis.call('HGET', P..'t:'..other, host)) == 0 then
      return false
    end
  end
  return true
end
local got = 0
local yielded = false
-- The URLs leased (url, host..'|1' pairs, for one HSET) and their positions in out.
local leases, urls = {}, {}
local tk = P..'t:'..machine
local hosts = redis.call('ZRANGEBYSCORE', P..'ready', '-inf', now, 'LIMIT', 0, max * 2 + 16)
for _, host in ipairs(hosts) do
  if got >= max then break end
  local hk = P..'h:'..host
  local h = redis.call('HMGET', hk, 'n', 'p', 'f', 'c', 'y')
  local p = num(h[2])
  local f, nx = num(h[3]), math.max(num(h[1]), p)
  local gap = math.max(delay, num(h[4])) + num(h[5])
  local mine = num(redis.call('HGET', tk, host))
  local took = 0
  -- With no gap a host may give several URLs at once, up to its tokens (and this machine's
  -- share, when no machine waits for a turn: then each token is a turn of its own).
  while got < max and f < hc and nx <= now do
    if not fairTurn(host, mine, took) then
      yielded = true
      break
    end
    local k = 1
    if gap <= 0 and #hungry == 0 then k = math.min(max - got, hc - f, cap - mine) end
    local popped = redis.call('ZPOPMIN', P..'q:'..host, k)
    if popped[1] == nil then break end
    for j = 1, #popped, 2 do
      leases[#leases + 1] = popped[j]
      leases[#leases + 1] = host..'|1'
      out[#out + 1] = popped[j]
      out[#out + 1] = host
      out[#out + 1] = '{}'
      urls[#urls + 1] = popped[j]
    end
    local n = #popped / 2
    mine, f, took, got = mine + n, f + n, took + n, got + n
    nx = now + gap
    if gap > 0 then nx = nx + math.floor(tonumber(ARGV[rnd + got - 1]) * jitter * gap) end
    if n < k then break end
  end
  if took > 0 then
    redis.call('HINCRBY', tk, host, took)
    redis.call('HSET', P..'sv:'..host, machine, now)
    redis.call('HSET', hk, 'n', nx, 'f', f)
  end
  scheduleAt(host, hc, f, math.max(nx, p))
end
if got < max then redis.call('ZADD', P..'hungry', now, machine) else redis.call('ZREM', P..'hungry', machine) end
if got > 0 then
  callMany('HSET', P..'l:'..machine, leases, 1, #leases)
  local entries = callMany('HMGET', P..'e', urls, 1, #urls)
  for j = 1, got do out[5 + 3 * j] = entries[j] or '{}' end
  redis.call('INCRBY', P..'n:queued', -got)
  redis.call('INCRBY', P..'n:leased', got)
end
-- A host left to another machine's turn is not "ready" for this one: it asks again later.
local first = yielded and redis.call('ZRANGEBYSCORE', P..'ready', '('..now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  or redis.call('ZRANGE', P..'ready', 0, 0, 'WITHSCORES')
if first[2] then out[2] = tonumber(first[2]) end
out[3] = num(redis.call('GET', P..'n:queued'))
out[4] = num(redis.call('GET', P..'n:leased'))
return out
`;

/**
 * Leased URLs' requests are over: each one's host token is given back, the gap after a completion
 * starts, and an answer other than 429/503 decays the host's penalty. The lease stays until the
 * item is acknowledged. Idempotent (a second call finds the token given back). CLAIM does the
 * same for the URLs it is given, before it leases. ARGV: prefix, machine, delayMs,
 * hostConcurrency, then pairs url, answered (0/1). @returns how many tokens were given back.
 */
export const DONE = `${COMMON}${GUARD}
local machine, delay, hc = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local now = nowMs()
local n = 0
for i = 5, #ARGV, 2 do n = n + finish(machine, ARGV[i], ARGV[i + 1], delay, hc, now) end
return n
`;

/**
 * Put a leased URL back in its host's queue, served before the host's other URLs, no earlier than
 * `waitMs` from now (the whole host waits); its token is given back if still held. Also gives
 * back a lease never started (a stop). Idempotent. ARGV: prefix, machine, url, waitMs, entry JSON
 * ('' keeps the stored one), delayMs, hostConcurrency. @returns 1 when the lease was given back.
 */
export const RETRY = `${COMMON}${GUARD}
local machine, url, wait, json, delay, hc = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local lk = P..'l:'..machine
local v = redis.call('HGET', lk, url)
if not v then return 0 end
local host, state = splitLease(v)
if state == '1' then releaseToken(machine, host) end
redis.call('HDEL', lk, url)
if json ~= '' then redis.call('HSET', P..'e', url, json) end
enqueueAt(host, url, 0, 0)
local now = nowMs()
gapAfter(host, delay, now)
if wait > 0 then
  local hk = P..'h:'..host
  if now + wait > num(redis.call('HGET', hk, 'p')) then redis.call('HSET', hk, 'p', now + wait) end
end
schedule(host, hc)
redis.call('INCRBY', P..'n:leased', -1)
redis.call('INCRBY', P..'n:queued', 1)
return 1
`;

/**
 * Acknowledge URLs whose item lines are about to be written (they are in the machine's pending
 * items file): atomically, only those this machine still holds. A URL is held when its lease is
 * this machine's; or when this acknowledgement was made before (sent again after a reconnect:
 * `w:<machine>` names it with this batch); or when it was taken back into the queue and no
 * machine leased it since (it is taken out, as by CONFIRM). A URL held is done: its lease, token
 * and entry go, and `w:<machine>` records url → batch (acknowledged, item line not yet written)
 * until the machine clears it; a URL not held is another machine's (leased or acknowledged
 * there): its line must be dropped. First, the records of earlier batches whose lines are written
 * are cleared (each only if it still names that batch: a later acknowledgement of the same URL
 * stays). ARGV: prefix, machine, hostConcurrency, batch, the number of records to clear (c), c
 * pairs url, batch, then pairs url, host. @returns {held1 (0/1), held2, ...}.
 */
export const ACK = `${COMMON}${GUARD}
local machine, hc, batch = ARGV[2], tonumber(ARGV[3]), ARGV[4]
local wk = P..'w:'..machine
local first = 6 + 2 * tonumber(ARGV[5])
if first > 6 then
  local names = {}
  for i = 6, first - 1, 2 do names[#names + 1] = ARGV[i] end
  local now = callMany('HMGET', wk, names, 1, #names)
  local gone = {}
  for j = 1, #names do
    if now[j] == ARGV[5 + 2 * j] then gone[#gone + 1] = names[j] end
  end
  if #gone > 0 then callMany('HDEL', wk, gone, 1, #gone) end
end
local lk = P..'l:'..machine
local urls = {}
for i = first, #ARGV, 2 do urls[#urls + 1] = ARGV[i] end
local out = {}
if #urls == 0 then return out end
local leases = callMany('HMGET', lk, urls, 1, #urls)
local done, records = {}, {}
local fromLeases, fromQueue = 0, 0
for j = 1, #urls do
  local url, host = urls[j], ARGV[first + 2 * j - 1]
  local v = leases[j]
  local held = 0
  if v then
    local h, state = splitLease(v)
    if state == '1' then
      releaseToken(machine, h)
      schedule(h, hc)
    end
    fromLeases = fromLeases + 1
    held = 1
  elseif redis.call('HGET', wk, url) == batch then
    held = 2
  elseif redis.call('ZREM', P..'q:'..host, url) == 1 then
    schedule(host, hc)
    fromQueue = fromQueue + 1
    held = 1
  end
  if held == 1 then
    done[#done + 1] = url
    records[#records + 1] = url
    records[#records + 1] = batch
  end
  out[j] = held > 0 and 1 or 0
end
if fromLeases > 0 then
  callMany('HDEL', lk, done, 1, #done)
  redis.call('INCRBY', P..'n:leased', -fromLeases)
end
if #done > 0 then
  callMany('HDEL', P..'e', done, 1, #done)
  callMany('HSET', wk, records, 1, #records)
  if fromQueue > 0 then redis.call('INCRBY', P..'n:queued', -fromQueue) end
  redis.call('INCRBY', P..'n:done', #done)
end
return out
`;

/**
 * At a machine's resume: whether the acknowledgements of its pending item lines were made. ARGV:
 * prefix, then triples machine (the tag the lines were recorded under), url, batch.
 * @returns {made1 (0/1), made2, ...}: 1 when `w:<machine>` names the URL with that batch.
 */
export const ACKED = `${COMMON}${GUARD}
local out = {}
for i = 2, #ARGV, 3 do
  out[#out + 1] = redis.call('HGET', P..'w:'..ARGV[i], ARGV[i + 1]) == ARGV[i + 2] and 1 or 0
end
return out
`;

/**
 * Give the leases of every machine whose heartbeat expired back to the queue (served first, their
 * attempt unchanged), with the host tokens they held, and forget those machines. A URL that
 * machine acknowledged (`w:<machine>`: its item line may not be written yet) is no lease any more:
 * it is done, not queued again, and its record stays for that machine's resume (see ACK, ACKED).
 * ARGV: prefix, hostConcurrency. @returns {machine1, urls1, machine2, urls2, ...}.
 */
export const RECLAIM = `${COMMON}${GUARD}
local hc = tonumber(ARGV[2])
local out = {}
for _, m in ipairs(redis.call('SMEMBERS', P..'machines')) do
  if redis.call('EXISTS', P..'hb:'..m) == 0 then
    local touched = {}
    local leases = redis.call('HGETALL', P..'l:'..m)
    local n = 0
    for i = 1, #leases, 2 do
      local host = splitLease(leases[i + 1])
      enqueueAt(host, leases[i], 0, 0)
      touched[host] = true
      n = n + 1
    end
    local tokens = redis.call('HGETALL', P..'t:'..m)
    for i = 1, #tokens, 2 do
      local hk = P..'h:'..tokens[i]
      local f = math.max(0, num(redis.call('HGET', hk, 'f')) - num(tokens[i + 1]))
      redis.call('HSET', hk, 'f', f)
      touched[tokens[i]] = true
    end
    redis.call('DEL', P..'l:'..m, P..'t:'..m)
    redis.call('SREM', P..'machines', m)
    if n > 0 then
      redis.call('INCRBY', P..'n:leased', -n)
      redis.call('INCRBY', P..'n:queued', n)
    end
    for host in pairs(touched) do schedule(host, hc) end
    out[#out + 1] = m
    out[#out + 1] = n
  end
end
return out
`;

/** Serve nothing to a host before now + ms. ARGV: prefix, host, ms, hostConcurrency. */
export const PAUSE_HOST = `${COMMON}${GUARD}
local host, ms, hc = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local hk = P..'h:'..host
local t = nowMs() + ms
if t > num(redis.call('HGET', hk, 'p')) then redis.call('HSET', hk, 'p', t) end
schedule(host, hc)
return 1
`;

/**
 * Widen a host's gap after a 429/503: the penalty doubles from max(delay, Crawl-delay, 250 ms), up
 * to maxPenaltyMs. ARGV: prefix, host, delayMs, maxPenaltyMs.
 */
export const SLOW_DOWN = `${COMMON}${GUARD}
local host, delay, maxp = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local hk = P..'h:'..host
local h = redis.call('HMGET', hk, 'c', 'y')
local base = math.max(delay, num(h[1]), 250)
redis.call('HSET', hk, 'y', math.min(maxp, math.max(base, num(h[2]) * 2)))
return 1
`;

/**
 * Refresh this machine's heartbeat (it expires after the lease timeout: then its leases may be
 * reclaimed) and read the crawl's stop time and counters, and whether the crawl's record is still
 * the one this machine joined. ARGV: prefix, machine, status JSON, ttlMs, crawl epoch.
 * @returns {had a live heartbeat (0/1), stop ms or -1, queued, leased, done, redisNowMs, same
 * crawl (0/1)}; nothing is written when the epoch differs.
 */
export const HEARTBEAT = `${COMMON}${GUARD}
local machine, status, ttl = ARGV[2], ARGV[3], tonumber(ARGV[4])
if redis.call('HGET', P..'crawl', 'epoch') ~= ARGV[5] then return {0, -1, 0, 0, 0, nowMs(), 0} end
-- PEXPIRE first: it needs no memory, so a Redis out of memory still keeps the machine alive.
local live = redis.call('PEXPIRE', P..'hb:'..machine, ttl)
redis.call('SET', P..'hb:'..machine, status, 'PX', ttl)
redis.call('SADD', P..'machines', machine)
local stop = redis.call('GET', P..'stop')
return {live, tonumber(stop) or -1, num(redis.call('GET', P..'n:queued')), num(redis.call('GET', P..'n:leased')), num(redis.call('GET', P..'n:done')), nowMs(), 1}
`;

/**
 * Join the crawl: its record (\`crawl\` HASH: \`epoch\`, a random id, and \`created\` ms) is made by
 * the first machine, once; every machine keeps the epoch it found and checks it on every
 * heartbeat and reconnect. ARGV: prefix, a new random epoch. @returns {the crawl's epoch, 1 when
 * this call made it}.
 */
export const JOIN = `${COMMON}
local e = redis.call('HGET', P..'crawl', 'epoch')
if e then return {e, 0} end
redis.call('HSET', P..'crawl', 'epoch', ARGV[2], 'created', nowMs())
return {ARGV[2], 1}
`;

/**
 * Before an item is written for URLs whose leases may have expired (the machine was paused, or
 * its heartbeat was late): keep the heartbeat alive, then say for each URL whether this machine
 * still holds its lease. One taken back into the queue and not yet leased by another machine is
 * leased to this machine again (its response is in); one leased elsewhere or acknowledged is
 * not held, and its item must be dropped. ARGV: prefix, machine, ttlMs, hostConcurrency, then
 * pairs url, host. @returns {heartbeat was alive (0/1), held1 (0/1), held2, ...}.
 */
export const CONFIRM = `${COMMON}${GUARD}
local machine, hc = ARGV[2], tonumber(ARGV[4])
local out = {holdBeat(machine, tonumber(ARGV[3]))}
local lk = P..'l:'..machine
for i = 5, #ARGV, 2 do
  local url, host = ARGV[i], ARGV[i + 1]
  local held = 0
  if redis.call('HEXISTS', lk, url) == 1 then
    held = 1
  elseif redis.call('ZREM', P..'q:'..host, url) == 1 then
    redis.call('HSET', lk, url, host..'|0')
    redis.call('INCRBY', P..'n:queued', -1)
    redis.call('INCRBY', P..'n:leased', 1)
    schedule(host, hc)
    held = 1
  end
  out[#out + 1] = held
end
return out
`;

/** Ask every machine of the crawl to stop. ARGV: prefix. @returns the stop time, ms. */
export const STOP = `${COMMON}
local now = nowMs()
redis.call('SET', P..'stop', now)
return now
`;
