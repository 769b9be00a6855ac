/**
 * The Lua of the shared seen-set's Bloom-filter option: `seenAdd(fingerprint)` over RedisBloom's
 * `BF.ADD` when the server has the module, else over a filter of our own in plain Redis strings
 * (`SETBIT`), and the scripts that use it (queueing, seen-only marks, the one-time setup). The
 * filter's shape is kept in Redis (`seenset` hash), so every machine of a crawl uses the same one.
 */
import { COMMON, ENQUEUE_BODY } from './frontier-scripts.js';

/**
 * `seenAdd(fp)`: 1 when the 64-bit fingerprint `fp` (16 hex digits) was not in the filter, after
 * adding it; `seenHas(fp)`: 1 when it is in the filter. Positions by double hashing (Kirsch & Mitzenmacher 2006): g_i = h1 + i·h2 mod m, with
 * h1, h2 of 53 bits each from the fingerprint's two halves (exact in Lua's doubles, and `fmod` is
 * exact), so filters past 2^32 bits are spread evenly too. Bit g lives in key `bloom:<g div s>` at
 * offset `g mod s`.
 */
const BLOOM_ADD = `
local bloomCfg = redis.call('HMGET', P..'seenset', 'mode', 'm', 'k', 's')
local bloomMode, bloomM, bloomK, bloomS = bloomCfg[1], tonumber(bloomCfg[2]), tonumber(bloomCfg[3]), tonumber(bloomCfg[4])
if bloomMode ~= 'bloom' and bloomMode ~= 'bf' then return redis.error_reply('collector: the seen-set of this crawl is not a Bloom filter') end
local SHIFT = 2097152
-- With op SETBIT: 1 when a bit was 0 (the fingerprint is new), after setting them all; with
-- GETBIT: 1 when a bit is 0 (not in the filter).
local function bloomBits(fp, op)
  local a = tonumber(string.sub(fp, 1, 8), 16)
  local b = tonumber(string.sub(fp, 9, 16), 16)
  local g = math.fmod(a * SHIFT + math.fmod(b, SHIFT), bloomM)
  local d = math.fmod(b * SHIFT + math.fmod(a, SHIFT), bloomM)
  if d == 0 then d = 1 end
  local fresh = 0
  for i = 1, bloomK do
    local seg = math.floor(g / bloomS)
    if op == 'SETBIT' then
      if redis.call('SETBIT', P..'bloom:'..seg, g - seg * bloomS, 1) == 0 then fresh = 1 end
    elseif redis.call('GETBIT', P..'bloom:'..seg, g - seg * bloomS) == 0 then
      return 1
    end
    g = math.fmod(g + d, bloomM)
  end
  return fresh
end
local function seenAdd(fp)
  local fresh
  if bloomMode == 'bf' then fresh = redis.call('BF.ADD', P..'bf', fp) else fresh = bloomBits(fp, 'SETBIT') end
  if fresh == 1 then redis.call('INCR', P..'n:seen') end
  return fresh
end
local function seenHas(fp)
  if bloomMode == 'bf' then return redis.call('BF.EXISTS', P..'bf', fp) end
  return 1 - bloomBits(fp, 'GETBIT')
end
`;

/** ENQUEUE (see `frontier-scripts.ts`) with the Bloom filter as its seen-set. */
export const ENQUEUE_BLOOM = `${COMMON}${BLOOM_ADD}${ENQUEUE_BODY}`;

/**
 * Mark fingerprints seen without queueing them (redirect targets, URLs done before a resume).
 * ARGV: prefix, fingerprint... @returns per fingerprint 1 when it was new, else 0.
 */
export const MARK_BLOOM = `${COMMON}${BLOOM_ADD}
local out = {}
for i = 2, #ARGV do out[#out + 1] = seenAdd(ARGV[i]) end
return out
`;

/**
 * Whether fingerprints are in the filter, without adding them (measurements of its false
 * positives: tests, `bench/bloom-seen-set.js`). ARGV: prefix, fingerprint... @returns per
 * fingerprint 1 when in the filter, else 0.
 */
export const PROBE_BLOOM = `${COMMON}${BLOOM_ADD}
local out = {}
for i = 2, #ARGV do out[#out + 1] = seenHas(ARGV[i]) end
return out
`;

/**
 * Fix the crawl's seen-set the first time a machine joins: the first machine's choice stays, so
 * every machine uses the same one. ARGV: prefix, mode (`exact`, `bloom`, `bf`), capacity, error
 * rate, bits, hashes, segment bits. @returns the stored {mode, capacity, error rate, bits, hashes,
 * segment bits}, and 1 when this call stored them.
 */
export const SEEN_SET_SETUP = `${COMMON}
local key = P..'seenset'
local created = 0
if redis.call('HSETNX', key, 'mode', ARGV[2]) == 1 then
  redis.call('HSET', key, 'n', ARGV[3], 'p', ARGV[4], 'm', ARGV[5], 'k', ARGV[6], 's', ARGV[7])
  -- RedisBloom's own sizing; it grows past the capacity (each new layer adds its own errors).
  if ARGV[2] == 'bf' then redis.call('BF.RESERVE', P..'bf', ARGV[4], ARGV[3]) end
  -- Our filter's keys at their full size at once: grown bit by bit, Redis would double each
  -- string as it goes (up to twice the memory); at once, it adds at most 1 MB per key.
  if ARGV[2] == 'bloom' then
    local m, s = tonumber(ARGV[5]), tonumber(ARGV[7])
    local seg = 0
    while seg * s < m do
      redis.call('SETBIT', P..'bloom:'..seg, math.min(s, m - seg * s) - 1, 0)
      seg = seg + 1
    end
  end
  created = 1
end
local h = redis.call('HMGET', key, 'mode', 'n', 'p', 'm', 'k', 's')
return {h[1], h[2] or '', h[3] or '', h[4] or '', h[5] or '', h[6] or '', created}
`;

/** The scripts of this module by name, as the link defines them. */
export const SEEN_SET_SCRIPTS = {
  enqueueBloom: ENQUEUE_BLOOM,
  markBloom: MARK_BLOOM,
  probeBloom: PROBE_BLOOM,
  seenSetSetup: SEEN_SET_SETUP,
} as const;
