--- Runs `diag:<action>` items through `vim.diagnostic.*`.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Handler for the `diag` prefix.
---@param entry table catalog entry
---@param step? table validated step (no arguments)
---@return boolean ok
---@return string? err
function M.handler(entry, step)
  local _ = step
  local fn = H.actions[entry.id:match('^diag:(.+)$') or '']
  if not fn then return false, ('leash: unknown diagnostic item %s'):format(entry.id) end
  local ok, err = pcall(fn)
  if not ok then return false, 'leash: ' .. tostring(err) end
  return true
end

-- Helper functionality =======================================================

--- Jump by `count` diagnostics (vim.diagnostic.jump exists from 0.11) and show the one
--- jumped to in a float at once. Not with jump's `float`/`on_jump`: those run on a
--- later tick against the window of the jump, which the plan's next step may already
--- have closed ("Invalid window id").
function H.jump(count)
  local moved
  if vim.diagnostic.jump then
    moved = vim.diagnostic.jump({ count = count, float = false, on_jump = false }) ~= nil
  else
    moved = (count > 0 and vim.diagnostic.get_next or vim.diagnostic.get_prev)() ~= nil
    if moved then (count > 0 and vim.diagnostic.goto_next or vim.diagnostic.goto_prev)({ float = false }) end
  end
  if moved then vim.diagnostic.open_float({ scope = 'cursor', focus = false }) end
end

H.actions = {
  next = function() H.jump(1) end,
  prev = function() H.jump(-1) end,
  quickfix = function() vim.diagnostic.setqflist({ open = true }) end,
  loclist = function() vim.diagnostic.setloclist({ open = true }) end,
  toggle = function() vim.diagnostic.enable(not vim.diagnostic.is_enabled()) end,
  show = function() vim.diagnostic.open_float({ scope = 'line' }) end,
}

return M
