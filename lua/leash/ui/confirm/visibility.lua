--- Whether the plan was seen: which rows of the window were drawn while it was wholly
--- visible.
---
--- The run key waits until every row was drawn inside what the terminal shows, under no
--- other float (|leash.ui.confirm.decision|): a plan taller than the window must be
--- scrolled through. A decoration provider is told of every row Neovim draws; a row
--- counts only when the whole window is on screen as laid out. While another float
--- covers the window the footer says so, and the window is redrawn until it has gone.
local M = {}
local H = {}
local decision = require('leash.ui.confirm.decision')
local layout = require('leash.ui.confirm.layout')
local shared = require('leash.ui.confirm.state')

-- Module definition ==========================================================

--- Record which rows of a plan window are drawn. Called by Neovim while it redraws: a
--- row counts as seen only when it was drawn into a window wholly on screen.
function M.start()
  vim.api.nvim_set_decoration_provider(shared.ns_seen, {
    on_win = function(_, win)
      local state = shared.watched[win]
      if not state or state.done then return false end
      local ok, shown, why = pcall(M.on_screen, win, state)
      local covered = ok and why == 'covered'
      if covered ~= (state.covered or false) then
        state.covered = covered
        H.update_footer(win, state)
      end
      if covered then vim.schedule(function() H.redraw_when_uncovered(win, state) end) end
      return ok and shown
    end,
    on_line = function(_, win, _, row)
      local state = shared.watched[win]
      if not state or state.seen[row] or row >= #state.lines then return end
      state.seen[row] = true
      state.nseen = state.nseen + 1
      H.update_footer(win, state)
    end,
  })
end

--- Whether `win` is wholly on screen with its text area as laid out: no row below the
--- command line or past what the terminal shows, no column past the edge, nothing
--- scrolled sideways, no column added in front of the text, no other float on top.
---@param win integer
---@param state leash.PlanWindowState
---@return boolean on_screen
---@return 'covered'? why
function M.on_screen(win, state)
  local laid_out = state.layout
  if not laid_out or state.too_small then return false end
  local ok, info = pcall(vim.fn.getwininfo, win)
  if not ok or not info[1] then return false end
  info = info[1]
  local extra = state.border.has_border and 1 or 0
  local top = info.winrow - 1 -- 0-based row of the window, border included
  local left = info.wincol - 1
  local screen = layout.screen()
  if top + info.height + 2 * extra > screen.rows then return false end
  if left + info.width + 2 * extra > screen.cols then return false end
  if (info.leftcol or 0) ~= 0 or (info.textoff or 0) ~= 0 then return false end
  if info.width < laid_out.width then return false end
  if H.covered(win, { top, left, top + info.height + 2 * extra, left + info.width + 2 * extra }) then
    return false, 'covered'
  end
  return true
end

-- Helper functionality =======================================================

--- Whether another float drawn above `win` (same or higher 'zindex') overlaps `rect`
--- (`{ top, left, bottom, right }`, bottom and right exclusive, border included).
--- Rows drawn under it were not seen: its region is redrawn once it has gone.
function H.covered(win, rect)
  local z = vim.api.nvim_win_get_config(win).zindex or 50
  for _, other in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local cfg = other ~= win and vim.api.nvim_win_get_config(other)
    if cfg and cfg.relative ~= '' and not cfg.hide and (cfg.zindex or 50) >= z then
      local pos = vim.api.nvim_win_get_position(other) -- border included
      local b = cfg.border and 2 or 0 -- a border on any side is counted on both
      local top, left = pos[1], pos[2]
      local bottom = top + vim.api.nvim_win_get_height(other) + b
      local right = left + vim.api.nvim_win_get_width(other) + b
      if top < rect[3] and bottom > rect[1] and left < rect[4] and right > rect[2] then return true end
    end
  end
  return false
end

--- While `win` is covered, redraw it now and then: when the cover goes, Neovim only
--- puts the window's old picture back (nothing is drawn, so nothing would count).
function H.redraw_when_uncovered(win, state)
  if state.redraw_timer then return end
  state.redraw_timer = true
  vim.defer_fn(function()
    state.redraw_timer = nil
    if state.done or not vim.api.nvim_win_is_valid(win) then return end
    if vim.api.nvim__redraw then
      pcall(vim.api.nvim__redraw, { win = win, valid = false, flush = true })
    else
      vim.cmd('redraw!')
    end
  end, 200)
end

--- Update the footer after Neovim has drawn (it cannot change while Neovim draws).
function H.update_footer(win, state)
  if state.footer_pending then return end
  state.footer_pending = true
  vim.schedule(function()
    state.footer_pending = false
    if not state.done and vim.api.nvim_win_is_valid(win) then decision.set_footer(win, state) end
  end)
end

return M
