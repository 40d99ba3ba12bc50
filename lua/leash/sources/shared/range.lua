--- The line range a command step runs on (`:[range]Do`): the user's lines, exactly as the
--- plan window showed them. The core puts the range on a step only when the catalog entry
--- takes one (`src/range.rs`); this checks it again against what the user gave. The
--- builtin and user commands sources run their steps on it.
local M = {}

--- The range for `step`, or nil when it runs without one. Anything else fails the step: a
--- range the user did not give, a step shown without the user's range, or another buffer.
---@param step table validated step (`range` as the core set it)
---@param entry table catalog entry (`range = true` when the command takes one)
---@param ctx? leash.ExecContext
---@return integer[]? range `{ first, last }`, 1-based
---@return string? err
function M.for_step(step, entry, ctx)
  local user, shown = ctx and ctx.range, step.range
  if shown == nil or shown == vim.NIL then
    if user and entry.range then return nil, 'the plan window did not show this step with your lines' end
    return nil
  end
  if not user then return nil, 'the step has a range, but you gave none' end
  if not entry.range then return nil, 'this command takes no range' end
  if type(shown) ~= 'table' or shown[1] ~= user[1] or shown[2] ~= user[2] then
    return nil, "the step's range is not the lines you gave"
  end
  if user.buf and vim.api.nvim_get_current_buf() ~= user.buf then
    return nil, ('your lines are in buffer %d, not in the current one'):format(user.buf)
  end
  return { user[1], user[2] }
end

return M
