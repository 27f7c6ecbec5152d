/**
 * `groupStatus` in one script. Redis 7.0 can report a stale `lag` in XINFO GROUPS after it
 * restarts from an append-only file rewritten while the group was reading (the rewrite records
 * the group's read counter, later reads are replayed without moving it), so the lag is checked
 * against the stream itself before it is believed.
 */
import type { Redis } from 'ioredis';
import type { GroupStatus } from '@protean-ts/core';
import { LUA_STREAM_IDS } from './redis-lua-stream-ids.js';

/** Up to this many undelivered entries are counted exactly; beyond it XINFO's lag is used. */
export const LAG_COUNT_LIMIT = 1_000;

// KEYS: stream, its trim-loss hash. ARGV: group, count limit.
// Returns {0} when the stream or group is missing, else {1, pending, lag (-1 = unknown), lost}.
const GROUP_STATUS = `${LUA_STREAM_IDS}
local groups = redis.pcall('XINFO', 'GROUPS', KEYS[1])
if groups.err then
  if string.find(groups.err, 'no such key', 1, true) then return {0} end
  return groups
end
local info = nil
for _, reply in ipairs(groups) do
  local group = pairsOf(reply)
  if group['name'] == ARGV[1] then info = group end
end
if info == nil then return {0} end
local lost = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local last = pairsOf(redis.call('XINFO', 'STREAM', KEYS[1]))['last-generated-id']
-- Nothing can be undelivered once the group has delivered the stream's last id, whatever XINFO says.
if info['last-delivered-id'] == last then return {1, info['pending'], 0, lost} end
-- A small backlog is counted (exact, and immune to a stale lag); a large one is XINFO's lag.
local limit = tonumber(ARGV[2])
local after = redis.call('XRANGE', KEYS[1], '(' .. info['last-delivered-id'], '+', 'COUNT', limit)
if #after < limit then return {1, info['pending'], #after, lost} end
if info['lag'] then return {1, info['pending'], info['lag'], lost} end
return {1, info['pending'], -1, lost}
`;

export const GROUP_STATUS_SCRIPT = { numberOfKeys: 2, lua: GROUP_STATUS };

interface GroupStatusClient {
  proteanGroupStatus(streamKey: string, lostKey: string, group: string, limit: string): Promise<number[]>;
}

export async function readGroupStatus(client: Redis, streamKey: string, lostKey: string, group: string): Promise<GroupStatus> {
  const reply = await (client as unknown as GroupStatusClient).proteanGroupStatus(streamKey, lostKey, group, String(LAG_COUNT_LIMIT));
  if (reply[0] !== 1) return { pending: 0, lag: 0, exists: false };
  const [, pending, lag, lost] = reply.map(Number) as [number, number, number, number];
  return { pending, lag: lag < 0 ? null : lag, exists: true, ...(lost > 0 ? { lostToTrimming: lost } : {}) };
}
