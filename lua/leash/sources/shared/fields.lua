--- What a source's list is made from, compared field by field with what its last list
--- was made from, in place: a source hands back its last list, building nothing, when
--- every field is the same (|leash.catalog| then compares nothing more). Used by the
--- sources Neovim gives no change event for: mappings, user commands, and the
--- autocommands that read file names.
local M = {}
-- Interpreted, not compiled, like the sources that call it (see keymaps.lua).
if jit then jit.off(true, true) end

--- A comparison with `fields` (the last list's fields, which it updates), the same so
--- far when `same`. Feed it each field in order with `put`; `done` says whether all
--- were the same and as many.
---@param fields any[]
---@param same boolean
---@return { put: fun(v: any), done: fun(): boolean }
function M.compare(fields, same)
  local n = 0
  local check = {}
  function check.put(v)
    n = n + 1
    if fields[n] ~= v then
      same, fields[n] = false, v
    end
  end
  function check.done()
    if #fields ~= n then
      same = false
      for i = #fields, n + 1, -1 do
        fields[i] = nil
      end
    end
    return same
  end
  return check
end

return M
