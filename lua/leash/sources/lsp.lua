--- Source: language server features of the current buffer, id `lsp:<name>`: their
--- catalog entries and how a step of one runs.
---
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
---
--- A step runs through `vim.lsp.buf.*` and `vim.lsp.inlay_hint` on the current buffer
--- (no Ex commands). The only model text that reaches a server is the new name of
--- `lsp:rename` and the query of `lsp:workspace_symbols`, each as a plain string
--- parameter of the request.
---
--- The jumps (definition, declaration, type definition, implementation) wait for the
--- server's answer here, with a deadline, instead of in a handler that runs after the
--- step: opening the target starts what the user's setup does for a new buffer, and
--- that must happen inside the process guard (design rule 7). The target is a name the
--- model did not write but the step's effect depends on, so it is checked like one:
--- `file:` URIs only, and the argument filter's name rules (no `+cmd`, `!`, `|`, backtick
--- or URL-like name). What an autocommand does on opening it runs inside the guard.
local M = {}
local H = {}
-- Interpreted, not compiled: its loops run once per request and call Neovim's C API at
-- every turn, which ends LuaJIT's traces; compiling them cost more than it saved (the
-- first :Do of a session spent milliseconds on it, scripts/bench-do).
if jit then jit.off(true, true) end

-- Module definition ==========================================================

-- Its name and the id prefix of its items (|leash.Source|).
M.name, M.prefix = 'lsp', 'lsp'

--- LSP items for `ctx.bufnr` (default: current buffer).
---@param ctx? leash.SourceContext
---@return table[]
function M.entries(ctx)
  local bufnr = ctx and ctx.bufnr or vim.api.nvim_get_current_buf()
  -- No client runs before vim.lsp is loaded: loading it only to ask costs milliseconds.
  local clients = package.loaded['vim.lsp'] and vim.lsp.get_clients({ bufnr = bufnr }) or {}
  local supported = {}
  if #clients > 0 then
    for _, a in ipairs(M.actions) do
      if M.supported(clients, a.method, bufnr) then supported[#supported + 1] = a end
    end
  end
  -- The same list as last time when the same items are supported (|leash.catalog| then
  -- compares nothing more).
  local key = table.concat(vim.tbl_map(function(a) return a.name end, supported), ',')
  if key == H.last.key then return H.last.list end
  local out = {}
  for _, a in ipairs(supported) do
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
  H.last = { key = key, list = out }
  return out
end

--- Run a step of an `lsp:` item.
---@param entry table catalog entry
---@param step? table validated step
---@return boolean ok
---@return string? err
function M.run(entry, step)
  local name = entry.id:match('^lsp:(.+)$')
  local fn = H.runs[name]
  if not fn then return false, ('leash: unknown LSP item %s'):format(tostring(name)) end
  local spec
  for _, a in ipairs(M.actions) do
    if a.name == name then spec = a end
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local clients = vim.lsp.get_clients({ bufnr = bufnr })
  if not M.supported(clients, spec.method, bufnr) then
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

--- Item name → LSP method, title, reach: what is listed, and what a step checks.
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

--- How long a jump or a format waits for the language server, in milliseconds.
M.jump_ms = 5000

-- Helper functionality =======================================================

--- Ask the servers for `method` at the cursor and jump (one place) or fill the quickfix
--- list (several), now. Returns an error message or nil.
function H.jump(bufnr, method, what)
  local win = vim.api.nvim_get_current_win()
  local results = vim.lsp.buf_request_sync(
    bufnr,
    method,
    function(client) return vim.lsp.util.make_position_params(win, client.offset_encoding) end,
    M.jump_ms
  )
  if not results then
    return ('leash: the language server did not answer within %d s (%s)'):format(M.jump_ms / 1000, what)
  end
  local places = {}
  for client_id, r in pairs(results) do
    local client = vim.lsp.get_client_by_id(client_id)
    local res = r.result
    if res and not vim.islist(res) then res = { res } end
    for _, loc in ipairs(res or {}) do
      places[#places + 1] = { loc = loc, encoding = client and client.offset_encoding or 'utf-16' }
    end
  end
  if #places == 0 then return ('leash: the language server found no %s here'):format(what) end
  for _, p in ipairs(places) do
    local why = H.check_target(p.loc.uri or p.loc.targetUri)
    if why then return why end
  end
  if #places == 1 then
    vim.lsp.util.show_document(places[1].loc, places[1].encoding, { focus = true })
    return nil
  end
  local items = {}
  for _, p in ipairs(places) do
    vim.list_extend(items, vim.lsp.util.locations_to_items({ p.loc }, p.encoding))
  end
  vim.fn.setqflist({}, ' ', { title = 'leash: ' .. what, items = items })
  vim.cmd('botright copen')
end

--- Rename the symbol at the cursor to `new` now: ask the servers with a deadline and
--- apply the first answer's edits inside the step (so inside the process guard).
function H.rename(new)
  local win, bufnr = vim.api.nvim_get_current_win(), vim.api.nvim_get_current_buf()
  local deadline = vim.uv.hrtime() + M.jump_ms * 1e6
  -- A server still reading the project answers "nothing" (null): ask again until the
  -- deadline.
  while true do
    local left = math.floor((deadline - vim.uv.hrtime()) / 1e6)
    if left <= 0 then return 'leash: the language server found nothing to rename here' end
    local results = vim.lsp.buf_request_sync(bufnr, 'textDocument/rename', function(client)
      local params = vim.lsp.util.make_position_params(win, client.offset_encoding)
      params.newName = new
      return params
    end, left)
    if not results then
      return ('leash: the language server did not answer within %d s (rename)'):format(M.jump_ms / 1000)
    end
    for client_id, r in pairs(results) do
      local client = vim.lsp.get_client_by_id(client_id)
      if r.err then return 'leash: the language server could not rename: ' .. tostring(r.err.message or r.err) end
      if r.result and client then
        vim.lsp.util.apply_workspace_edit(r.result, client.offset_encoding)
        return nil
      end
    end
    vim.wait(250)
  end
end

--- Why a jump target may not be opened, or nil.
function H.check_target(uri)
  local text = require('leash.text')
  if type(uri) ~= 'string' or not uri:find('^file:') then
    return ('leash: the language server pointed at “%s”, which is not a file'):format(text.visible(tostring(uri)))
  end
  local name = vim.uri_to_fname(uri)
  local why = require('leash.policy').check_file_name(name)
  if why then return ('leash: the jump target is refused: %s'):format(why) end
end

-- The last list made and the names of the items in it.
H.last = { key = nil, list = {} }

-- How each item runs, by name.
H.runs = {
  -- Neovim's default of 1 s is too short for a language server that has just started.
  format = function(_, bufnr) vim.lsp.buf.format({ bufnr = bufnr, async = false, timeout_ms = M.jump_ms }) end,
  rename = function(args)
    local new = args[1]
    if type(new) ~= 'string' or not new:match('^[^%c%s]+$') then
      return 'leash: a new name is one word without spaces or control characters'
    end
    return H.rename(new)
  end,
  code_action = function() vim.lsp.buf.code_action() end,
  hover = function() vim.lsp.buf.hover() end,
  definition = function(_, bufnr) return H.jump(bufnr, 'textDocument/definition', 'definition') end,
  declaration = function(_, bufnr) return H.jump(bufnr, 'textDocument/declaration', 'declaration') end,
  type_definition = function(_, bufnr) return H.jump(bufnr, 'textDocument/typeDefinition', 'type definition') end,
  implementation = function(_, bufnr) return H.jump(bufnr, 'textDocument/implementation', 'implementation') end,
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
