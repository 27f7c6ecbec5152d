/**
 * Lua helpers for stream entry ids (`<ms>-<seq>`), prepended to the scripts that compare ids:
 * Lua compares strings, not ids, so `"10-0" < "9-0"` would be true without them.
 */
export const LUA_STREAM_IDS = `
local function parseId(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return { tonumber(ms), tonumber(seq) }
end
local function idLess(a, b)
  return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2])
end
local function idAfter(a)
  return { a[1], a[2] + 1 }
end
local function formatId(a)
  return string.format('%d-%d', a[1], a[2])
end
-- An XINFO reply ({name, value, name, value, ...}) as a table.
local function pairsOf(reply)
  local out = {}
  for i = 1, #reply, 2 do out[reply[i]] = reply[i + 1] end
  return out
end
`;
