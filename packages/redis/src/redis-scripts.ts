/**
 * Lua scripts for the steps Redis has no single command for; each runs atomically on the
 * server, so concurrent consumers never see half of one.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import { GROUP_PROGRESS_SCRIPT } from './redis-group-progress.js';
import { GROUP_STATUS_SCRIPT } from './redis-group-status.js';
import { LIVENESS_SCRIPTS } from './redis-liveness.js';
import { TRIM_STREAM_SCRIPT } from './redis-stream-trimming.js';

// Makes a pending message reclaimable at once: same owner, delivery time set to the epoch, so
// its idle time exceeds any `minIdleMs`. JUSTID keeps the delivery count for the real redelivery.
const NACK = `
-- redis.pcall returns the error as a table with .err; Lua's pcall would hand back a plain string.
local pending = redis.pcall('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
if pending.err then
  if string.find(pending.err, 'NOGROUP', 1, true) or string.find(pending.err, 'no such key', 1, true) then return 0 end
  return pending
end
if #pending == 0 then return 0 end
redis.call('XCLAIM', KEYS[1], ARGV[1], pending[1][2], 0, ARGV[2], 'TIME', 0, 'JUSTID')
return 1
`;

// Resets the idle time of the given entries that are pending for this consumer (ARGV: group,
// consumer, ids…), without counting a delivery (JUSTID), so no reclaim takes what it still holds.
const TOUCH = `
local touched = 0
for i = 3, #ARGV do
  local pending = redis.pcall('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if pending.err then
    if string.find(pending.err, 'NOGROUP', 1, true) or string.find(pending.err, 'no such key', 1, true) then return touched end
    return pending
  end
  if #pending == 1 and pending[1][2] == ARGV[2] then
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
    touched = touched + 1
  end
end
return touched
`;

// Moves one dead letter back to its stream: delete and re-add in one step, so two concurrent
// replays cannot both publish it. Only the routing fields travel back, not the failure record.
// A letter without an envelope (an undecodable entry) stays: publishing it again cannot help.
const REPLAY = `
local entries = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])
if #entries == 0 then return false end
local fields = entries[1][2]
local keep = {}
local hasEnvelope = false
for i = 1, #fields, 2 do
  local name = fields[i]
  if name == 'envelope' or name == 'type' or name == 'id' then
    keep[#keep + 1] = name
    keep[#keep + 1] = fields[i + 1]
    if name == 'envelope' then hasEnvelope = true end
  end
end
if not hasEnvelope then return false end
-- Added before it is deleted: when the XADD fails the script ends and the dead letter stays.
-- No MAXLEN: trimming here could drop entries a group has not consumed; publishing trims.
local added = redis.call('XADD', KEYS[2], '*', unpack(keep))
redis.call('XDEL', KEYS[1], ARGV[1])
return added
`;

// Moves a pending message to the dead-letter stream and acks it. Not MULTI: a MULTI still runs
// the XACK when the XADD fails (a DLQ key of the wrong type), losing the message; here a failing
// XADD raises and ends the script before the ack.
// The message is copied from the stream entry itself, byte for byte, never encoded again by the
// client (an envelope JSON.parse accepted may be one JSON.stringify cannot write): mode
// 'envelope' copies its envelope, type and id fields (what replay needs); mode 'raw' keeps all of
// an undecodable entry's fields as a JSON array in raw_fields. When the entry is gone (trimmed,
// deleted) the client's fallback fields stand in.
// ARGV: group, id, mode, number of fallback fields, fallback fields…, the failure fields.
const DEAD_LETTER = `
local entries = redis.call('XRANGE', KEYS[2], ARGV[2], ARGV[2])
local fallbackEnd = 4 + tonumber(ARGV[4])
local letter = {}
if #entries == 1 then
  local fields = entries[1][2]
  if ARGV[3] == 'raw' then
    letter = { 'raw_fields', cjson.encode(fields) }
  else
    for i = 1, #fields, 2 do
      local name = fields[i]
      if name == 'envelope' or name == 'type' or name == 'id' then
        letter[#letter + 1] = name
        letter[#letter + 1] = fields[i + 1]
      end
    end
  end
else
  for i = 5, fallbackEnd do letter[#letter + 1] = ARGV[i] end
end
for i = fallbackEnd + 1, #ARGV do letter[#letter + 1] = ARGV[i] end
local added = redis.call('XADD', KEYS[1], '*', unpack(letter))
redis.call('XACK', KEYS[2], ARGV[1], ARGV[2])
return added
`;

// Deletes the group's consumers idle for ARGV[2] ms or longer with nothing pending. One script, so
// no consumer can read (and get pending entries, which DELCONSUMER would drop) between the check
// and the delete. `idle` is the time since the consumer last asked for messages (read or claim).
const REMOVE_IDLE_CONSUMERS = `
local consumers = redis.pcall('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])
if consumers.err then
  if string.find(consumers.err, 'NOGROUP', 1, true) or string.find(consumers.err, 'no such key', 1, true) then return {} end
  return consumers
end
local idleMs = tonumber(ARGV[2])
local removed = {}
for _, consumer in ipairs(consumers) do
  local info = {}
  for i = 1, #consumer, 2 do info[consumer[i]] = consumer[i + 1] end
  if info['pending'] == 0 and info['idle'] >= idleMs then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], info['name'])
    removed[#removed + 1] = info['name']
  end
end
return removed
`;

/** Passed as ioredis's `scripts` option, so every connection (and its pipelines) knows them. */
export const REDIS_SCRIPTS = {
  proteanNack: { numberOfKeys: 1, lua: NACK },
  proteanTouch: { numberOfKeys: 1, lua: TOUCH },
  proteanReplay: { numberOfKeys: 2, lua: REPLAY },
  proteanDeadLetter: { numberOfKeys: 2, lua: DEAD_LETTER },
  proteanRemoveIdleConsumers: { numberOfKeys: 1, lua: REMOVE_IDLE_CONSUMERS },
  proteanTrimStream: TRIM_STREAM_SCRIPT,
  proteanGroupStatus: GROUP_STATUS_SCRIPT,
  proteanGroupProgress: GROUP_PROGRESS_SCRIPT,
  ...LIVENESS_SCRIPTS,
};

