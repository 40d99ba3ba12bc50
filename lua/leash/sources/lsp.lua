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
---   e.g. renaming a module renames its file), and it edits other files. What the server
---   answers is checked before anything of it is applied (|M.check_edit()|): every file
---   must be a `file:` URI whose name passes the argument filter and lies in this
---   project, and a file it creates or moves to must not land in a folder Neovim loads
---   code from (that would be `code`, not the `write` the window showed). A refused edit
---   applies nothing. The window says this before the step runs; the message after it
---   names the files it created, moved or deleted.
--- - `lsp:code_action` is `code`: an action may carry a command that the server (or a
---   client-side Lua handler) executes, which can do anything that server implements,
---   besides workspace edits with file operations. When the plan window previews it
---   (|leash.preview|), the person picks the action before the window opens and the step
---   applies that action, resolved, as shown: its edit checked like a rename's, then its
---   command, inside the process guard like the step. Otherwise the actions are asked
---   for inside the step, and the one the person picks afterwards runs inside the process
---   guard as part of the step (|leash.guard.bind()|). Either way an edit the server
---   sends while the command runs (up to 5 s) is checked too.
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
      window_note = a.window_note,
    }
  end
  H.last = { key = key, list = out }
  return out
end

--- Run a step of an `lsp:` item. A format, rename or code action whose edit the plan window showed
--- (|leash.preview|, `ctx.shown_edit`) applies exactly that edit, once no buffer it
--- changes was edited since; the server is not asked again.
---@param entry table catalog entry
---@param step? table validated step
---@param ctx? leash.ExecContext
---@return boolean ok
---@return string? err
function M.run(entry, step, ctx)
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
  local shown = ctx and ctx.shown_edit
  if shown and shown.name == name and shown.result ~= nil then return H.apply_shown(shown) end
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
    if H.method_api then
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
    window_note = 'the language server’s answer may also create, move or delete files: only files of this project, none where Neovim loads code from, or nothing is applied',
    aliases = { 'rename symbol', 'rename variable', 'rename function', 'refactor name' },
    description = 'Renames the symbol under the cursor everywhere to the new name (the argument), through the language server.',
  },
  {
    name = 'code_action',
    method = 'textDocument/codeAction',
    title = 'code actions: quick fixes and refactorings at the cursor',
    reach = 'code', -- see the file header: actions may run server commands
    window_note = 'the action you pick runs inside the process guard, its file changes checked like a rename’s',
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

-- Helper data ================================================================

-- Whether `client:supports_method()` is a method (Neovim 0.11 on): asked once, not per
-- action and client on every request.
H.method_api = vim.fn.has('nvim-0.11') == 1

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
      if r.result and client then return H.apply_edit(r.result, client.offset_encoding, 'rename') end
    end
    vim.wait(250)
  end
end

--- Why the workspace edit `edit` may not be applied, or nil, and what it does to files
--- (`renames a.py → b.py`…) for the message after it. Every file must be a `file:` URI
--- whose name passes the argument filter and lies in this project; a file it creates or
--- moves to must not land in a folder Neovim loads code from.
---@param edit table a WorkspaceEdit
---@return string? why
---@return string[] ops
function M.check_edit(edit)
  local text = require('leash.text')
  local ops = {}
  if type(edit) ~= 'table' then return 'it is not a workspace edit', ops end
  local function check(uri, what, code_folders)
    if type(uri) ~= 'string' or not uri:find('^file:') then
      return ('it %s “%s”, which is not a file'):format(what, text.visible(tostring(uri)))
    end
    local name = vim.uri_to_fname(uri)
    local why = require('leash.policy').check_file_name(name)
    if why then return why end
    local land, err = require('leash.code_dirs').check_path(name, { code_folders = code_folders })
    return err or land
  end
  local function shown(uri) return text.visible(vim.fn.fnamemodify(vim.uri_to_fname(uri), ':~:.')) end
  for uri in pairs(type(edit.changes) == 'table' and edit.changes or {}) do
    local why = check(uri, 'edits', false)
    if why then return why, ops end
  end
  for _, c in ipairs(type(edit.documentChanges) == 'table' and edit.documentChanges or {}) do
    local why
    if type(c) ~= 'table' then
      why = 'it holds a change that is not one'
    elseif c.kind == 'create' then
      why = check(c.uri, 'creates', true)
      ops[#ops + 1] = not why and ('created ' .. shown(c.uri)) or nil
    elseif c.kind == 'rename' then
      why = check(c.oldUri, 'moves', false) or check(c.newUri, 'moves a file to', true)
      ops[#ops + 1] = not why and ('moved %s → %s'):format(shown(c.oldUri), shown(c.newUri)) or nil
    elseif c.kind == 'delete' then
      why = check(c.uri, 'deletes', false)
      ops[#ops + 1] = not why and ('deleted ' .. shown(c.uri)) or nil
    elseif type(c.textDocument) == 'table' then
      why = check(c.textDocument.uri, 'edits', false)
    else
      why = ('it holds a change of a kind leash does not know (%s)'):format(text.visible(tostring(c.kind)))
    end
    if why then return why, ops end
  end
  return nil, ops
end

--- Check `edit` (|M.check_edit()|), then apply it; an error message when it was refused
--- (nothing applied), else nil. The files it created, moved or deleted are said after.
function H.apply_edit(edit, encoding, what)
  local why, ops = M.check_edit(edit)
  if why then
    return ('leash: the language server’s %s was refused, nothing of it was applied: %s'):format(what, why)
  end
  H.apply_original(edit, encoding)
  if #ops > 0 then
    require('leash.ui.notify').notify(('leash: the language server’s %s %s'):format(what, table.concat(ops, ', ')))
  end
end

--- Neovim's own apply, as it was before leash checked edits (see H.checked_edits).
function H.apply_original(edit, encoding)
  local apply = H.saved_apply or vim.lsp.util.apply_workspace_edit
  return apply(edit, encoding)
end

--- Run `fn` with every workspace edit a server sends meanwhile (`workspace/applyEdit`
--- while its command runs) checked like a rename's: a refused one is not applied, and the
--- server is told why.
function H.checked_edits(fn)
  local util = vim.lsp.util
  if H.saved_apply then return fn() end
  H.saved_apply = util.apply_workspace_edit
  local refused
  util.apply_workspace_edit = function(edit, encoding)
    local err = H.apply_edit(edit, encoding, 'edit')
    if err then
      refused = err
      error(err, 0)
    end
  end
  local ok, res = pcall(fn)
  util.apply_workspace_edit, H.saved_apply = H.saved_apply, nil
  if not ok then error(res, 0) end
  return refused
end

--- Ask the servers for the code actions at the cursor now, and let the person pick one;
--- the one picked runs inside the process guard as part of this step.
function H.code_action(bufnr)
  local win = vim.api.nvim_get_current_win()
  local lnum = vim.api.nvim_win_get_cursor(win)[1] - 1
  local results = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', function(client)
    local params = vim.lsp.util.make_range_params(win, client.offset_encoding)
    local diagnostics = vim.diagnostic.get(bufnr, { lnum = lnum })
    params.context = { diagnostics = vim.lsp.diagnostic.from(diagnostics), triggerKind = 1 }
    return params
  end, M.jump_ms)
  if not results then
    return ('leash: the language server did not answer within %d s (code actions)'):format(M.jump_ms / 1000)
  end
  local items = {}
  for client_id, r in pairs(results) do
    for _, action in ipairs(type(r.result) == 'table' and r.result or {}) do
      items[#items + 1] = { client_id = client_id, action = action }
    end
  end
  if #items == 0 then return 'leash: the language server has no code action here' end
  local text = require('leash.text')
  local run = require('leash.guard').bind(function(item) H.run_action(item, bufnr) end)
  vim.ui.select(items, {
    prompt = 'Code actions:',
    kind = 'codeaction',
    format_item = function(item) return text.visible(tostring(item.action.title)) end,
  }, function(choice)
    if choice then run(choice) end
  end)
end

--- Run a picked code action: resolve it if the server wants that, apply its edit
--- (checked), then run its command with the server's edits checked too. Problems are
--- reported as messages: the plan has moved on.
function H.run_action(item, bufnr)
  local notify = require('leash.ui.notify').notify
  local client = vim.lsp.get_client_by_id(item.client_id)
  if not client then
    return notify('leash: the language server of that code action has stopped', vim.log.levels.ERROR)
  end
  local action = item.action
  if type(action.command) == 'string' then
    action = { title = action.title, command = action } -- a bare Command
  elseif not action.edit and client:supports_method('codeAction/resolve') then
    local r = client:request_sync('codeAction/resolve', action, M.jump_ms, bufnr)
    if r and type(r.result) == 'table' then action = r.result end
  end
  if action.edit then
    local err = H.apply_edit(action.edit, client.offset_encoding, 'code action')
    if err then return notify(err, vim.log.levels.ERROR) end
  end
  local command = type(action.command) == 'table' and action.command or nil
  if not command then return end
  local refused = H.run_command(client, command, bufnr)
  if refused then notify(refused, vim.log.levels.ERROR) end
end

--- Apply the edit the plan window showed, as the server gave it.
---@param a leash.ServerEdit
function H.apply_shown(a)
  if not vim.lsp.get_client_by_id(a.client_id) then
    return false, 'leash: the language server whose edit was shown has stopped'
  end
  for b, tick in pairs(a.ticks) do
    if not vim.api.nvim_buf_is_valid(b) or vim.api.nvim_buf_get_changedtick(b) ~= tick then
      return false, 'leash: a buffer the language server’s edit changes was edited after the preview'
    end
  end
  if a.name == 'code_action' then return H.apply_action(a) end
  if a.name ~= 'format' then
    -- A rename's workspace edit is checked like any other (|M.check_edit()|): files it
    -- creates, moves or deletes, and files outside the project.
    local ok, refused = pcall(H.apply_edit, a.result, a.encoding, a.name)
    if not ok then return false, 'leash: ' .. tostring(refused) end
    if refused then return false, refused end
    return true
  end
  local ok, err = pcall(function()
    if #a.result > 0 then vim.lsp.util.apply_text_edits(a.result, a.buf, a.encoding) end
  end)
  if not ok then return false, 'leash: ' .. tostring(err) end
  return true
end

--- Apply the code action the plan window showed: its edit (checked, as a rename's), then
--- its command, which runs in the server; the action is not asked for or resolved again.
---@param a leash.ServerEdit
function H.apply_action(a)
  local client = vim.lsp.get_client_by_id(a.client_id)
  local action = a.result
  if type(action.edit) == 'table' then
    local ok, refused = pcall(H.apply_edit, action.edit, a.encoding, 'code action')
    if not ok then return false, 'leash: ' .. tostring(refused) end
    if refused then return false, refused end
  end
  local command = type(action.command) == 'table' and action.command or nil
  if command then
    local ok, refused = pcall(H.run_command, client, command, a.buf)
    if not ok then return false, 'leash: ' .. tostring(refused) end
    if refused then return false, refused end
  end
  return true
end

--- Run a code action's command (a client-side handler, or `workspace/executeCommand` in
--- the server) with every edit the server sends meanwhile checked; the refusal, if one
--- was refused.
function H.run_command(client, command, bufnr)
  return H.checked_edits(function()
    local fn = client.commands[command.command] or vim.lsp.commands[command.command]
    if fn then return fn(command, { bufnr = bufnr, client_id = client.id }) end
    client:request_sync('workspace/executeCommand', {
      command = command.command,
      arguments = command.arguments,
    }, M.jump_ms, bufnr)
  end)
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
  code_action = function(_, bufnr) return H.code_action(bufnr) end,
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
