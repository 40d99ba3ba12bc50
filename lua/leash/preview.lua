--- The plan window's dry run: what each step that changes text does, computed on a copy
--- of the buffer before the person decides, and shown under the step as a compact diff.
---
--- The core decides which steps may be dry-run (|leash.native| `preview_steps`: builtin
--- commands that change only the current buffer's text, from that text and a few
--- options: `:substitute` whose replacement evaluates nothing, `:sort`, `:retab`, `:>`,
--- `:join`, `:delete`, `:move`, `:global` with one of those…) and why the others are not.
--- Those steps run here, in order, each on the result of the one before, with the same
--- call (|leash.sources.commands| `call()`), arguments and range the executor uses, on a
--- scratch buffer that holds a copy of the current buffer's lines, its text options and
--- its marks `a`–`z`. After each step only the lines it changed are read back (the
--- scratch buffer's change reports say which).
---
--- What the dry run never touches: the real buffer (its text, undo tree, marks,
--- 'modified', folds), the jumplist and cursor of any window, the files on disk, the
--- last search pattern and search history (`keeppatterns`), the registers and the
--- clipboard (saved and put back; 'clipboard' is empty while it runs, so no provider
--- starts), and every autocommand ('eventignore' is `all` while it runs). It runs no
--- expression and starts no program: the core refuses to dry-run any step that could.
--- One thing it does change, as typing the command would: what `&`, `:&&` and `~` repeat
--- (the last substitute string and its flags), which Neovim offers no way to read back.
---
--- A language server's format, rename or code action that comes before any other step
--- that changes text is not dry-run but asked for (|M.ask()|) before the window opens:
--- the window shows the server's edit, file by file, and the step applies exactly that
--- edit (|leash.sources.lsp|), never a second answer that could differ. For a code
--- action the person picks the action first; it is resolved (`codeAction/resolve`) when
--- the server sends it without its edit. A command the action carries runs in the
--- server when the step runs: the window says it is not previewed.
---
--- What runs is what was previewed: |M.changed()| says when the buffer, or the cursor
--- that a step's default range depends on, moved on since (the window is shown again
--- with a fresh preview), and |M.differs()| compares the buffer after the run with the
--- copy, where every step was dry-run.
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.Preview
---@field buf integer the buffer whose copy the steps ran on
---@field tick integer its |b:changedtick| then
---@field cursor integer[] the cursor then, `{ line, col }`
---@field effects table<integer, table> by step position: what the dry run found
---@field ran boolean some step was dry-run
---@field whole boolean every step was dry-run or is a setting: the buffer after the run must equal `final`
---@field final? string[] the copy's text after the last step
---@field server table<integer, leash.ServerEdit> by step position: the language server's edit shown, which the step applies

---@class leash.ServerEdit
---@field name 'format'|'rename'|'code_action'
---@field client_id integer
---@field encoding string the client's position encoding
---@field buf integer the buffer it was asked for
---@field ticks table<integer, integer> |b:changedtick| of each loaded buffer the edit changes, when it was asked
---@field result? table the server's answer: text edits (format), a workspace edit (rename), the picked code action, resolved (code action)
---@field why? string why there is no edit to show
---@field pending? boolean still waiting for the answer
---@field picking? boolean a code action: the person is picking one (no deadline meanwhile)

--- Buffers larger than this are not copied: the window says so instead.
M.max_lines = 100000
M.max_bytes = 16 * 1024 * 1024

--- Changed lines shown under a step before `=` shows more, and at most after it.
M.fold = 12
M.max_shown = 2000

--- Longest text shown of one changed line, in bytes.
M.max_line_bytes = 200

--- How long the window waits for a language server's edit, in milliseconds.
M.server_ms = 5000

