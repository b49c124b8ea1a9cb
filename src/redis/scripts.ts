/**
 * The store's Lua scripts: each reads and writes the keys of one run (one slot), atomically.
 * KEYS are always `state, lease, token` of `runKeys`, in that order, unless said otherwise.
 */

/**
 * The run's next fencing token, as text: one more than its latest, or Redis's clock in
 * microseconds (`TIME`) when that is more, so tokens keep growing after Redis lost the token
 * key (a restart without persistence, FLUSHALL, an eviction). Written to KEYS[3].
 */
const NEXT_TOKEN = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local token = string.format('%.0f', math.max(tonumber(redis.call('GET', KEYS[3]) or '0') + 1, now))
redis.call('SET', KEYS[3], token)`;

/** ARGV: ttlMs. A new token when no lease is live (`SET NX PX`), else false. */
export const ACQUIRE = `
if not redis.call('SET', KEYS[2], '0', 'NX', 'PX', ARGV[1]) then return false end
${NEXT_TOKEN}
redis.call('SET', KEYS[2], token, 'PX', ARGV[1])
return tonumber(token)`;

/**
 * ARGV: token, ttlMs. 1 when the token is still the run's latest (the lease is live again for
 * ttlMs), 0 when another is, -1 when the run has no token (Redis lost it).
 */
export const RENEW = `
local latest = redis.call('GET', KEYS[3])
if not latest then return -1 end
if latest ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return 1`;

/** ARGV: token. Drops the lease when it is still the run's latest. */
export const RELEASE = `
if redis.call('GET', KEYS[3]) == ARGV[1] and redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('DEL', KEYS[2])
end
return 1`;

/**
 * ARGV: token, state JSON, ttlMs for a finished state or '' for one that must not expire.
 * 1 when written (the token is the run's latest), 0 when another token is, -1 when the run has
 * no token (Redis lost it).
 */
export const PUT = `
local latest = redis.call('GET', KEYS[3])
if not latest then return -1 end
if latest ~= ARGV[1] then return 0 end
if ARGV[3] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1`;

/**
 * ARGV: the token of the delete's own lease. 0 when that lease is no longer the run's latest;
 * else raises the token, removes the state and the lease, and answers 1.
 */
export const DELETE = `
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return 0 end
${NEXT_TOKEN}
redis.call('DEL', KEYS[1], KEYS[2])
return 1`;

/** KEYS: the claim key. 1 for the first claim, 0 after. */
export const CLAIM = `
if redis.call('SET', KEYS[1], '1', 'NX') then return 1 end
return 0`;

/**
 * KEYS: the pending index. ARGV: run id, '1' to list it (score: now by Redis's clock, in ms) or
 * '' to take it off.
 */
export const INDEX = `
if ARGV[2] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) return 1 end
local t = redis.call('TIME')
redis.call('ZADD', KEYS[1], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), ARGV[1])
return 1`;

/** KEYS: the pending index. ARGV: min score, offset, count. Entries as a flat list id, score, …. */
export const PAGE = `
return redis.call('ZRANGE', KEYS[1], ARGV[1], '+inf', 'BYSCORE', 'LIMIT', ARGV[2], ARGV[3], 'WITHSCORES')`;
