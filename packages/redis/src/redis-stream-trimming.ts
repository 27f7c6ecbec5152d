/**
 * Trimming a stream without losing what a consumer group still needs: entries are removed only
 * when every group has acked them (soft target `maxlen`), except past the hard limit
 * `maxlen_hard`, where the oldest go whatever their state and the loss is counted per group.
 */
import type { ChainableCommander } from 'ioredis';
import { LUA_STREAM_IDS } from './redis-lua-stream-ids.js';

/** A stream is trimmed at least this often while it is being published to. */
export const TRIM_INTERVAL_MS = 1_000;
/** …and after at most this many appends, fewer for small limits (a tenth of the smaller one). */
export const MAX_APPENDS_BETWEEN_TRIMS = 1_000;

// KEYS: stream, its trim-loss hash. ARGV: soft limit (maxlen, 0 = none), hard limit (0 = none).
// Returns {trimmedSoft, trimmedHard, lengthAfter, group1, lost1, group2, lost2, ...}.
const TRIM_STREAM = `${LUA_STREAM_IDS}
local soft = tonumber(ARGV[1])
local hard = tonumber(ARGV[2])
local length = redis.call('XLEN', KEYS[1])
local groups = nil
local function groupInfos()
  if groups == nil then
    groups = {}
    for _, reply in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do groups[#groups + 1] = pairsOf(reply) end
  end
  return groups
end

local trimmedSoft = 0
if soft > 0 and length > soft then
  -- The oldest entry any group still needs: its oldest pending entry, else the one after its last delivered.
  local oldest = nil
  for _, group in ipairs(groupInfos()) do
    local pending = redis.call('XPENDING', KEYS[1], group['name'])
    local needed
    if pending[1] > 0 then needed = parseId(pending[2]) else needed = idAfter(parseId(group['last-delivered-id'])) end
    if oldest == nil or idLess(needed, oldest) then oldest = needed end
  end
  if oldest == nil then
    -- No group yet: nobody to wait for; keep the newest soft-limit entries for the first one.
    trimmedSoft = redis.call('XTRIM', KEYS[1], 'MAXLEN', '~', soft)
  else
    -- Below the oldest needed id, but never fewer than the soft limit left (LIMIT caps evictions).
    trimmedSoft = redis.call('XTRIM', KEYS[1], 'MINID', '~', formatId(oldest), 'LIMIT', length - soft)
  end
  length = length - trimmedSoft
end

local result = {trimmedSoft, 0, length}
if hard > 0 and length > hard then
  local excess = length - hard
  local infos = groupInfos()
  local undelivered = {}
  local lastDelivered = {}
  for i, group in ipairs(infos) do
    undelivered[i] = 0
    lastDelivered[i] = parseId(group['last-delivered-id'])
  end
  -- Walk the entries about to go (a page at a time) counting, per group, those it never received.
  local start = '-'
  local first = nil
  local seen = 0
  while seen < excess do
    local page = redis.call('XRANGE', KEYS[1], start, '+', 'COUNT', math.min(1000, excess - seen))
    if #page == 0 then break end
    first = first or page[1][1]
    for _, entry in ipairs(page) do
      local id = parseId(entry[1])
      for i = 1, #infos do
        if idLess(lastDelivered[i], id) then undelivered[i] = undelivered[i] + 1 end
      end
    end
    seen = seen + #page
    start = '(' .. page[#page][1]
  end
  local kept = redis.call('XRANGE', KEYS[1], start, '+', 'COUNT', 1)
  if #kept > 0 and first then
    local cut = kept[1][1]
    for i, group in ipairs(infos) do
      -- Delivered but unacked entries that go too (from the first entry: older pending ids are
      -- already gone, counted when they went).
      local lost = undelivered[i] + #redis.call('XPENDING', KEYS[1], group['name'], first, '(' .. cut, excess)
      if lost > 0 then
        redis.call('HINCRBY', KEYS[2], group['name'], lost)
        result[#result + 1] = group['name']
        result[#result + 1] = lost
      end
    end
    result[2] = redis.call('XTRIM', KEYS[1], 'MINID', cut)
    result[3] = length - result[2]
  end
end
return result
`;

export const TRIM_STREAM_SCRIPT = { numberOfKeys: 2, lua: TRIM_STREAM };

export interface TrimOutcome {
  /** Entries every group had acked (or, with no group, beyond the soft limit) that were removed. */
  trimmed: number;
  /** Entries removed past the hard limit, consumed or not. */
  trimmedPastHardLimit: number;
  length: number;
  /** Per group, entries it had not consumed that went past the hard limit. */
  lost: { group: string; entries: number }[];
}

interface TrimPipeline {
  proteanTrimStream(streamKey: string, lostKey: string, soft: string, hard: string): ChainableCommander;
}

export function queueTrim(pipeline: ChainableCommander, streamKey: string, lostKey: string, soft: number, hard: number): void {
  (pipeline as unknown as TrimPipeline).proteanTrimStream(streamKey, lostKey, String(soft), String(hard));
}

export function parseTrimReply(reply: unknown): TrimOutcome {
  const values = reply as (string | number)[];
  const lost: TrimOutcome['lost'] = [];
  for (let i = 3; i + 1 < values.length; i += 2) lost.push({ group: String(values[i]), entries: Number(values[i + 1]) });
  return { trimmed: Number(values[0]), trimmedPastHardLimit: Number(values[1]), length: Number(values[2]), lost };
}

/**
 * When each stream is due for a trim: after enough appends or enough time, so publishing pays
 * for one script per stream now and then instead of one per message.
 */
export class TrimSchedule {
  private readonly streams = new Map<string, { appended: number; trimmedAt: number }>();
  readonly appendsBetweenTrims: number;

  constructor(
    private readonly soft: number,
    private readonly hard: number,
    private readonly now: () => number = Date.now,
  ) {
    const smaller = Math.min(...[soft, hard].filter((limit) => limit > 0));
    this.appendsBetweenTrims = Number.isFinite(smaller) ? Math.max(1, Math.min(MAX_APPENDS_BETWEEN_TRIMS, Math.ceil(smaller / 10))) : 0;
  }

  get enabled(): boolean {
    return this.soft > 0 || this.hard > 0;
  }

  /** Records `count` appends to `stream`; true when it should be trimmed now (the clock restarts). */
  appended(stream: string, count: number): boolean {
    if (!this.enabled) return false;
    const now = this.now();
    const state = this.streams.get(stream) ?? { appended: 0, trimmedAt: now };
    state.appended += count;
    const due = state.appended >= this.appendsBetweenTrims || now - state.trimmedAt >= TRIM_INTERVAL_MS;
    if (due) {
      state.appended = 0;
      state.trimmedAt = now;
    }
    this.streams.set(stream, state);
    return due;
  }
}
