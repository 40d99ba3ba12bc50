--- Catalog source: language server features of the current buffer, id `lsp:<name>`.
--- An item is offered only when a client attached to the buffer supports its method
--- (`client:supports_method`), so the catalog changes as servers attach.
---
--- Reach:
--- - navigation, hover, symbols and the inlay hint toggle are `safe`: they move the
---   cursor, fill a list or show a float.
--- - `lsp:format` is `edit`: the server returns text edits for this buffer, and undo
---   reverts them.
--- - `lsp:rename` is `write`, not `edit`: the workspace edit a server returns may
---   rename, create or delete files (Neovim advertises and applies resource operations,
---   e.g. renaming a module renames its file), and it edits other files.
--- - `lsp:code_action` is `code`: an action may carry a command that the server (or a
---   client-side Lua handler) executes, which can do anything that server implements,
---   besides workspace edits with file operations.
--- Everything runs through `vim.lsp.buf.*` and `vim.lsp.inlay_hint` (no Ex commands);
--- see lua/leash/actions/lsp.lua.
local M = {}

-- Module definition ==========================================================

--- LSP items for `bufnr` (default: current buffer).
---@param opts? { bufnr?: integer }
---@return table[]
function M.entries(opts)
  local bufnr = opts and opts.bufnr or vim.api.nvim_get_current_buf()
  local clients = vim.lsp.get_clients({ bufnr = bufnr })
  if #clients == 0 then return {} end
  local out = {}
  for _, a in ipairs(M.actions) do
    if M.supported(clients, a.method, bufnr) then
      out[#out + 1] = {
        id = 'lsp:' .. a.name,
        kind = 'lsp',
        title = a.title,
        aliases = a.aliases,
        args = a.args or 'none',
        reach = a.reach,
        description = a.description,
      }
    end
  end
  return out
end

--- Whether any of `clients` supports `method` for `bufnr`.
---@param clients vim.lsp.Client[]
---@param method string
---@param bufnr integer
---@return boolean
function M.supported(clients, method, bufnr)
  for _, c in ipairs(clients) do
    local ok, yes
    if vim.fn.has('nvim-0.11') == 1 then
      ok, yes = pcall(c.supports_method, c, method, bufnr)
    else
      ok, yes = pcall(c.supports_method, method, { bufnr = bufnr })
    end
    if ok and yes then return true end
  end
  return false
end

--- Item name → LSP method, title, reach. Shared with the action module.
M.actions = {
  {
    name = 'format',
    method = 'textDocument/formatting',
    title = 'format the current file with the language server',
    reach = 'edit',
    aliases = { 'format this file', 'format document', 'prettify', 'fix indentation' },
    description = 'Formats the whole buffer with the attached language server (vim.lsp.buf.format).',
  },
  {
    name = 'rename',
    method = 'textDocument/rename',
    title = 'rename the symbol under the cursor',
    args = 'required',
    reach = 'write', -- see the file header: a workspace edit may rename or delete files
    aliases = { 'rename symbol', 'rename variable', 'rename function', 'refactor name' },
    description = 'Renames the symbol under the cursor everywhere to the new name (the argument), through the language server.',
  },
  {
    name = 'code_action',
    method = 'textDocument/codeAction',
    title = 'code actions: quick fixes and refactorings at the cursor',
    reach = 'code', -- see the file header: actions may run server commands
    aliases = { 'quick fix', 'fix this', 'refactor', 'organize imports' },
    description = 'Lists the language server code actions at the cursor and lets you choose one.',
  },
  {
    name = 'hover',
    method = 'textDocument/hover',
    title = 'show documentation of the symbol under the cursor',
    reach = 'safe',
    aliases = { 'hover', 'docs', 'type of this', 'what is this' },
    description = 'Shows the hover information (type, documentation) in a float.',
  },
  {
    name = 'definition',
    method = 'textDocument/definition',
    title = 'go to definition',
    reach = 'safe',
    aliases = { 'jump to definition', 'where is this defined' },
    description = 'Jumps to where the symbol under the cursor is defined.',
  },
  {
    name = 'declaration',
    method = 'textDocument/declaration',
    title = 'go to declaration',
    reach = 'safe',
    aliases = { 'jump to declaration' },
    description = 'Jumps to the declaration of the symbol under the cursor.',
  },
  {
    name = 'type_definition',
    method = 'textDocument/typeDefinition',
    title = 'go to type definition',
    reach = 'safe',
    aliases = { 'jump to type' },
    description = 'Jumps to the definition of the type of the symbol under the cursor.',
  },
  {
    name = 'implementation',
    method = 'textDocument/implementation',
    title = 'go to implementation',
    reach = 'safe',
    aliases = { 'find implementations' },
    description = 'Lists or jumps to the implementations of the symbol under the cursor.',
  },
  {
    name = 'references',
    method = 'textDocument/references',
    title = 'find references of the symbol under the cursor',
    reach = 'safe',
    aliases = { 'find usages', 'where is this used', 'who calls this' },
    description = 'Lists every reference to the symbol under the cursor in the quickfix list.',
  },
  {
    name = 'document_symbols',
    method = 'textDocument/documentSymbol',
    title = 'list the symbols of the current file',
    reach = 'safe',
    aliases = { 'outline', 'functions in this file', 'document symbols' },
    description = 'Lists functions, types and other symbols of this file in the location list.',
  },
  {
    name = 'workspace_symbols',
    method = 'workspace/symbol',
    title = 'search symbols in the workspace',
    args = 'optional',
    reach = 'safe',
    aliases = { 'find symbol', 'workspace symbols', 'search class or function' },
    description = 'Searches symbols across the project matching the argument and lists them in the quickfix list.',
  },
  {
    name = 'inlay_hints',
    method = 'textDocument/inlayHint',
    title = 'toggle inlay hints',
    reach = 'safe',
    aliases = { 'show type hints', 'hide inlay hints', 'parameter hints' },
    description = 'Turns the language server inlay hints (inline types and parameter names) on or off for this buffer.',
  },
}

return M
