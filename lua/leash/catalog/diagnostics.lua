--- Catalog source: diagnostics, id `diag:<action>`. Offered when the current buffer has
--- a language server attached or any diagnostic producer exists (a linter plugin also
--- reports through `vim.diagnostic`). Every item moves the cursor, fills a list or
--- toggles display state, so every item is `safe`. They run through `vim.diagnostic.*`
--- (lua/leash/actions/diagnostics.lua).
local M = {}

-- Module definition ==========================================================

--- Diagnostic items, or none when nothing produces diagnostics.
---@param opts? { bufnr?: integer }
---@return table[]
function M.entries(opts)
  local bufnr = opts and opts.bufnr or vim.api.nvim_get_current_buf()
  if #vim.lsp.get_clients({ bufnr = bufnr }) == 0 and next(vim.diagnostic.get_namespaces()) == nil then return {} end
  local out = {}
  for _, a in ipairs(M.actions) do
    out[#out + 1] = {
      id = 'diag:' .. a[1],
      kind = 'diagnostic',
      title = a[2],
      aliases = a.aliases,
      args = 'none',
      reach = 'safe',
      description = a.description,
    }
  end
  return out
end

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

return M
