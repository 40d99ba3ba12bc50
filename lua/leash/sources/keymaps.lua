--- Source: mappings that carry a `desc`, id `map:<mode>:<lhs>`: their catalog entries
--- and how a step of one runs.
---
--- Only described mappings enter: a description is what a request can match, and a
--- mapping without one is rarely meant to be invoked by name; which-key's own trigger
--- mappings stay out (they open its popup). A mapping runs arbitrary keys or a Lua
--- callback that leash cannot see into, so its reach is declared `plugin`, shown with the
--- plugin it belongs to where that can be told (|leash.sources.shared.origin|) and
--- confirmed like `shell`. A lazy.nvim stand-in is named after the plugin it loads and
--- says so.
---
--- A step runs exactly the mapping the catalog described and the plan window showed.
--- Each mapping listed is pinned (|M.pin()|: the buffer it belongs to, its rhs or
--- callback). Before the step runs, the mapping that the keys would trigger now is
--- pinned the same way and must be the same: an earlier step that switched to a buffer
--- with its own `,h` must not run that one instead of the `,h` the window described. A Lua callback is called; any other mapping gets its own keys
--- fed with remapping, so Neovim runs it exactly as typing them would (`<silent>`,
--- `<SID>`, `<expr>`), which feeding a copy of the rhs would not. Only normal-mode
--- mappings: a plan has no selection.
local M = {}
local H = {}
-- Interpreted, not compiled: its loops run once per request and call Neovim's C API at
-- every turn, which ends LuaJIT's traces; compiling them cost more than it saved (the
-- first :Do of a session spent milliseconds on it, scripts/bench-do).
if jit then jit.off(true, true) end
local origin = require('leash.sources.shared.origin')

-- Module definition ==========================================================

-- Its name and the id prefix of its items (|leash.Source|).
M.name, M.prefix = 'keymaps', 'map'

