--- Runs setting steps (`nvim_set_option_value`, `:set` semantics or `:setlocal` when the
--- step says local) and puts recorded values back for `:Leash undo`.
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.SettingRecord
---@field key string
---@field kind 'global'|'win'|'buf'
---@field scope? 'local'
---@field old_global any
---@field old_local any
---@field win integer
---@field buf integer

--- Set the option of a setting step; returns the record undo needs.
---@param step table validated setting step
---@return leash.SettingRecord? record
---@return string? err
function M.run(step)
  local key, value = step.key, step.value
  if type(key) ~= 'string' or not key:match('^[%w_]+$') then return nil, 'not an option name' end
  local vt = type(value)
  if vt ~= 'boolean' and vt ~= 'number' and vt ~= 'string' then return nil, 'the value has no option type' end
  if vt == 'string' then
    local why = require('leash.text').check(value)
    if why then return nil, 'the value' .. why end
    if value:find('`', 1, true) then return nil, 'the value contains a backtick' end
  end
  local info = vim.api.nvim_get_option_info2(key, {})
  -- Only exact full names: an alias would name another option than the one shown.
  if info.name ~= key then return nil, ("'%s' is not the option's full name"):format(key) end
  local scope = step.scope == 'local' and 'local' or nil
  local rec = {
    key = key,
    kind = info.scope,
    scope = scope,
    win = vim.api.nvim_get_current_win(),
    buf = vim.api.nvim_get_current_buf(),
    -- While the process guard runs the step, 'shell' is its refusal program: the
    -- value to restore is the user's.
    old_global = require('leash.guard').user_option(key),
  }
  if info.scope ~= 'global' then rec.old_local = vim.api.nvim_get_option_value(key, { scope = 'local' }) end
  vim.api.nvim_set_option_value(key, value, { scope = scope })
  return rec
end

--- Put back the values `rec` saw, in the window or buffer it changed.
---@param rec leash.SettingRecord
function M.restore(rec)
  if rec.kind == 'global' then return vim.api.nvim_set_option_value(rec.key, rec.old_global, { scope = 'global' }) end
  if rec.scope ~= 'local' then vim.api.nvim_set_option_value(rec.key, rec.old_global, { scope = 'global' }) end
  if rec.kind == 'buf' then
    if not vim.api.nvim_buf_is_valid(rec.buf) then error('its buffer is gone', 0) end
    return vim.api.nvim_set_option_value(rec.key, rec.old_local, { buf = rec.buf })
  end
  if not vim.api.nvim_win_is_valid(rec.win) then error('its window is gone', 0) end
  vim.api.nvim_win_call(
    rec.win,
    function() vim.api.nvim_set_option_value(rec.key, rec.old_local, { scope = 'local' }) end
  )
end

return M
