--- The decision: whether a plan is shown before it runs, which key runs it, and whether
--- that key runs it now.
---
--- The run key is a deliberate decision about what was seen. Whether a window is needed
--- and whether only `y` runs the plan are decided from the validated plan's `confirm`
--- and `reach` fields alone (the core's rule, asked through the native module), never
--- from its text. The key does nothing
--- until every row was seen (|leash.ui.confirm.visibility|), the window has been on
--- screen for a moment (|leash.ui.confirm.hardening|), the editor is large enough and the
--- terminal can be trusted; the footer says which of these it waits for, in static text.
local M = {}
local H = {}
local hardening = require('leash.ui.confirm.hardening')

-- Module definition ==========================================================

--- Whether `plan` must be shown before it runs. Decided by the core (`confirm.rs`) from
--- the validated plan's `confirm`, `reach`, `type` and `id` fields only (never from its
--- text): a plan runs without the window only when the user set `confirm_before_run =
--- false`, the core said `confirm = 'default'`, and every step is `safe` or `edit` and
--- not a terminal step. If the core cannot answer, the window is shown.
---@param plan table validated plan
---@param config? leash.Config default: the active configuration
---@return boolean
function M.needs_window(plan, config)
  config = config or require('leash.config').get()
  if config.confirm_before_run ~= false then return true end
  local ok, needed = require('leash.native').call('plan_needs_window', 'check the plan', plan, false)
  return not ok or needed ~= false
end

--- Whether `plan` has a marked step: any step that is not `safe` or `edit`, a terminal
--- step, or one of unknown reach (the core's rule). Such a plan runs only on `y`; if the
--- core cannot answer, it counts as marked.
---@param plan table validated plan
---@return boolean
function M.marked(plan)
  local ok, marked = require('leash.native').call('plan_marked', 'check the plan', plan)
  return not ok or marked ~= false
end

--- What the run key would do now: run (`ready`), or nothing, and why.
---@param state leash.PlanWindowState
---@return 'ready'|'unread'|'arming'|'too_small'|'terminal'|'closed'
function M.status(state)
  if state.done then return 'closed' end
  if state.too_small then return 'too_small' end
  if state.untrusted then return 'terminal' end
  if state.nseen < #state.lines then return 'unread' end
  if not hardening.armed(state) then return 'arming' end
  return 'ready'
end

--- Map the window's keys on `buf`: the run keys (none when the plan is only shown),
--- `e` where the request can be edited, the cancel keys, and no sideways scroll.
---@param buf integer
---@param state leash.PlanWindowState
---@param handle leash.ConfirmHandle
---@param refine? fun() the `on_refine` callback (|leash.ConfirmOpts|): `e` is mapped only with one
function M.set_keys(buf, state, handle, refine)
  local function map(lhs, fn, desc) vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, desc = desc }) end
  if state.plan_only then
    -- Shown to be read (`:Do!`): no key runs it, and the run keys do nothing.
    for _, lhs in ipairs(H.run_keys) do
      map(lhs, function() M.explain(state, 'ready') end, 'leash: plan only, nothing runs')
    end
  else
    for _, lhs in ipairs(state.marked and H.marked_run_keys or H.run_keys) do
      map(lhs, handle.run, 'leash: run this plan')
    end
    -- <CR> does not run a marked plan (rather than move the cursor, it says which key
    -- does).
    if state.marked then map('<CR>', function() M.explain(state, 'marked') end, 'leash: y runs this plan') end
  end
  if refine then map(H.refine_key, handle.refine, 'leash: edit the request and plan again') end
  for _, lhs in ipairs(H.cancel_keys) do
    map(lhs, handle.cancel, 'leash: cancel')
  end
  -- Every row fits the window: scrolling sideways could only hide the start of rows.
  for _, lhs in ipairs(H.sideways_keys) do
    map(lhs, '<Nop>', 'leash: rows fit the window')
  end
end

--- Say why a run key did nothing (the footer says it too, but a key that does nothing
--- must not be silent). Nothing while the window is arming: a key typed then was meant
--- for something else.
---@param state leash.PlanWindowState
---@param why 'marked'|'unread'|'arming'|'too_small'|'terminal'|'closed'|'ready'
function M.explain(state, why)
  if state.done or not hardening.armed(state) then return end
  local msg
  if why == 'marked' then
    msg = 'leash: marked steps run on y, not <CR>'
  elseif why == 'unread' then
    local left = #state.lines - state.nseen
    msg = ('leash: %d more line%s to read first: scroll (j, <C-d>), then y'):format(left, left == 1 and '' or 's')
  elseif why == 'too_small' then
    msg = "leash: no room for the plan: enlarge Neovim or lower 'cmdheight'"
  elseif state.plan_only then
    msg = 'leash: plan only (:Do!), nothing runs here: :Leash last runs it'
  end
  if msg then require('leash.ui.notify').notify(msg, vim.log.levels.WARN) end
