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
  for _, mode in ipairs(modes) do
    for _, maps in ipairs({ vim.api.nvim_buf_get_keymap(bufnr or 0, mode), vim.api.nvim_get_keymap(mode) }) do
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
            }
          end
        end
      end
    end
  end
  return out
end

return M
