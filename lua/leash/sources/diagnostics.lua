--- Source: diagnostics, id `diag:<action>`: their catalog entries and how a step of one
--- runs. Offered when the current buffer has a language server attached or any
--- diagnostic producer exists (a linter plugin also reports through `vim.diagnostic`).
--- Every item moves the cursor, fills a list or toggles display state, so every item is
--- `safe`. They run through `vim.diagnostic.*`.
local M = {}
local H = {}

-- Module definition ==========================================================

-- Its name and the id prefix of its items (|leash.Source|).
M.name, M.prefix = 'diagnostics', 'diag'

--- Diagnostic items for `ctx.bufnr` (default: current buffer), or none when nothing
--- produces diagnostics.
---@param ctx? leash.SourceContext
---@return table[]
function M.entries(ctx)
  local bufnr = ctx and ctx.bufnr or vim.api.nvim_get_current_buf()
  -- Neither a language server nor any other producer exists before its module is loaded:
  -- loading them only to ask costs milliseconds.
  local clients = package.loaded['vim.lsp'] and #vim.lsp.get_clients({ bufnr = bufnr }) or 0
  if clients == 0 and not (package.loaded['vim.diagnostic'] and next(vim.diagnostic.get_namespaces())) then
    return H.none
  end
  -- Made once: the same list every time (|leash.catalog| then compares nothing more).
  if not H.items then
    H.items = {}
    for _, a in ipairs(M.actions) do
      H.items[#H.items + 1] = {
        id = 'diag:' .. a[1],
        kind = 'diagnostic',
        title = a[2],
        aliases = a.aliases,
        args = 'none',
        reach = 'safe',
        description = a.description,
      }
    end
  end
  return H.items
end

--- Run a step of a `diag:` item.
---@param entry table catalog entry
---@param step? table validated step (no arguments)
---@return boolean ok
---@return string? err
function M.run(entry, step)
  local _ = step
  local fn = H.runs[entry.id:match('^diag:(.+)$') or '']
  if not fn then return false, ('leash: unknown diagnostic item %s'):format(entry.id) end
  local ok, err = pcall(fn)
  if not ok then return false, 'leash: ' .. tostring(err) end
  return true
end

--- Item name, title, aliases and description.
M.actions = {
  {
    'next',
    'go to the next diagnostic (error or warning)',
    aliases = { 'next error', 'next warning', 'next problem' },
    description = 'Moves the cursor to the next diagnostic and shows it in a float.',
  },
  {
    'prev',
    'go to the previous diagnostic (error or warning)',
    aliases = { 'previous error', 'previous warning', 'last problem' },
    description = 'Moves the cursor to the previous diagnostic and shows it in a float.',
  },
  {
    'quickfix',
    'put all diagnostics in the quickfix list',
    aliases = { 'list errors', 'show all problems', 'errors to quickfix' },
    description = 'Fills the quickfix list with the diagnostics of every buffer and opens it.',
  },
  {
    'loclist',
    'put the diagnostics of this file in the location list',
    aliases = { 'list errors in this file', 'problems in this buffer' },
    description = 'Fills the location list with the diagnostics of the current buffer and opens it.',
  },
  {
    'toggle',
    'toggle diagnostics on or off',
    aliases = { 'hide errors', 'show errors', 'disable diagnostics', 'enable diagnostics' },
    description = 'Turns the display of diagnostics on or off everywhere.',
  },
  {
    'show',
    'show the diagnostics of the current line',
    aliases = { 'what is this error', 'explain error' },
    description = 'Opens a float with the full diagnostic messages at the cursor line.',
  },
}

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

-- The items (made on first use) and the empty list, each the same table every time.
H.items, H.none = nil, {}

-- How each item runs, by name.
H.runs = {
  next = function() H.jump(1) end,
  prev = function() H.jump(-1) end,
  quickfix = function() vim.diagnostic.setqflist({ open = true }) end,
  loclist = function() vim.diagnostic.setloclist({ open = true }) end,
  toggle = function() vim.diagnostic.enable(not vim.diagnostic.is_enabled()) end,
  show = function() vim.diagnostic.open_float({ scope = 'line' }) end,
}

return M