--- Ask the language servers for the edits of the plan's format, rename and code action
--- steps that may be asked now (the core says which), then call `done(answers)` (by step
--- position) on the main loop: when every server answered, at the latest after
--- |M.server_ms| (not counting the time the person takes to pick a code action). The
--- editor does not wait: the requests are sent and answered asynchronously.
---@param plan table validated plan
---@param done fun(answers: table<integer, leash.ServerEdit>)
function M.ask(plan, done)
  local ok, answer = require('leash.native').call('preview_steps', 'preview the plan', plan)
  local steps = type(plan) == 'table' and type(plan.steps) == 'table' and plan.steps or {}
  local answers, pending, finished = {}, 0, false
  local function finish()
    if finished or pending > 0 then return end
    finished = true
    vim.schedule(function() done(answers) end)
  end
  for pos, k in ipairs(ok and type(answer) == 'table' and answer.steps or {}) do
    if k.kind == 'server' and type(steps[pos]) == 'table' then
      local a = H.request(steps[pos], function()
        pending = pending - 1
        finish()
      end)
      answers[pos] = a
      if a.pending then pending = pending + 1 end
    end
  end
  if pending > 0 then
    vim.defer_fn(function()
      if finished then return end
      for _, a in pairs(answers) do
        if a.picking then return end
      end
      require('leash.ui.notify').notify('leash: asking the language server for the edit it would make…')
    end, 300)
    vim.defer_fn(function()
      for _, a in pairs(answers) do
        -- One being picked gets its own deadline once picked (|H.request_action()|).
        if a.pending and not a.picking and not a.picked then
          a.pending = false
          a.why = H.late()
          pending = pending - 1
        end
      end
      finish()
    end, M.server_ms)
  end
  finish()
end

--- Whether the plan has a step whose edit a language server is asked for first.
---@param plan table validated plan
---@return boolean
function M.asks_servers(plan)
  for _, step in ipairs(type(plan) == 'table' and type(plan.steps) == 'table' and plan.steps or {}) do
    if type(step) == 'table' and H.server_items[step.id] then return true end
  end
  return false
end

