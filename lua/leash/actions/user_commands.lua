--- Runs user command items (`user:<Name>`): the command's current definition, through
--- |nvim_cmd()| with the arguments as a list and expansion off.
---
--- The command must still be the one the catalog pinned (|leash.catalog.user_commands.pin()|).
--- The arguments get the text checks always and, unless the step is shown as `shell`,
--- the file-argument rules (|leash.policy.check_item_args()|): a command whose reach was declared lower
--- must not receive `term://…`, `+cmd` or `|`.
local M = {}

--- Handler for the `user` prefix.
---@param entry table catalog entry
---@param step table validated step
---@param ctx? leash.ExecContext
---@return boolean? ok
---@return string? err
function M.handler(entry, step, ctx)
  local name = entry.id:sub(6)
  if not name:match('^%u[%w]*$') then return nil, 'not a user command name' end
  local defined = vim.api.nvim_buf_get_commands(0, {})[name] or vim.api.nvim_get_commands({})[name]
  if not defined then return nil, ':' .. name .. ' is no longer defined' end
  local user_commands = require('leash.catalog.user_commands')
  local now = user_commands.current_pin(name)
  if entry.pin and not (now and user_commands.same(entry.pin, now)) then
    return nil,
      (':%s is not the command the plan showed now (a buffer-local command shadows it, or it was redefined)'):format(
        name
      )
  end
  local why = require('leash.policy').check_item_args(step.args, step.reach)
  if why then return nil, why end
  local range, rerr = require('leash.actions.range').for_step(step, entry, ctx)
  if rerr then return nil, rerr end
  vim.api.nvim_cmd(
    { cmd = name, args = step.args, range = range, magic = { file = false, bar = false } },
    { output = false }
  )
  return true
end

return M
