--- Catalog source: user commands (global and buffer-local), id `user:<name>`.
---
--- A user command can run any Vimscript or Lua, so its reach is declared `shell`: the
--- plugin cannot know what a callback does. A later config option may let users
--- declare a lower reach for commands they trust; the core never lowers it by itself.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Entries for the user commands visible from `bufnr`.
---@param bufnr? integer
---@param help? table<string, string> help text by command name (the runtime's own
---  documented commands), kept as the searchable description
---@return table[]
function M.entries(bufnr, help)
  local out, seen = {}, {}
  local sets = {
    vim.api.nvim_buf_get_commands(bufnr or 0, { builtin = false }), -- buffer-local win over global
    vim.api.nvim_get_commands({ builtin = false }),
  }
  for _, cmds in ipairs(sets) do
    local names = vim.tbl_keys(cmds)
    table.sort(names)
    for _, name in ipairs(names) do
      if not seen[name] then
        seen[name] = true
        local def = cmds[name]
        out[#out + 1] = {
          id = 'user:' .. name,
          kind = 'user_command',
          title = H.title(def),
          aliases = {},
          args = H.nargs[def.nargs] or 'optional',
          -- Defined with -range (and lines for addresses): runs on the user's range.
          range = (def.range == '.' or def.range == '%') and (def.addr == nil or def.addr == 'lines') or nil,
          reach = 'shell', -- a callback can do anything; see the file header
          description = help and help[name] or nil,
        }
      end
    end
  end
  return out
end

-- Helper functionality =======================================================

H.nargs = { ['0'] = 'none', ['?'] = 'optional', ['*'] = 'optional', ['1'] = 'required', ['+'] = 'required' }

function H.title(def)
  local desc = def.definition or ''
  -- Lua callbacks show their `desc` as the definition; Vimscript ones the command text.
  desc = vim.trim((desc:gsub('%s+', ' ')))
  if desc == '' then return ':' .. def.name end
  if #desc > 120 then desc = desc:sub(1, 117) .. '...' end
  return desc
end

return M
