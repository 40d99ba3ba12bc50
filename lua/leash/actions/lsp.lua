--- Runs `lsp:<name>` items through `vim.lsp.buf.*` and `vim.lsp.inlay_hint` on the
--- current buffer. The only model text that reaches a server is the new name of
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

H.actions = {
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
