--- Runs keymap items (`map:<mode>:<lhs>`): exactly the mapping the catalog described and
--- the plan window showed.
---
--- The keymaps source pins each mapping it lists (|leash.catalog.keymaps.pin()|: the
--- buffer it belongs to, its rhs or callback). Before the step runs, the mapping that the
--- keys would trigger now is pinned the same way and must be the same: an earlier step
--- that switched to a buffer with its own `,h` must not run that one instead of the `,h`
--- the window described. A Lua callback is called; any other mapping gets its own keys
--- fed with remapping, so Neovim runs it exactly as typing them would (`<silent>`,
--- `<SID>`, `<expr>`), which feeding a copy of the rhs would not. Only normal-mode
--- mappings: a plan has no selection.
local M = {}

--- Handler for the `map` prefix.
---@param entry table catalog entry (with its `pin`)
---@return boolean? ok
---@return string? err
function M.handler(entry, _)
  local mode, lhs = entry.id:match('^map:(%a):(.+)$')
  if not mode then return nil, 'not a keymap id' end
  if mode ~= 'n' then
    return nil, ('only normal-mode mappings can run from a plan (this one is for mode %s)'):format(mode)
  end
  local m = vim.fn.maparg(lhs, mode, false, true)
  if type(m) ~= 'table' or vim.tbl_isempty(m) then return nil, 'the mapping no longer exists' end
  local keymaps = require('leash.catalog.keymaps')
  if not keymaps.same(entry.pin, keymaps.pin(m, vim.api.nvim_get_current_buf())) then
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

return M
