/**
 * `groupProgress` in one script: the stream's head id, the group's consumers, and whether the
 * group has delivered and acked everything up to a given id (its last-delivered id is at or past
 * it and its oldest pending entry, if any, comes after it). `status --wait-drained` marks the
 * head once and polls this until the group is settled through the mark.
 */
import type { Redis } from 'ioredis';
import type { GroupProgress } from '@protean-ts/core';
import { LUA_STREAM_IDS } from './redis-lua-stream-ids.js';

// KEYS: stream. ARGV: group, the id to be settled through ('' = the current head).
// Returns {0} when the stream is missing, {2, head} when the group is, else {1, head, consumers, settled (0|1)}.
const GROUP_PROGRESS = `${LUA_STREAM_IDS}
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
local head = pairsOf(redis.call('XINFO', 'STREAM', KEYS[1]))['last-generated-id']
if info == nil then return {2, head} end
local mark = parseId(ARGV[2] ~= '' and ARGV[2] or head)
local delivered = not idLess(parseId(info['last-delivered-id']), mark)
local summary = redis.call('XPENDING', KEYS[1], ARGV[1])
local clear = summary[1] == 0 or idLess(mark, parseId(summary[2]))
return {1, head, info['consumers'], (delivered and clear) and 1 or 0}
`;

export const GROUP_PROGRESS_SCRIPT = { numberOfKeys: 1, lua: GROUP_PROGRESS };

interface GroupProgressClient {
  proteanGroupProgress(streamKey: string, group: string, through: string): Promise<(string | number)[]>;
}

export async function readGroupProgress(client: Redis, streamKey: string, group: string, through: string | undefined): Promise<GroupProgress> {
  const reply = await (client as unknown as GroupProgressClient).proteanGroupProgress(streamKey, group, through ?? '');
  const [found, head, consumers, settled] = reply;
  if (Number(found) === 0) return { exists: false, head: null, consumers: null, settled: true };
  // A stream without the group: a server that creates the group reads it from the oldest entry.
  if (Number(found) === 2) return { exists: false, head: String(head), consumers: 0, settled: String(head) === '0-0' };
  return { exists: true, head: String(head), consumers: Number(consumers), settled: Number(settled) === 1 };
}
