"""
The Lua scripts the cluster runs in Redis, each one atomic.

A value owned by a node is C{NODE} or C{NODE + "\\n" + JSON}; the owner is
what comes before the first newline.
"""

# KEYS[1] the key; ARGV node, value, ttl (ms).  Set the key if absent (or
# already ours); return the owner's value.
CLAIM = """
local cur = redis.call('GET', KEYS[1])
if not cur then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return ARGV[2]
end
local owner = string.match(cur, '^[^\\n]*')
if owner == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return cur
"""

# ARGV node, ttl (ms), then five per entry: key, value, index, score, open
# ('1' add to index..':open', '0' remove from it, '' leave it).  Write
# every entry that is absent or ours (so that a Redis that lost its data
# is refilled), skip the others; return the keys held by another node.
PUBLISH = """
local node, ttl = ARGV[1], ARGV[2]
local conflicts = {}
for i = 3, #ARGV, 5 do
  local key, value, index, score, open =
    ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local cur = redis.call('GET', key)
  if cur and string.match(cur, '^[^\\n]*') ~= node then
    table.insert(conflicts, key)
  else
    redis.call('SET', key, value, 'PX', ttl)
    if index ~= '' then
      local member = string.sub(key, #index + 2)
      redis.call('ZADD', index, 'NX', score, member)
      if open == '1' then
        redis.call('ZADD', index .. ':open', score, member)
      elseif open == '0' then
        redis.call('ZREM', index .. ':open', member)
      end
    end
  end
end
return conflicts
"""

# KEYS[1] the key; ARGV node, index ('' for none).  Delete the key if it
# is ours (and its index entries).
RELEASE = """
local cur = redis.call('GET', KEYS[1])
if cur and string.match(cur, '^[^\\n]*') == ARGV[1] then
  redis.call('DEL', KEYS[1])
  if ARGV[2] ~= '' then
    local member = string.sub(KEYS[1], #ARGV[2] + 2)
    redis.call('ZREM', ARGV[2], member)
    redis.call('ZREM', ARGV[2] .. ':open', member)
  end
  return 1
end
return 0
"""

# KEYS[1] a room index; ARGV the room keys' prefix.  The rooms' values in
# index order; entries whose key expired are dropped from the index.
LIST = """
local names = redis.call('ZRANGE', KEYS[1], 0, -1)
local values = {}
for _, name in ipairs(names) do
  local value = redis.call('GET', ARGV[1] .. name)
  if value then
    table.insert(values, value)
  else
    redis.call('ZREM', KEYS[1], name)
  end
end
return values
"""

# KEYS[1] the open index of a kind; ARGV room key prefix, node key
# prefix, capacity.  Take a seat at the newest open room whose node is
# alive: its member count goes up by one (the home node's next publish
# sets the true count); return {name, owner} or nil.
SEAT = """
local names = redis.call('ZREVRANGE', KEYS[1], 0, -1)
for _, name in ipairs(names) do
  local key = ARGV[1] .. name
  local cur = redis.call('GET', key)
  local keep = false
  if cur then
    local owner = string.match(cur, '^[^\\n]*')
    local data = cjson.decode(string.sub(cur, #owner + 2))
    if not data.running and data.n < tonumber(ARGV[3])
        and redis.call('EXISTS', ARGV[2] .. owner) == 1 then
      data.n = data.n + 1
      redis.call('SET', key, owner .. '\\n' .. cjson.encode(data), 'KEEPTTL')
      if data.n < tonumber(ARGV[3]) then
        keep = true
      end
      if not keep then
        redis.call('ZREM', KEYS[1], name)
      end
      return {name, owner}
    end
  end
  redis.call('ZREM', KEYS[1], name)
end
return false
"""
