--- When a plan arrives: open its window now, or hold it while the user is typing.
---
--- A model can take a minute; meanwhile the user works. A window that took the focus
--- then would receive keys meant for something else (the `<CR>` that ends a line of
--- text). So a plan opens at once only when Neovim is in Normal mode with nothing typed
--- in the last `quiet_ms` since the request left; otherwise it is held, a notification
--- says so, and `:Leash show` opens it. A newer plan replaces a held one.
local M = {}
local H = {}

-- Module definition ==========================================================

--- How long the keyboard must have been quiet before a plan takes the focus.
M.quiet_ms = 1000

--- Note that a request left now: keys typed before it (the `:Do` line itself) do not
--- count against its plan.
function M.request_sent()
  H.watch_keys()
  H.sent_ns = vim.uv.hrtime()
end

--- Note when the user types from now on, without a request of theirs having left: a
--- plan the user did not ask for (an agent's) waits while they type.
function M.watch_keys() H.watch_keys() end

--- Open the window with `open` now, or hold it (see the module header). A plan still
--- held is replaced: its `on_drop` is called.
---@param open fun() opens the plan window
---@param what string a few words for the notification ("3 steps")
---@param on_drop? fun() called if this plan is replaced or dropped while it is held
---@return boolean opened
function M.arrive(open, what, on_drop)
  H.drop_held()
  local why = M.busy()
  if not why then
    open()
    return true
  end
  H.held, H.on_drop = open, on_drop
  local msg = ('leash: plan ready (%s): :Leash show opens it (held: %s)'):format(what, why)
  require('leash.ui.notify').notify(msg, vim.log.levels.WARN)
  -- In Insert mode the mode message soon covers an echoed notice: say it again once the
  -- user is back in Normal mode.
  vim.api.nvim_create_autocmd('ModeChanged', {
    group = vim.api.nvim_create_augroup('leash.arrival', { clear = true }),
    pattern = '*:n',
    once = true,
    callback = function()
      if H.held == open then
        vim.schedule(
          function()
            require('leash.ui.notify').notify(
              ('leash: a plan is waiting (%s): :Leash show opens it'):format(what),
              vim.log.levels.WARN
            )
          end
        )
      end
    end,
  })
  return false
end

--- Why a plan must not take the focus now, or nil.
---@param state? { mode?: string, last_key_ns?: integer, sent_ns?: integer, now_ns?: integer } for specs
---@return string? why
function M.busy(state)
  state = state or {}
  local mode = state.mode or vim.api.nvim_get_mode().mode
  if mode ~= 'n' then return ('you are in %s mode'):format(H.mode_names[mode:sub(1, 1)] or ('“' .. mode .. '”')) end
  local last, sent = state.last_key_ns or H.last_key_ns, state.sent_ns or H.sent_ns
  local now = state.now_ns or vim.uv.hrtime()
  if last and (not sent or last > sent) and now - last < M.quiet_ms * 1e6 then return 'you are typing' end
end

--- Whether a key typed in `mode` is typing for something else. The Enter (or any key)
--- that dismisses a |hit-enter| or |more-prompt| is not: it only goes back to where the
--- user was.
---@param mode string as |nvim_get_mode()| says it
---@return boolean
function M.typing(mode) return mode ~= 'r' and mode ~= 'rm' end

--- `:Leash show`: open the held plan.
---@return boolean opened
function M.show()
  local open = H.held
  H.held, H.on_drop = nil, nil
  if not open then
    require('leash.ui.notify').notify('leash: no plan is waiting', vim.log.levels.INFO)
    return false
  end
  open()
  return true
end

--- Whether a plan is held.
---@return boolean
function M.holding() return H.held ~= nil end

--- Forget the held plan if it is `open` (its sender withdrew it); its `on_drop` is not
--- called.
---@param open fun() what |M.arrive()| was given
---@return boolean dropped
function M.drop(open)
  if H.held ~= open then return false end
  H.held, H.on_drop = nil, nil
  return true
end

-- Helper data ================================================================

---@type fun()?
H.held = nil

--- What to call when the held plan is replaced.
---@type fun()?
H.on_drop = nil

H.mode_names = {
  i = 'Insert',
  R = 'Replace',
  c = 'Command-line',
  t = 'Terminal',
  v = 'Visual',
  V = 'Visual',
  ['\22'] = 'Visual',
  s = 'Select',
  S = 'Select',
  ['\19'] = 'Select',
  r = 'a prompt',
  ['!'] = 'a shell',
}

H.ns = vim.api.nvim_create_namespace('leash.arrival')

-- Helper functionality =======================================================

--- A held plan is replaced by a newer one: it ends, and says so to whoever waits for it.
function H.drop_held()
  local on_drop = H.held and H.on_drop
  H.held, H.on_drop = nil, nil
  if on_drop then on_drop() end
end

--- Record when the user last typed (`vim.on_key` sees typed keys, not mapped ones).
function H.watch_keys()
  if H.watching then return end
  H.watching = true
  vim.on_key(function(_, typed)
    if typed and typed ~= '' and M.typing(vim.api.nvim_get_mode().mode) then H.last_key_ns = vim.uv.hrtime() end
  end, H.ns)
end

return M