--- Entries for described mappings (global and buffer-local) in the modes the
--- configuration lists (`keymap_modes`). The same list as last time when the mappings it
--- was built from are the same (|leash.catalog| then compares nothing more).
---@param ctx? leash.SourceContext
---@return table[]
function M.entries(ctx)
  local modes = (ctx and ctx.config or require('leash.config').get()).keymap_modes or {}
  local bufnr = ctx and ctx.bufnr
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  -- What the entries are made from, field by field, is compared in place with what the
  -- last list was made from: nothing is built for a mapping unless something changed.
  -- Then the entries are made again only for mappings that are new or changed (finding a
  -- callback's plugin reads its source file name, which is what costs), and all of them
  -- after a plugin was installed or updated.
  local last, plugins = H.last, origin.plugin_generation()
  local check = require('leash.sources.shared.fields').compare(
    last.fields,
    last.list ~= nil and last.bufnr == bufnr and last.plugins == plugins
  )
  local put = check.put
  local loads = {}
  local maps_found, modes_found, ids, seen = {}, {}, {}, {}
  for _, mode in ipairs(modes) do
    for _, maps in ipairs({ vim.api.nvim_buf_get_keymap(bufnr, mode), vim.api.nvim_get_keymap(mode) }) do
      for _, map in ipairs(maps) do
        if map.desc and map.desc ~= '' then
          -- `map.mode` is the mode it was defined for ('v' covers x and s, so a `:vmap`
          -- seen from 'x' dedupes); `:map` (' ') is listed under each queried mode.
          local m = (map.mode and #map.mode == 1 and map.mode ~= ' ') and map.mode or mode
          local id = 'map:' .. m .. ':' .. map.lhs
          if not seen[id] then
            seen[id] = true
            local i = #ids + 1
            maps_found[i], modes_found[i], ids[i] = map, m, id
            put(id)
            put(map.desc)
            put(map.rhs or '')
            put(map.callback or false)
            put(map.expr or 0)
            put(map.sid or 0)
            put(map.buffer or 0)
            -- A lazy.nvim stand-in: what it loads (loading the plugin replaces it).
            loads[i] = origin.lazy_keys(map, m) or false
            put(loads[i] and table.concat(loads[i], ',') or false)
          end
        end
      end
    end
  end
  if check.done() then return last.list end
  last.list, last.bufnr, last.plugins = nil, bufnr, plugins
  local out, made = {}, {}
  for i, map in ipairs(maps_found) do
    local key = table.concat({
      ids[i],
      map.desc,
      map.rhs or '',
      map.callback and tostring(map.callback) or '',
      tostring(map.expr or 0),
      tostring(map.sid or ''),
      tostring(map.buffer or 0),
      loads[i] and table.concat(loads[i], ',') or '',
      bufnr,
      plugins,
    }, '\31')
    local entry = last.made[key]
    if entry == nil then entry = H.entry(map, modes_found[i], ids[i], bufnr, loads[i]) end
    made[key] = entry
    if entry then out[#out + 1] = entry end
  end
  -- By id: Neovim lists mappings in an order that changes from one session to the next,
  -- and the catalog's order is what the ranker's saved part of them is read against.
  table.sort(out, function(a, b) return a.id < b.id end)
  last.list, last.made = out, made
  return out
end

--- Run a step of a `map:` item.
---@param entry table catalog entry (with its `pin`)
---@return boolean? ok
---@return string? err
function M.run(entry, _)
  local mode, lhs = entry.id:match('^map:(%a):(.+)$')
  if not mode then return nil, 'not a keymap id' end
  if mode ~= 'n' then
    return nil, ('only normal-mode mappings can run from a plan (this one is for mode %s)'):format(mode)
  end
  local m = vim.fn.maparg(lhs, mode, false, true)
  if type(m) ~= 'table' or vim.tbl_isempty(m) then return nil, 'the mapping no longer exists' end
  if not M.same(entry.pin, M.pin(m, vim.api.nvim_get_current_buf())) then
    return nil,
      'the mapping these keys would run now is not the one the plan showed (another buffer’s mapping, or it was redefined)'
  end
  if m.callback and m.expr ~= 1 then
    m.callback()
  else
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(lhs, true, true, true), 'mx', false)
  end
  return true
end

--- What identifies a mapping: the buffer it belongs to (0 for a global one), its rhs or
--- callback. |M.run()| compares the pin of the mapping its keys would run with
--- the catalog entry's before it runs anything. A lazy.nvim stand-in is pinned by what
--- it loads instead (`lazy:telescope.nvim`): running it, or another of that plugin's
--- stand-ins, replaces it with the plugin's real mapping for the same keys, which is the
--- same entry (|M.same()|).
---@param map table a mapping as |nvim_get_keymap()| or |maparg()| (dict) returns it
---@param bufnr integer the buffer it was looked up in; used when `map` is buffer-local
---@param loads? string[]|false what it loads as a lazy.nvim stand-in, when the caller has
---  looked that up already (`false`: not a stand-in)
---@return string
function M.pin(map, bufnr, loads)
  -- maparg() says `buffer = 1` for a buffer-local mapping, nvim_buf_get_keymap() the number.
  local owner = (map.buffer == true or (type(map.buffer) == 'number' and map.buffer > 0)) and bufnr or 0
  if loads == nil then
    loads = origin.lazy_keys(map, (map.mode and #map.mode == 1 and map.mode ~= ' ') and map.mode or 'n')
  end
  if loads then return table.concat({ tostring(owner), 'lazy:' .. table.concat(loads, ',') }, '\31') end
  local callback = map.callback and tostring(map.callback) or ''
  -- nvim_get_keymap() and maparg() spell the same rhs differently (`<Cmd>Oil<CR>`,
  -- `<cmd>Oil<cr>`): key names are compared without regard to case.
  local rhs = map.rhs and map.rhs:gsub('<[^<>]+>', string.lower) or ''
  return table.concat({ tostring(owner), rhs, callback, tostring(map.expr or 0) }, '\31')
end

--- Whether the mapping `now` (its pin) is the one the catalog pinned: the same, or the
--- real mapping a lazy.nvim stand-in was replaced with (same owner, no longer a
--- stand-in, every plugin it loads now loaded).
---@param pinned string the catalog entry's pin
---@param now string the pin of the mapping the keys would run now
---@return boolean
function M.same(pinned, now)
  if pinned == now then return true end
  local owner, plugins = pinned:match('^([^\31]+)\31lazy:(.*)$')
  if not owner then return false end
  local now_owner, rest = now:match('^([^\31]+)\31(.*)$')
  if now_owner ~= owner or vim.startswith(rest, 'lazy:') then return false end
  local specs = require('leash.lazy').plugins()
  for name in plugins:gmatch('[^,]+') do
    local p = specs[name]
    if not (p and p._ and p._.loaded) then return false end
  end
  return true
end

-- Helper data ================================================================

--- The last list made (nil while one is being made), the fields of every mapping it was
--- made from (eight each, in order), the buffer and plugin generation it was made in, and
--- each mapping's entry by its key (`false`: left out, a which-key trigger).
H.last = { list = nil, fields = {}, bufnr = nil, plugins = nil, made = {} }

-- Helper functionality =======================================================

--- The catalog entry of a described mapping, or false for one left out (which-key's own
--- trigger mappings open its popup).
function H.entry(map, m, id, bufnr, loads)
  if origin.is_which_key_trigger(map) then return false end
  loads = loads or nil
  return {
    id = id,
    kind = 'keymap',
    title = map.desc,
    aliases = {},
    args = 'none',
    reach = 'plugin', -- see the file header
    plugin = loads and table.concat(loads, ', ') or H.owner(map),
    loads = loads and #loads > 0 or nil,
    pin = M.pin(map, bufnr, loads or false),
  }
end

--- The plugin a mapping's callback belongs to, or nil (a mapping to keys tells nothing).
function H.owner(map)
  if map.callback then return origin.of_function(map.callback) end
  if tonumber(map.sid) and map.sid > 0 then return origin.of_command({ script_id = map.sid }) end
end

return M
