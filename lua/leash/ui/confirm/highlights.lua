--- The plan window's colours, fixed before any plan could change them.
---
--- A plan may run `:highlight` (a colour scheme is code and confirmed, but a single
--- `:highlight NormalFloat guifg=bg` could make the next window unreadable). So the
--- window draws from a private namespace: every group it uses is copied there when the
--- window's module (|leash.ui.confirm|) is first loaded in a session and again on
--- |ColorScheme| (the user's choice).
local M = {}
local H = {}
local shared = require('leash.ui.confirm.state')

-- Module definition ==========================================================

--- Copy the window's groups, links resolved, into its namespace. Runs when the window's
--- module is first loaded in a session (before the first plan is run: deciding whether a
--- window is needed loads it) and again on |ColorScheme| (the user's choice; a plan that
--- changes the colour scheme is code and always confirmed).
function M.snapshot()
  M.create_defaults()
  for _, name in ipairs(H.window_groups) do
    local ok, def = pcall(vim.api.nvim_get_hl, 0, { name = name, link = false })
    if ok and type(def) == 'table' then vim.api.nvim_set_hl(shared.ns, name, def) end
  end
end

--- Define the window's own groups (`LeashConfirm*`) as links, where the user or the
--- colour scheme has not defined them.
function M.create_defaults()
  local links = {
    LeashConfirmReply = 'Normal',
    LeashConfirmHeading = 'Title',
    LeashConfirmWhy = 'Comment',
    LeashConfirmDropped = 'Comment',
    LeashConfirmUnchanged = 'Comment',
    LeashConfirmCommand = 'Normal',
    LeashConfirmWrite = 'DiagnosticWarn',
    LeashConfirmCode = 'DiagnosticWarn',
    LeashConfirmPlugin = 'DiagnosticError',
    LeashConfirmShell = 'DiagnosticError',
    LeashConfirmKeys = 'Special',
    LeashConfirmAdded = 'Added',
    LeashConfirmRemoved = 'Removed',
  }
  for name, link in pairs(links) do
    vim.api.nvim_set_hl(0, name, { link = link, default = true })
  end
end

--- Take the snapshot once per Neovim process and again on every |ColorScheme|.
--- Reloading the window's modules (plugin managers, tests) after a plan ran must not copy
--- colours that plan may have changed.
function M.setup()
  if not debug.getregistry()['leash.plan_window.colours'] then
    M.snapshot()
    debug.getregistry()['leash.plan_window.colours'] = true
  end
  vim.api.nvim_create_autocmd('ColorScheme', {
    group = vim.api.nvim_create_augroup('LeashConfirmColors', { clear = true }),
    callback = function() M.snapshot() end,
    desc = 'leash: refresh the plan window colours',
  })
end

-- Helper data ================================================================

--- The groups the plan window draws with, copied into its own namespace. A group the
--- namespace lacks is taken from the global one, so every group Neovim may draw in a
--- float is here: with 'hlsearch' on, an earlier plan's `:highlight Search guifg=bg`
--- would otherwise hide each match of the last search pattern.
H.window_groups = {
  'Normal',
  'NormalFloat',
  'NormalNC',
  'FloatBorder',
  'FloatTitle',
  'FloatFooter',
  'EndOfBuffer',
  'NonText',
  'Search',
  'CurSearch',
  'IncSearch',
  'Substitute',
  'Visual',
  'VisualNOS',
  'MatchParen',
  'Conceal',
  'SpecialKey',
  'Whitespace',
  'Cursor',
  'lCursor',
  'CursorIM',
  'TermCursor',
  'CursorLine',
  'CursorColumn',
  'ColorColumn',
  'QuickFixLine',
  'Folded',
  'FoldColumn',
  'SignColumn',
  'LineNr',
  'LineNrAbove',
  'LineNrBelow',
  'CursorLineNr',
  'CursorLineFold',
  'CursorLineSign',
  'SpellBad',
  'SpellCap',
  'SpellLocal',
  'SpellRare',
  'DiffAdd',
  'DiffChange',
  'DiffDelete',
  'DiffText',
  'WinBar',
  'WinBarNC',
  'LeashConfirmReply',
  'LeashConfirmHeading',
  'LeashConfirmWhy',
  'LeashConfirmDropped',
  'LeashConfirmUnchanged',
  'LeashConfirmCommand',
  'LeashConfirmWrite',
  'LeashConfirmCode',
  'LeashConfirmPlugin',
  'LeashConfirmShell',
  'LeashConfirmKeys',
  'LeashConfirmAdded',
  'LeashConfirmRemoved',
}

return M
