--- What keeps the plan window readable and its run key deliberate, whatever an earlier
--- plan or the user's setup changed.
---
--- A float starts with the local options of the window it was opened from and a
--- FileType handler may decorate it, so every option that changes how its text is drawn
--- is set to a known value and other decorations are cleared. It is drawn above
--- notifications. Keys typed before it was drawn were meant for something else: they are
--- discarded and run keys are ignored for a moment after it is first drawn. Where raw
--- control output may have changed the terminal and it cannot be reset
--- (|leash.ui.terminal|), the user is told that nothing runs from it.
local M = {}
local H = {}
local shared = require('leash.ui.confirm.state')

-- Module definition ==========================================================

-- Above notifiers' windows (snacks, nvim-notify, fidget, noice draw at 50–200).
M.zindex = 250

--- Set the buffer-local options of the window's buffer `buf`.
---@param buf integer
function M.set_buffer_options(buf)
  for name, value in pairs(H.buf_options) do
    pcall(vim.api.nvim_set_option_value, name, value, { buf = buf })
  end
end

--- Set every window-local option that changes how `win` draws its text to a known
--- value, give it the window's own colours and clear whatever else decorates `buf`.
---@param win integer
---@param buf integer
function M.set_window_options(win, buf)
  for _, o in ipairs(H.win_options) do
    local ok, info = pcall(vim.api.nvim_get_option_info2, o[1], {})
    if ok then
      -- A global-local option gets a local value only: its global value is the user's.
      pcall(vim.api.nvim_set_option_value, o[1], o[2], { win = win, scope = info.global_local and 'local' or nil })
    end
  end
  -- Its colours come from a private namespace filled before any plan could run
  -- (|leash.ui.confirm.highlights|): a `:highlight NormalFloat guifg=bg` from an earlier plan cannot make
  -- this window unreadable.
  vim.api.nvim_win_set_hl_ns(win, shared.ns)
  -- Nothing else may decorate the text: matches, other namespaces' extmarks, syntax
  -- items, a tree-sitter highlighter (a FileType handler may have added some).
  pcall(vim.fn.clearmatches, win)
  pcall(vim.api.nvim_buf_clear_namespace, buf, -1, 0, -1)
  local ts = package.loaded['vim.treesitter.highlighter']
  if ts and ts.active and ts.active[buf] then pcall(vim.treesitter.stop, buf) end
  vim.api.nvim_buf_call(buf, function() pcall(vim.cmd.syntax, 'clear') end)
end

--- Arm the run keys: the window is on screen now, so throw away what was typed before
--- and start the clock that keeps run keys ignored for `arm_ns`.
---@param state leash.PlanWindowState
function M.arm(state)
  H.discard_typeahead()
  state.armed_at = vim.uv.hrtime()
end

--- Whether the window has been on screen long enough for a key to be meant for it (a
--- monotonic clock).
---@param state leash.PlanWindowState
---@return boolean
function M.armed(state) return state.armed_at ~= nil and vim.uv.hrtime() - state.armed_at >= state.arm_ns end

--- Tell the user that nothing runs from this window: the terminal may hide part of it.
function M.warn_untrusted()
  require('leash.ui.notify').notify(
    'leash: nothing runs from this plan window: the terminal may hide part of it '
      .. "('isprint' let control characters be drawn raw, and this Neovim cannot reset the terminal: "
      .. "no nvim_ui_send()). leash set 'isprint' to its default while it is open. "
      .. 'Restart Neovim (or reset the terminal) and ask again.',
    vim.log.levels.WARN,
    { more = ':help leash-plan-terminal' }
  )
end

-- Helper data ================================================================

--- Every window-local option that changes how the window's text is drawn or scrolled, set
--- to a known value. A float starts with the local options of the window it was opened
--- from, so an earlier plan's `:set rightleft` (a safe setting) would mirror every row.
--- Global-local options get an explicit local value ('NONE', 0) so the global one does
--- not apply. Options a Neovim version lacks are skipped.
H.win_options = {
  { 'arabic', false },
  { 'rightleft', false },
  { 'rightleftcmd', 'search' },
  -- One buffer line is one screen row: the window lays its text out itself.
  { 'wrap', false },
  { 'linebreak', false },
  { 'breakindent', false },
  { 'breakindentopt', '' },
  { 'showbreak', 'NONE' },
  { 'smoothscroll', false },
  { 'list', false },
  { 'fillchars', 'eob: ' },
  { 'conceallevel', 0 },
  { 'concealcursor', '' },
  { 'spell', false },
  { 'cursorline', false },
  { 'cursorcolumn', false },
  { 'colorcolumn', '' },
  { 'number', false },
  { 'relativenumber', false },
  { 'signcolumn', 'no' },
  { 'foldcolumn', '0' },
  { 'statuscolumn', '' },
  { 'foldenable', false },
  { 'foldmethod', 'manual' },
  { 'foldlevel', 99 },
  { 'diff', false },
  { 'scrollbind', false },
  { 'cursorbind', false },
  { 'previewwindow', false },
  { 'virtualedit', 'NONE' },
  { 'scrolloff', 0 },
  { 'sidescrolloff', 0 },
  { 'scroll', 0 },
  -- A transparent or re-highlighted window would hide what <CR> is about to run.
  { 'winblend', 0 },
  { 'winhighlight', '' },
  -- A float ignores the global 'winbar' but shows a local one: it gets none.
  { 'winbar', '' },
  { 'eventignorewin', '' },
  { 'winfixbuf', true },
}

--- Buffer-local options that change how its text is drawn or what reads it.
H.buf_options = {
  bufhidden = 'wipe',
  swapfile = false,
  undolevels = -1,
  modeline = false,
  tabstop = 8,
  vartabstop = '',
  synmaxcol = 3000,
}

-- Helper functionality =======================================================

--- Throw away every key typed before the window was drawn (they sit in the typeahead
--- buffer, or still in the input queue while the main loop was busy): they were meant
--- for something else.
function H.discard_typeahead()
  for _ = 1, 100000 do
    if vim.fn.getchar(0) == 0 then return end
  end
end

return M