--- Dry-run the steps of `plan` on a copy of the current buffer.
---@param plan table validated plan
---@param opts? { range?: leash.LineRange, entries?: table[], servers?: table<integer, leash.ServerEdit> } the user's lines and the catalog snapshot, as the executor gets them, and the language servers' answers (|M.ask()|)
---@return leash.Preview
function M.compute(plan, opts)
  opts = opts or {}
  local buf = vim.api.nvim_get_current_buf()
  local pv = {
    buf = buf,
    tick = vim.api.nvim_buf_get_changedtick(buf),
    cursor = vim.api.nvim_win_get_cursor(0),
    effects = {},
    ran = false,
    whole = false,
    server = {},
  }
  local steps = type(plan) == 'table' and type(plan.steps) == 'table' and plan.steps or {}
  local ok, answer = require('leash.native').call('preview_steps', 'preview the plan', plan)
  if not ok or type(answer) ~= 'table' or type(answer.steps) ~= 'table' then return pv end
  local kinds, runs, whole = answer.steps, {}, true
  for pos = 1, #steps do
    local k = kinds[pos] or { kind = 'not', why = 'leash could not read this step' }
    kinds[pos] = k
    if k.kind == 'run' then
      runs[#runs + 1] = pos
    elseif k.kind ~= 'setting' then
      whole = false
    end
    if k.kind == 'not' then pv.effects[pos] = { kind = 'not', why = tostring(k.why) } end
    if k.kind == 'server' then H.server_step(pv, pos, opts.servers and opts.servers[pos]) end
  end
  pv.ran = next(pv.server) ~= nil
  if #runs == 0 then return pv end
  local too_big = H.too_big(buf)
  if too_big then
    for _, pos in ipairs(runs) do
      pv.effects[pos] = { kind = 'not', why = too_big }
    end
    return pv
  end
  local dry_ok, err = pcall(H.dry_run, pv, steps, kinds, answer.options or {}, opts)
  if not dry_ok then
    -- Something of the editor's state stopped the copy: nothing is claimed.
    for _, pos in ipairs(runs) do
      pv.effects[pos] = { kind = 'not', why = 'the dry run failed: ' .. H.clean(err) }
    end
    pv.ran, pv.final = next(pv.server) ~= nil, nil
    return pv
  end
  pv.ran, pv.whole = true, whole
  return pv
end

--- What the plan window's presenter shows under each step (|leash.ui.confirm.content|):
--- the effect by step position, diffs folded to |M.fold| changed lines unless
--- `expanded`.
---@param pv? leash.Preview
---@param expanded? boolean `=` was pressed: show up to |M.max_shown| lines
---@return table<integer, table>
function M.effects(pv, expanded)
  local out = {}
  for pos, e in pairs(pv and pv.effects or {}) do
    if e.kind then
      out[pos] = H.folded(e, expanded)
    else
      -- One effect per file of a language server's edit.
      out[pos] = vim.tbl_map(function(x) return H.folded(x, expanded) end, e)
    end
  end
  return out
end

--- Whether `=` would show more of some diff.
---@param pv? leash.Preview
---@return boolean
function M.foldable(pv)
  for _, e in pairs(pv and pv.effects or {}) do
    for _, x in ipairs(e.kind and { e } or e) do
      if x.kind == 'diff' and x.total > M.fold then return true end
    end
  end
  return false
end

--- Why the preview no longer says what the plan will do, or nil: the buffer changed
--- since, or another buffer is current, or the cursor (where a step without a range
--- acts) moved.
---@param pv? leash.Preview
---@return string? why
function M.changed(pv)
  if not (pv and pv.ran) then return nil end
  local name = H.file(pv.buf)
  if not vim.api.nvim_buf_is_valid(pv.buf) then return 'the buffer it previewed is gone' end
  if vim.api.nvim_get_current_buf() ~= pv.buf then
    return ('another buffer is current, not %s, which it previewed'):format(name == '' and '[No Name]' or name)
  end
  if vim.api.nvim_buf_get_changedtick(pv.buf) ~= pv.tick then
    return ('%s changed after the preview'):format(name == '' and '[No Name]' or name)
  end
  if vim.api.nvim_win_get_cursor(0)[1] ~= pv.cursor[1] then return 'the cursor moved after the preview' end
  for _, a in pairs(pv.server or {}) do
    local why = H.changed_since(a)
    if why then return why end
  end
  return nil
end

--- After the plan ran: whether the buffer differs from what the preview showed, where
--- every step was dry-run (a message), else nil.
---@param pv? leash.Preview
---@return string?
function M.differs(pv)
  if not (pv and pv.ran and pv.whole and pv.final) or not vim.api.nvim_buf_is_valid(pv.buf) then return nil end
  local now = vim.api.nvim_buf_get_lines(pv.buf, 0, -1, false)
  if #now == #pv.final then
    local same = true
    for i = 1, #now do
      if now[i] ~= pv.final[i] then
        same = false
        break
      end
    end
    if same then return nil end
  end
  return ('the text of %s after the plan differs from its preview'):format(H.file(pv.buf))
end

-- Helper data ================================================================

-- Registers a dry run of :delete (alone or under :global) may write.
H.registers = vim.split('"-0123456789abcdefghijklmnopqrstuvwxyz', '')

-- The language server items whose edit is asked for before the window opens.
H.server_items = { ['lsp:format'] = true, ['lsp:rename'] = true, ['lsp:code_action'] = true }

function H.late() return ('the language server did not answer within %d s'):format(M.server_ms / 1000) end

-- Steps whose dry run may write registers.
H.writes_registers = { ['cmd:delete'] = true, ['cmd:global'] = true, ['cmd:vglobal'] = true }

-- Helper functionality =======================================================

--- A diff folded to |M.fold| changed lines (or |M.max_shown| when `expanded`); any
--- other effect as it is.
function H.folded(e, expanded)
  if e.kind ~= 'diff' then return e end
  local limit = expanded and M.max_shown or M.fold
  local shown = vim.list_slice(e.lines, 1, math.min(limit, #e.lines))
  return {
    kind = 'diff',
    file = e.file,
    added = e.added,
    removed = e.removed,
    lines = shown,
    more = e.total - #shown,
    expand = not expanded and e.total > #shown,
  }
end

--- Send the request of a format or rename step to the one language server here that
--- does it; `on_answer` is called when it answered. Returns the answer being filled in
--- (`pending`), or one that says why nothing was asked.
---@return leash.ServerEdit
function H.request(step, on_answer)
  local name = type(step.id) == 'string' and step.id:match('^lsp:(.+)$')
  local bufnr, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  if name == 'code_action' then return H.request_action(bufnr, win, on_answer) end
  local method = name == 'format' and 'textDocument/formatting' or 'textDocument/rename'
  local clients = vim.lsp.get_clients({ bufnr = bufnr, method = method })
  if #clients == 0 then return { why = ('no language server here can %s'):format(name) } end
  if #clients > 1 then
    return { why = ('%d language servers here can %s; the step asks them when it runs'):format(#clients, name) }
  end
  local client = clients[1]
  local params
  if name == 'format' then
    params = vim.lsp.util.make_formatting_params()
  else
    local new = type(step.args) == 'table' and step.args[1] or nil
    if type(new) ~= 'string' or not new:match('^[^%c%s]+$') then
      return { why = 'a new name is one word without spaces or control characters' }
    end
    params = vim.lsp.util.make_position_params(win, client.offset_encoding)
    params.newName = new
  end
  local a = {
    name = name,
    client_id = client.id,
    encoding = client.offset_encoding,
    buf = bufnr,
    ticks = { [bufnr] = vim.api.nvim_buf_get_changedtick(bufnr) },
    pending = true,
  }
  local sent = client:request(method, params, function(err, result)
    if not a.pending then return end -- answered after the deadline: not shown, not applied
    a.pending = false
    if err then
      a.why = 'the language server answered with an error: ' .. tostring(err.message or err)
    elseif result == nil or result == vim.NIL then
      if name == 'format' then
        a.result = {}
      else
        a.why = 'the language server found nothing to rename here (it may still be reading the project)'
      end
    else
      a.result = result
      for _, uri in ipairs(H.uris(result)) do
        local b = vim.fn.bufnr(vim.uri_to_fname(uri))
        if b > 0 and vim.api.nvim_buf_is_loaded(b) then
          a.ticks[b] = a.ticks[b] or vim.api.nvim_buf_get_changedtick(b)
        end
      end
    end
    on_answer()
  end, bufnr)
  if not sent then
    a.pending = false
    a.why = 'the language server could not be asked'
  end
  return a
end

--- Ask every language server here for its code actions at the cursor (as the step
--- does), let the person pick one, and resolve it when the server sent it without its
--- edit; `on_answer` is called once, when that is done or failed.
---@return leash.ServerEdit
function H.request_action(bufnr, win, on_answer)
  local clients = vim.lsp.get_clients({ bufnr = bufnr, method = 'textDocument/codeAction' })
  if #clients == 0 then return { why = 'no language server here has code actions' } end
  local a = {
    name = 'code_action',
    buf = bufnr,
    ticks = { [bufnr] = vim.api.nvim_buf_get_changedtick(bufnr) },
    pending = true,
  }
  local function answer(why)
    if not a.pending then return end
    a.pending, a.picking, a.why = false, false, why
    on_answer()
  end
  local items, left = {}, 0
  local function pick()
    if not a.pending then return end -- too late: the window says the server did not answer
    if #items == 0 then return answer('the language server has no code action here') end
    a.picking = true
    local text = require('leash.text')
    vim.ui.select(items, {
      prompt = 'Code action to preview:',
      kind = 'codeaction',
      format_item = function(item) return text.visible(tostring(item.action.title)) end,
    }, function(choice)
      a.picking, a.picked = false, true
      if not choice then return answer('no code action was picked; the step asks again when it runs') end
      vim.defer_fn(function() answer(H.late()) end, M.server_ms)
      H.resolve(a, choice, answer)
    end)
  end
  local lnum = vim.api.nvim_win_get_cursor(win)[1] - 1
  local diagnostics = vim.lsp.diagnostic.from(vim.diagnostic.get(bufnr, { lnum = lnum }))
  for _, client in ipairs(clients) do
    local params = vim.lsp.util.make_range_params(win, client.offset_encoding)
    params.context = { diagnostics = diagnostics, triggerKind = 1 }
    local sent = client:request('textDocument/codeAction', params, function(_, result)
      for _, action in ipairs(type(result) == 'table' and result or {}) do
        -- An action the server lists as disabled (with its reason) cannot be picked.
        if type(action) == 'table' and action.disabled == nil then
          items[#items + 1] = { client_id = client.id, action = action }
        end
      end
      left = left - 1
      if left == 0 then pick() end
    end, bufnr)
    if sent then left = left + 1 end
  end
  if left == 0 then
    a.pending, a.why = false, 'the language server could not be asked'
  end
  return a
end

--- The picked code action, with its edit: as sent, or resolved by the server.
function H.resolve(a, item, answer)
  local client = vim.lsp.get_client_by_id(item.client_id)
  if not client then return answer('the language server of that code action has stopped') end
  a.client_id, a.encoding = client.id, client.offset_encoding
  local function take(action)
    a.result = action
    for _, uri in ipairs(H.uris(action.edit)) do
      local b = vim.fn.bufnr(vim.uri_to_fname(uri))
      if b > 0 and vim.api.nvim_buf_is_loaded(b) then a.ticks[b] = a.ticks[b] or vim.api.nvim_buf_get_changedtick(b) end
    end
    answer(nil)
  end
  local action = item.action
  -- A bare Command: nothing but a command the server runs.
  if type(action.command) == 'string' then return take({ title = action.title, command = action }) end
  if action.edit or not client:supports_method('codeAction/resolve') then return take(action) end
  local sent = client:request('codeAction/resolve', action, function(err, resolved)
    if not a.pending then return end
    if err then return answer('the language server answered with an error: ' .. tostring(err.message or err)) end
    take(type(resolved) == 'table' and resolved or action)
  end, a.buf)
  if not sent then answer('the language server could not be asked') end
end

--- The effect of a format, rename or code action step: the server's edit, file by file,
--- or why there is none to show.
function H.server_step(pv, pos, a)
  if not a then
    pv.effects[pos] = { kind = 'not', why = 'the language server was not asked' }
  elseif a.why or a.result == nil then
    pv.effects[pos] = { kind = 'not', why = a.why or 'the language server did not answer' }
  else
    local stale = H.changed_since(a)
    local ok, effects
    if stale then
      ok, effects = false, stale .. ' while the language server answered'
    else
      ok, effects = pcall(H.server_effects, a)
    end
    if ok then
      pv.effects[pos], pv.server[pos] = effects, a
    else
      pv.effects[pos] = { kind = 'not', why = H.clean(effects) }
    end
  end
end

--- Why an edit a server made no longer fits its buffers, or nil.
function H.changed_since(a)
  for b, tick in pairs(a.ticks or {}) do
    if not vim.api.nvim_buf_is_valid(b) then return 'a buffer the language server edits is gone' end
    if vim.api.nvim_buf_get_changedtick(b) ~= tick then
      local name = H.file(b)
      return ('%s changed after the preview'):format(name == '' and '[No Name]' or name)
    end
  end
end

--- The documents a workspace edit changes.
function H.uris(edit)
  local out = {}
  if type(edit) ~= 'table' then return out end
  if vim.islist(edit) then return out end -- text edits of the buffer asked for
  for _, c in ipairs(edit.documentChanges or {}) do
    if c.textDocument then out[#out + 1] = c.textDocument.uri end
  end
  for uri in pairs(edit.changes or {}) do
    out[#out + 1] = uri
  end
  return out
end

--- What the server's answer does: a format's edit of the buffer, a rename's workspace
--- edit, a code action's edit and command.
function H.server_effects(a)
  if a.name == 'format' then return H.edited_copy(a.buf, nil, a.result, a.encoding) end
  if a.name == 'code_action' then return H.action_effects(a) end
  return H.workspace_effects(a.result, a.encoding)
end

--- The picked code action: its title, its edit file by file (or why leash refuses it),
--- and its command, which runs in the server and is not previewed.
function H.action_effects(a)
  local action = a.result
  local out = { { kind = 'also', text = ('the action you picked: %s'):format(tostring(action.title)) } }
  if type(action.edit) == 'table' then
    local why = require('leash.sources.lsp').check_edit(action.edit)
    if why then
      out[#out + 1] = { kind = 'not', why = 'leash refuses its edit, so the step fails when it runs: ' .. why }
    else
      vim.list_extend(out, H.workspace_effects(action.edit, a.encoding))
    end
  end
  local command = type(action.command) == 'table' and action.command or nil
  if command then
    local what = tostring((command.title ~= nil and command.title ~= '') and command.title or command.command)
    out[#out + 1] = {
      kind = 'not',
      why = ('then the language server runs its command “%s”, which only it knows'):format(what),
    }
  elseif type(action.edit) ~= 'table' then
    out[#out + 1] = { kind = 'also', text = 'it carries no edit and no command: it changes nothing' }
  end
  return out
end

--- One effect per file a workspace edit changes (applied to copies), and a line for each
--- file it renames, creates or deletes.
function H.workspace_effects(r, encoding)
  local out, order, by_uri = {}, {}, {}
  local function add(uri, edits)
    if not by_uri[uri] then
      by_uri[uri] = {}
      order[#order + 1] = uri
    end
    vim.list_extend(by_uri[uri], edits or {})
  end
  local function name(uri) return vim.fn.fnamemodify(vim.uri_to_fname(uri), ':~:.') end
  for _, c in ipairs(r.documentChanges or {}) do
    if c.kind == 'rename' then
      out[#out + 1] = { kind = 'also', text = ('renames %s → %s'):format(name(c.oldUri), name(c.newUri)) }
    elseif c.kind == 'create' then
      out[#out + 1] = { kind = 'also', text = 'creates ' .. name(c.uri) }
    elseif c.kind == 'delete' then
      out[#out + 1] = { kind = 'also', text = 'deletes ' .. name(c.uri) }
    elseif c.textDocument then
      add(c.textDocument.uri, c.edits)
    end
  end
  if not r.documentChanges then
    local uris = vim.tbl_keys(r.changes or {})
    table.sort(uris)
    for _, uri in ipairs(uris) do
      add(uri, r.changes[uri])
    end
  end
  local effects = {}
  for _, uri in ipairs(order) do
    local fname = vim.uri_to_fname(uri)
    local b = vim.fn.bufnr(fname)
    effects[#effects + 1] =
      H.edited_copy(b > 0 and vim.api.nvim_buf_is_loaded(b) and b or nil, fname, by_uri[uri], encoding)
  end
  return vim.list_extend(effects, out)
end

--- What `edits` do to a copy of buffer `buf` (or of file `fname`, read from disk, when
--- it is not loaded).
function H.edited_copy(buf, fname, edits, encoding)
  local lines, file
  if buf then
    lines, file = vim.api.nvim_buf_get_lines(buf, 0, -1, false), H.file(buf)
  else
    lines = vim.fn.filereadable(fname) == 1 and vim.fn.readfile(fname) or {}
    file = vim.fn.fnamemodify(fname, ':~:.')
  end
  if type(edits) ~= 'table' or #edits == 0 then return { kind = 'same', file = file } end
  local ei = vim.o.eventignore
  vim.o.eventignore = 'all'
  local scratch = vim.api.nvim_create_buf(false, true)
  local ok, after = pcall(function()
    vim.bo[scratch].undolevels = -1
    if buf then
      for _, o in ipairs({ 'endofline', 'fixendofline' }) do
        vim.api.nvim_set_option_value(o, vim.api.nvim_get_option_value(o, { buf = buf }), { buf = scratch })
      end
    end
    vim.api.nvim_buf_set_lines(scratch, 0, -1, false, lines)
    vim.lsp.util.apply_text_edits(edits, scratch, encoding)
    return vim.api.nvim_buf_get_lines(scratch, 0, -1, false)
  end)
  pcall(vim.api.nvim_buf_delete, scratch, { force = true })
  vim.o.eventignore = ei
  if not ok then error(after, 0) end
  return H.effect(lines, after, file)
end

--- Why the buffer is too large to copy, or nil.
function H.too_big(buf)
  local lines = vim.api.nvim_buf_line_count(buf)
  if lines > M.max_lines then return ('the buffer has more than %d lines'):format(M.max_lines) end
  if vim.api.nvim_buf_get_offset(buf, lines) > M.max_bytes then
    return ('the buffer is larger than %d MB'):format(M.max_bytes / 1024 / 1024)
  end
end

--- The buffer's name as the window shows it.
function H.file(buf)
  local ok, name = pcall(vim.api.nvim_buf_get_name, buf)
  if not ok or name == '' then return '' end
  return vim.fn.fnamemodify(name, ':~:.')
end

function H.clean(err) return (tostring(err):gsub('^[^\n]-:%d+: ', ''):gsub('^Vim%b():', ''):gsub('^Vim:', '')) end

--- Run the dry run with the editor's state saved and put back whatever happens.
function H.dry_run(pv, steps, kinds, options, opts)
  -- The ranges are checked as the executor checks them, in the real buffer.
  -- Without a catalog snapshot, the step's own range decides.
  local entries = require('leash.catalog').by_id(opts.entries)
  local ranges, saves_registers = {}, false
  for pos, k in ipairs(kinds) do
    if k.kind == 'run' then
      local step = steps[pos]
      local entry = entries[step.id] or { range = step.range ~= nil and step.range ~= vim.NIL }
      local r, rerr = require('leash.sources.shared.range').for_step(step, entry, { range = opts.range })
      ranges[pos] = rerr and { err = rerr } or { range = r }
      saves_registers = saves_registers or H.writes_registers[step.id] == true
    end
  end
  local saved = { eventignore = vim.o.eventignore, clipboard = vim.o.clipboard, hlsearch = vim.v.hlsearch }
  -- `keeppatterns` does not reach the command :global runs on each line: a :substitute
  -- there saves its pattern and adds it to the search history, both put back after.
  local search = saves_registers and H.save_search() or nil
  vim.o.eventignore = 'all'
  vim.o.clipboard = ''
  local registers = saves_registers and H.save_registers() or nil
  local globals = {}
  local ok, err = pcall(H.run_steps, pv, steps, kinds, options, ranges, globals)
  for name, value in pairs(globals) do
    pcall(vim.api.nvim_set_option_value, name, value, { scope = 'global' })
  end
  if registers then H.restore_registers(registers) end
  if search then H.restore_search(search) end
  vim.o.clipboard = saved.clipboard
  vim.v.hlsearch = saved.hlsearch
  vim.o.eventignore = saved.eventignore
  if not ok then error(err, 0) end
end

--- The copy, and each step on it in order.
function H.run_steps(pv, steps, kinds, options, ranges, globals)
  local buf = pv.buf
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local scratch = vim.api.nvim_create_buf(false, true)
  local ok, err = pcall(function()
    vim.bo[scratch].undolevels = -1
    for _, name in ipairs(options) do
      local info = vim.api.nvim_get_option_info2(name, {})
      if info.scope == 'buf' then
        vim.api.nvim_set_option_value(name, vim.api.nvim_get_option_value(name, { buf = buf }), { buf = scratch })
      end
    end
    vim.api.nvim_buf_set_lines(scratch, 0, -1, false, lines)
    for c in ('abcdefghijklmnopqrstuvwxyz'):gmatch('.') do
      local m = vim.api.nvim_buf_get_mark(buf, c)
      if m[1] > 0 then pcall(vim.api.nvim_buf_set_mark, scratch, c, m[1], m[2], {}) end
    end
    local file = H.file(buf)
    local failed
    local watch = H.watch(scratch)
    vim.api.nvim_buf_call(scratch, function()
      -- The copy's window folds nothing: no 'foldexpr' runs while its text changes.
      vim.wo.foldmethod, vim.wo.foldenable = 'manual', false
      pcall(vim.api.nvim_win_set_cursor, 0, pv.cursor)
      for pos, k in ipairs(kinds) do
        local step = steps[pos]
        if k.kind == 'setting' and k.apply then
          H.apply_setting(step, scratch, globals)
        elseif k.kind == 'run' then
          if failed then
            pv.effects[pos] = { kind = 'not', why = ('step %d fails first, so the plan stops there'):format(failed) }
          elseif ranges[pos].err then
            failed = pos
            pv.effects[pos] = { kind = 'fails', file = file, why = ranges[pos].err }
          else
            watch.start(#lines)
            -- The same call the step makes when it runs (|leash.sources.commands|).
            local rok, rerr = pcall(
              require('leash.sources.commands').call,
              { cmd = step.id:sub(5), args = step.args, range = ranges[pos].range },
              { keeppatterns = true, silent = true },
              { output = true }
            )
            local after = H.read_back(scratch, lines, watch)
            if rok then
              pv.effects[pos] = H.effect(lines, after, file)
            else
              failed = pos
              pv.effects[pos] = { kind = 'fails', file = file, why = H.clean(rerr) }
            end
            lines = after
          end
        end
      end
    end)
    pv.final = lines
  end)
  pcall(vim.api.nvim_buf_delete, scratch, { force = true })
  if not ok then error(err, 0) end
end

--- The part of the copy each step changes, from the copy's own change reports
--- (|nvim_buf_attach()|, the ones language servers sync from; no autocommand): as
--- `head`, the lines before the first change, and `tail`, the lines after the last.
function H.watch(scratch)
  local w = {}
  function w.start(count)
    w.head, w.tail, w.count, w.reloaded = math.huge, math.huge, count, false
  end
  w.start(0)
  w.ok = vim.api.nvim_buf_attach(scratch, false, {
    on_lines = function(_, _, _, first, last_old, last_new)
      w.head = math.min(w.head, first)
      w.tail = math.min(w.tail, w.count - last_old)
      w.count = w.count + last_new - last_old
    end,
    on_reload = function() w.reloaded = true end,
  })
  return w
end

--- The copy's text after a step, from `lines` before it: only the part the step changed
--- is read from the copy (reading 10,000 lines back costs more than the rest of the
--- preview's own work); all of it when the reports do not add up.
function H.read_back(scratch, lines, w)
  local count = vim.api.nvim_buf_line_count(scratch)
  if not w.ok or w.reloaded or count ~= w.count then return vim.api.nvim_buf_get_lines(scratch, 0, -1, false) end
  if w.head == math.huge then return lines end
  local head = w.head
  local tail = math.max(0, math.min(w.tail, #lines - head, count - head))
  local mid = vim.api.nvim_buf_get_lines(scratch, head, count - tail, false)
  local after = {}
  for i = 1, head do
    after[i] = lines[i]
  end
  for i = 1, #mid do
    after[head + i] = mid[i]
  end
  local from = #lines - tail
  for i = 1, tail do
    after[head + #mid + i] = lines[from + i]
  end
  return after
end

--- A setting step on the copy: a buffer option on the copy only, a global one until the
--- dry run ends (its value before is kept in `globals` to be put back).
function H.apply_setting(step, scratch, globals)
  local info = vim.api.nvim_get_option_info2(step.key, {})
  if info.scope == 'buf' then
    pcall(vim.api.nvim_set_option_value, step.key, step.value, { buf = scratch })
  elseif info.scope == 'global' then
    if globals[step.key] == nil then
      globals[step.key] = vim.api.nvim_get_option_value(step.key, { scope = 'global' })
    end
    pcall(vim.api.nvim_set_option_value, step.key, step.value, { scope = 'global' })
  end
end

--- What changed from `before` to `after`: counts and the changed lines, removed ones
--- with their line numbers before and added ones with theirs after.
function H.effect(before, after, file)
  local hunks = H.hunks(before, after)
  if #hunks == 0 then return { kind = 'same', file = file } end
  local added, removed, shown = 0, 0, {}
  -- Only the lines that can be shown are visited: a sort of 10,000 lines changes all.
  local function add(sign, list, from, count)
    for i = from, from + math.min(count, M.max_shown - #shown) - 1 do
      shown[#shown + 1] = { sign, i, H.cut(list[i]) }
    end
  end
  for _, h in ipairs(hunks) do
    local sa, ca, sb, cb = h[1], h[2], h[3], h[4]
    removed, added = removed + ca, added + cb
    if ca == cb then
      -- Lines replaced where they stand (a sort, a substitute): each old line beside
      -- the new one, so that a folded diff still shows what a line becomes.
      for k = 0, math.min(ca, math.ceil((M.max_shown - #shown) / 2)) - 1 do
        shown[#shown + 1] = { '-', sa + k, H.cut(before[sa + k]) }
        shown[#shown + 1] = { '+', sb + k, H.cut(after[sb + k]) }
      end
    else
      add('-', before, sa, ca)
      add('+', after, sb, cb)
    end
  end
  local total = added + removed
  return { kind = 'diff', file = file, added = added, removed = removed, lines = shown, total = total }
end

--- The changed runs from `before` to `after`, as `{ start_a, count_a, start_b, count_b }`.
--- Where the step kept the number of lines (a substitute, a sort, a retab), line by
--- line: each line that differs is shown as replaced where it stands. Otherwise a diff
--- of the part between the common first and last lines.
function H.hunks(before, after)
  local hunks = {}
  if #before == #after then
    local i, n = 1, #before
    while i <= n do
      if before[i] ~= after[i] then
        local j = i
        while j < n and before[j + 1] ~= after[j + 1] do
          j = j + 1
        end
        hunks[#hunks + 1] = { i, j - i + 1, i, j - i + 1 }
        i = j + 1
      else
        i = i + 1
      end
    end
    return hunks
  end
  local head = 0
  while head < #before and head < #after and before[head + 1] == after[head + 1] do
    head = head + 1
  end
  local tail = 0
  while tail < #before - head and tail < #after - head and before[#before - tail] == after[#after - tail] do
    tail = tail + 1
  end
  -- Each line ends in a newline, so an empty line in the middle is a line.
  local function text(list, last) return last > head and (table.concat(list, '\n', head + 1, last) .. '\n') or '' end
  local a, b = text(before, #before - tail), text(after, #after - tail)
  local diff = vim.text and vim.text.diff or vim.diff
  for _, h in ipairs(diff(a, b, { result_type = 'indices', algorithm = 'histogram' })) do
    hunks[#hunks + 1] = { h[1] + head, h[2], h[3] + head, h[4] }
  end
  return hunks
end

--- A line cut to |M.max_line_bytes| at a character boundary.
function H.cut(text)
  text = text or ''
  if #text <= M.max_line_bytes then return text end
  return text:sub(1, M.max_line_bytes + vim.str_utf_start(text, M.max_line_bytes + 1)) .. '…'
end

function H.save_search()
  local history = {}
  for i = 1, vim.fn.histnr('/') do
    local entry = vim.fn.histget('/', i)
    if entry ~= '' then history[#history + 1] = entry end
  end
  return { pattern = vim.fn.getreg('/'), last = vim.fn.histnr('/'), history = history }
end

function H.restore_search(saved)
  if vim.fn.getreg('/') ~= saved.pattern then vim.fn.setreg('/', saved.pattern) end
  if vim.fn.histnr('/') == saved.last then return end
  vim.fn.histdel('/')
  for _, entry in ipairs(saved.history) do
    vim.fn.histadd('/', entry)
  end
end

function H.save_registers()
  local saved = {}
  for _, r in ipairs(H.registers) do
    local ok, info = pcall(vim.fn.getreginfo, r)
    if ok then saved[r] = info end
  end
  return saved
end

function H.restore_registers(saved)
  -- The numbered and named ones first: the unnamed register points at one of them.
  for _, r in ipairs(H.registers) do
    if r ~= '"' and saved[r] then pcall(vim.fn.setreg, r, saved[r]) end
  end
  if saved['"'] then pcall(vim.fn.setreg, '"', saved['"']) end
end

return M