end

--- Show the footer for the window's state (where there is a border to hold it).
---@param win integer
---@param state leash.PlanWindowState
function M.set_footer(win, state)
  if not state.border.has_border or vim.fn.has('nvim-0.10') == 0 then return end
  pcall(vim.api.nvim_win_set_config, win, { footer = H.footer(state), footer_pos = 'center' })
end

--- The footers (`ready`, `scrolled`) and the borderless key line (`inline`) for the
--- window's kind: a marked plan, a plan only shown (`:Do!`), with or without `e`.
---@param state leash.PlanWindowState
---@return { ready: string, scrolled: string, inline: string }
function M.key_texts(state)
  local f, inline = M.footers, H.keys_text
  if state.nothing then
    f, inline = M.footers.nothing, H.nothing_keys_text
  elseif state.plan_only then
    f, inline = M.footers.plan_only, H.plan_only_keys_text
  elseif state.marked then
    f, inline = M.footers.marked, H.marked_keys_text
  end
  local out = { ready = f.ready, scrolled = f.scrolled, inline = inline }
  if state.refine then
    -- `e` goes before cancel: ' <CR>/y run · e edit · q/<Esc> cancel '.
    for k, v in pairs(out) do
      out[k] = v:gsub(' · q', ' · e edit · q', 1)
    end
  end
  return out
end

--- The footers, by the window's state and kind (static text and a number only: model
--- text never goes there).
M.footers = {
  ready = ' <CR>/y run · q/<Esc> cancel ',
  scrolled = ' <CR>/y run · q/<Esc> cancel · <C-d>/<C-u> scroll ',
  marked = {
    ready = ' y run (marked steps: not <CR>) · q/<Esc> cancel ',
    scrolled = ' y run (marked steps: not <CR>) · q cancel · <C-d>/<C-u> scroll ',
  },
  plan_only = {
    ready = ' plan only (:Do!), nothing runs · q/<Esc> close ',
    scrolled = ' plan only (:Do!), nothing runs · q close · <C-d>/<C-u> scroll ',
  },
  nothing = {
    ready = ' nothing to run · q/<Esc> close ',
    scrolled = ' nothing to run · q close · <C-d>/<C-u> scroll ',
  },
  terminal = ' the terminal may hide this plan · q cancel ',
  unread = ' %d more line%s: j/<C-d> scroll · q cancel ',
  too_small = ' too small to show the plan · q cancel ',
  covered = ' another window covers the plan · q cancel ',
}

-- Helper data ================================================================

H.run_keys = { '<CR>', 'y' }
H.marked_run_keys = { 'y' }

H.cancel_keys = { 'q', '<Esc>', 'n', '<C-c>' }
H.sideways_keys =
  { 'zl', 'zh', 'zL', 'zH', 'zs', 'ze', 'z<Right>', 'z<Left>', '<ScrollWheelRight>', '<ScrollWheelLeft>' }
H.keys_text = '<CR>/y run · q/<Esc> cancel · <C-d>/<C-u> scroll'
H.marked_keys_text = 'y run (not <CR>: marked steps) · q/<Esc> cancel · <C-d>/<C-u> scroll'
H.plan_only_keys_text = 'plan only (:Do!), nothing runs · q/<Esc> close · <C-d>/<C-u> scroll'
H.nothing_keys_text = 'nothing to run · q/<Esc> close · <C-d>/<C-u> scroll'
-- Edits the request and plans again with this plan as context (|leash.ConfirmOpts|).
H.refine_key = 'e'

-- Helper functionality =======================================================

--- The footer for the window's state (static text and a number).
function H.footer(state)
  if state.too_small then return M.footers.too_small end
  if state.untrusted then return M.footers.terminal end
  if state.covered then return M.footers.covered end
  local left = #state.lines - state.nseen
  if left > 0 then return M.footers.unread:format(left, left == 1 and '' or 's') end
  local f = M.key_texts(state)
  return state.layout.fits and f.ready or f.scrolled
end

return M
