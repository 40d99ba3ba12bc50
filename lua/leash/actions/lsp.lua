--- Runs `lsp:<name>` items through `vim.lsp.buf.*` and `vim.lsp.inlay_hint` on the
--- current buffer. The only model text that reaches a server is the new name of
--- `lsp:rename` and the query of `lsp:workspace_symbols`, each as a plain string
--- parameter of the request.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Handler for the `lsp` prefix.
---@param entry table catalog entry
---@param step? table validated step
---@return boolean ok
---@return string? err
function M.handler(entry, step)
  local name = entry.id:match('^lsp:(.+)$')
  local fn = H.actions[name]
  if not fn then return false, ('leash: unknown LSP item %s'):format(tostring(name)) end
  local spec
  for _, a in ipairs(require('leash.catalog.lsp').actions) do
    if a.name == name then spec = a end
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local clients = vim.lsp.get_clients({ bufnr = bufnr })
  if not require('leash.catalog.lsp').supported(clients, spec.method, bufnr) then
    return false, ('leash: no language server attached here supports %s'):format(spec.method)
  end
  local args = step and step.args
  if type(args) == 'string' then args = { args } end
  if args == nil or args == vim.NIL then args = {} end
  local ok, err = pcall(fn, args, bufnr)
  if not ok then return false, 'leash: ' .. tostring(err) end
  if err then return false, err end
  return true
end

-- Helper functionality =======================================================

H.actions = {
  format = function(_, bufnr) vim.lsp.buf.format({ bufnr = bufnr, async = false }) end,
  rename = function(args)
    local new = args[1]
    if type(new) ~= 'string' or not new:match('^[^%c%s]+$') then
      return 'leash: a new name is one word without spaces or control characters'
    end
    vim.lsp.buf.rename(new)
  end,
  code_action = function() vim.lsp.buf.code_action() end,
  hover = function() vim.lsp.buf.hover() end,
  definition = function() vim.lsp.buf.definition() end,
  declaration = function() vim.lsp.buf.declaration() end,
  type_definition = function() vim.lsp.buf.type_definition() end,
  implementation = function() vim.lsp.buf.implementation() end,
  references = function() vim.lsp.buf.references() end,
  document_symbols = function() vim.lsp.buf.document_symbol() end,
  workspace_symbols = function(args)
    local q = args[1] or ''
    if q:find('%c') then return 'leash: the query contains a control character' end
    -- An empty string, not nil: nil would prompt with input().
    vim.lsp.buf.workspace_symbol(q)
  end,
  inlay_hints = function(_, bufnr)
    local on = vim.lsp.inlay_hint.is_enabled({ bufnr = bufnr })
    vim.lsp.inlay_hint.enable(not on, { bufnr = bufnr })
  end,
}

return M
