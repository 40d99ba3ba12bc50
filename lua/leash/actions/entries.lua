--- Runs the user's own entries (`entry:<name>`): a Lua function gets the step's
--- arguments; an argv list runs in a terminal split with the arguments appended as argv
--- elements (never through a shell).
local M = {}

-- Module definition ==========================================================

--- Handler for the `entry` prefix.
---@param entry table catalog entry
---@param step? table validated step
---@param opts? leash.TermOpts
---@return boolean ok
---@return any err_or_result
function M.handler(entry, step, opts)
  local entries = require('leash.catalog.entries')
  local u = entries.find(entry.id)
  if not u then return false, ('leash: %s is no longer configured'):format(entry.id) end
  if entry.pin ~= nil and entries.pin(u) ~= entry.pin then
    return false, ('leash: %s changed after the plan was shown; run the request again'):format(entry.id)
  end
  local args = step and step.args
  if type(args) == 'string' then args = { args } end
  if args == vim.NIL then args = nil end
  args = args or {}
  -- Whatever reach the entry declares, the model's arguments are filtered (a `safe`
  -- entry that passes its argument to :edit must not receive `term://…`).
  local why = require('leash.policy').check_item_args(args, step and step.reach or 'safe')
  if why then return false, 'leash: ' .. why end
  if type(u.run) == 'function' then
    local ok, res = pcall(u.run, args, step)
    if not ok then return false, ('leash: %s failed: %s'):format(entry.id, res) end
    return true, res
  end
  local argv = vim.deepcopy(u.cmd)
  for _, a in ipairs(args) do
    argv[#argv + 1] = a
  end
  local job, err = require('leash.actions.term').open(
    argv,
    vim.tbl_extend('force', opts or {}, { cwd = u.cwd and vim.fs.normalize(u.cwd) })
  )
  if not job then return false, err end
  return true, job
end

return M
