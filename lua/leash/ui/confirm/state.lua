--- The plan window's state, in one place: the window waiting for a decision, the open
--- windows whose drawn rows are being recorded, and the namespaces the window draws with.
---
--- The window's modules (|leash.ui.confirm|) all read and write these here, so no module
--- holds a copy of its own that could go stale.
local M = {}

-- Module definition ==========================================================

---@class leash.PlanWindowState what one open plan window knows about itself
---@field plan_rows { [1]: string, [2]: string? }[][] its rows before layout (|leash.ui.confirm.content|)
---@field border { border?: string|string[], has_border: boolean }
---@field lines string[] the text shown, one entry per screen row
---@field seen table<integer, true> the rows (0-based) drawn while the window was wholly visible
---@field nseen integer how many rows were seen
---@field done boolean the window was closed
---@field marked boolean the plan has a marked step, so only `y` runs it
---@field plan_only boolean no key runs it (`:Do!`, or nothing to run)
---@field nothing boolean the plan has nothing to run
---@field refine boolean `e` edits the request
---@field untrusted boolean the terminal may hide part of the window and cannot be reset
---@field arm_ns number run keys are ignored for this long after `armed_at`
---@field armed_at? number when the window was first drawn (|vim.uv.hrtime()|)
---@field layout? table the last layout (|leash.ui.confirm.layout|)
---@field too_small? boolean the editor is too small to show the plan
---@field covered? boolean another float covers the window
---@field told_small? boolean the user was told the editor is too small
---@field redraw_timer? boolean a redraw is waiting for a cover to go
---@field footer_pending? boolean a footer update waits for Neovim to finish drawing
---@field update fun() lay the plan out again and show it

---@type leash.ConfirmHandle? the window waiting for a decision
M.current = nil

--- Open windows whose drawn rows are being recorded, by window id.
---@type table<integer, leash.PlanWindowState>
M.watched = {}

--- The window's own colours, copied before any plan could change them.
M.ns = vim.api.nvim_create_namespace('leash.plan_window')
--- The highlights of the window's text, placed by position.
M.ns_text = vim.api.nvim_create_namespace('LeashConfirm')
--- The decoration provider that records which rows were drawn.
M.ns_seen = vim.api.nvim_create_namespace('leash.plan_window.seen')

return M
