/**
 * Consumer liveness on Redis: one sorted set per broker (`<stream_prefix>protean:alive`) maps each
 * consumer name to when its last `reportAlive` expires, in Redis server time, so clocks of the
 * worker hosts never matter. An expired score means "reported, then stopped" (dead); a name
 * missing from the set never reported, and is left to the normal reclaim after claim_idle_ms.
 */
import type { Redis } from 'ioredis';
import type { RawEntry } from './redis-entry-codec.js';

/** Expired reports are dropped after a day: their consumers' messages were taken long before. */
const FORGET_AFTER_MS = 24 * 60 * 60 * 1000;

const LUA_NOW_MS = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

// KEYS: the liveness set. ARGV: consumer, ttl ms.
const REPORT_ALIVE = `${LUA_NOW_MS}
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ${FORGET_AFTER_MS})
return 1
`;

// KEYS: stream, liveness set. ARGV: group, claiming consumer, count, min idle ms.
// Claims (XCLAIM, so the delivery count goes up) the pending entries of the group's consumers
// whose liveness expired and that have been idle for min idle ms. In one script, so two workers
// reclaiming at once cannot both take a message. Returns {{id, fields, deliveryCount}, ...}.
const RECLAIM_FROM_DEAD = `${LUA_NOW_MS}
local consumers = redis.pcall('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])
if consumers.err then
  if string.find(consumers.err, 'NOGROUP', 1, true) or string.find(consumers.err, 'no such key', 1, true) then return {} end
  return consumers
end
local wanted = tonumber(ARGV[3])
local minIdle = tonumber(ARGV[4])
local claimed = {}
for _, reply in ipairs(consumers) do
  if wanted <= 0 then break end
  local info = {}
  for i = 1, #reply, 2 do info[reply[i]] = reply[i + 1] end
  if info['name'] ~= ARGV[2] and info['pending'] > 0 and info['idle'] >= minIdle then
    local expires = redis.call('ZSCORE', KEYS[2], info['name'])
    if expires and tonumber(expires) <= now then
      local pending = redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', wanted, info['name'])
      local ids = {}
      local counts = {}
      for _, entry in ipairs(pending) do
        ids[#ids + 1] = entry[1]
        counts[entry[1]] = entry[4]
      end
      if #ids > 0 then
        -- Entries trimmed away while pending are dropped from the group and not returned.
        for _, entry in ipairs(redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, unpack(ids))) do
          if type(entry) == 'table' and type(entry[2]) == 'table' then
            claimed[#claimed + 1] = {entry[1], entry[2], counts[entry[1]] + 1}
            wanted = wanted - 1
          end
        end
      end
    end
  end
end
return claimed
`;

export const LIVENESS_SCRIPTS = {
  proteanReportAlive: { numberOfKeys: 1, lua: REPORT_ALIVE },
  proteanReclaimFromDead: { numberOfKeys: 2, lua: RECLAIM_FROM_DEAD },
};

interface LivenessClient {
  proteanReportAlive(livenessKey: string, consumer: string, ttlMs: string): Promise<number>;
  proteanReclaimFromDead(
    streamKey: string,
    livenessKey: string,
    group: string,
    consumer: string,
    count: string,
    minIdleMs: string,
  ): Promise<[string, string[], number][]>;
}

export async function reportAlive(client: Redis, livenessKey: string, consumer: string, ttlMs: number): Promise<void> {
  await (client as unknown as LivenessClient).proteanReportAlive(livenessKey, consumer, String(ttlMs));
}

/** The claimed entries and their delivery counts (after this claim), oldest first per dead consumer. */
export async function claimFromDeadConsumers(
  client: Redis,
  streamKey: string,
  livenessKey: string,
  group: string,
  consumer: string,
  count: number,
  minIdleMs: number,
): Promise<{ entries: RawEntry[]; deliveryCounts: number[] }> {
  const reply = await (client as unknown as LivenessClient).proteanReclaimFromDead(streamKey, livenessKey, group, consumer, String(count), String(minIdleMs));
  return { entries: reply.map(([id, fields]) => [id, fields]), deliveryCounts: reply.map(([, , deliveryCount]) => Number(deliveryCount)) };
}