interface ScriptClient {
  proteanNack(streamKey: string, group: string, id: string): Promise<number>;
  proteanTouch(streamKey: string, group: string, consumer: string, ...ids: string[]): Promise<number>;
  proteanDeadLetter(
    dlqKey: string,
    streamKey: string,
    group: string,
    id: string,
    mode: DeadLetterMode,
    fallbackCount: string,
    ...fields: string[]
  ): Promise<string>;
  proteanRemoveIdleConsumers(streamKey: string, group: string, idleMs: string): Promise<string[]>;
}
interface ScriptPipeline {
  proteanReplay(dlqKey: string, streamKey: string, id: string): ChainableCommander;
}

/** 1 when the message was pending (and is now reclaimable), 0 when it was not. */
export function nackPending(client: Redis, streamKey: string, group: string, id: string): Promise<number> {
  return (client as unknown as ScriptClient).proteanNack(streamKey, group, id);
}

/** Queues the replay of one dead letter; its reply is the new entry id, or null when it was gone or has no envelope. */
export function queueReplay(pipeline: ChainableCommander, dlqKey: string, streamKey: string, id: string): void {
  (pipeline as unknown as ScriptPipeline).proteanReplay(dlqKey, streamKey, id);
}

/** How the dead letter keeps the message: its envelope fields (replayable), or all raw fields (undecodable). */
export type DeadLetterMode = 'envelope' | 'raw';

/**
 * Adds the dead letter (the entry's own fields in `mode`, or `fallback` when the entry is gone,
 * then `failure`), then acks the message; when the add fails nothing is acked.
 */
export function deadLetterPending(
  client: Redis,
  keys: { dlq: string; stream: string },
  group: string,
  id: string,
  letter: { mode: DeadLetterMode; fallback: readonly string[]; failure: readonly string[] },
): Promise<string> {
  const { mode, fallback, failure } = letter;
  return (client as unknown as ScriptClient).proteanDeadLetter(keys.dlq, keys.stream, group, id, mode, String(fallback.length), ...fallback, ...failure);
}

/** How many of `ids` were pending for `consumer` and had their idle time reset. */
export function touchPending(client: Redis, streamKey: string, group: string, consumer: string, ids: readonly string[]): Promise<number> {
  return (client as unknown as ScriptClient).proteanTouch(streamKey, group, consumer, ...ids);
}

/** Names of the consumers removed: idle for `idleMs` or longer, nothing pending. */
export function removeIdleConsumers(client: Redis, streamKey: string, group: string, idleMs: number): Promise<string[]> {
  return (client as unknown as ScriptClient).proteanRemoveIdleConsumers(streamKey, group, String(idleMs));
}
