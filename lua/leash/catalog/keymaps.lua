--- Catalog source: mappings that carry a `desc`, id `map:<mode>:<lhs>`.
---
--- Only described mappings enter: a description is what a request can match, and a
--- mapping without one is rarely meant to be invoked by name. A mapping runs arbitrary
--- keys or a Lua callback, so its reach is declared `shell` (the plugin cannot see what
--- it does); users may later declare lower reaches for their own mappings in config.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Entries for described mappings in `modes` (global and buffer-local).
---@param modes string[]
---@param bufnr? integer
---@return table[]
function M.entries(modes, bufnr)
  local out, seen = {}, {}
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  for _, mode in ipairs(modes) do
    for _, maps in ipairs({ vim.api.nvim_buf_get_keymap(bufnr, mode), vim.api.nvim_get_keymap(mode) }) do
      for _, map in ipairs(maps) do
        if map.desc and map.desc ~= '' then
          -- `map.mode` is the mode it was defined for ('v' covers x and s, so a `:vmap`
          -- seen from 'x' dedupes); `:map` (' ') is listed under each queried mode.
          local m = (map.mode and #map.mode == 1 and map.mode ~= ' ') and map.mode or mode
          local id = ('map:%s:%s'):format(m, map.lhs)
          if not seen[id] then
            seen[id] = true
            out[#out + 1] = {
              id = id,
              kind = 'keymap',
              title = map.desc,
              aliases = {},
              args = 'none',
              reach = 'shell', -- see the file header
              pin = M.pin(map, bufnr),
            }
          end
        end
      end
    end
  end
  return out
end

--- What identifies a mapping: the buffer it belongs to (0 for a global one), its rhs or
--- callback. The keymap action compares the pin of the mapping its keys would run with
--- the catalog entry's before it runs anything.
---@param map table a mapping as |nvim_get_keymap()| or |maparg()| (dict) returns it
---@param bufnr integer the buffer it was looked up in; used when `map` is buffer-local
---@return string
function M.pin(map, bufnr)
  -- maparg() says `buffer = 1` for a buffer-local mapping, nvim_buf_get_keymap() the number.
  local owner = (map.buffer == true or (type(map.buffer) == 'number' and map.buffer > 0)) and bufnr or 0
  local callback = map.callback and tostring(map.callback) or ''
  return table.concat({ tostring(owner), map.rhs or '', callback, tostring(map.expr or 0) }, '\31')
end

return M
