--- Runs the steps of a validated plan, one by one, the way the plan window showed them.
---
--- The validated plan returned by the core is the only input trusted here, and even it is
--- checked again (defence in depth): an item must name a catalog entry, a builtin Ex
--- command gets the argument filter of doc/reach.md (section 4.3) again, and every
--- command runs through |nvim_cmd()| with the catalog's exact name, the arguments as a
--- list and `magic = { file = false, bar = false }`. Bang, mods, range, count and register
--- never come from the model: a command that takes a range gets the user's (`:'<,'>Do`),
--- and only as the plan window showed it. Model text never reaches `vim.cmd`, `nvim_command`,
--- `nvim_exec2`, `:execute` or `nvim_parse_cmd`.
---
--- Settings record their old values so |M.undo()| (`:Leash undo`) can restore them.
local M = {}
local H = {}

-- Module definition ==========================================================

---@alias leash.StepHandler fun(step: table, entry: table, ctx: leash.ExecContext): boolean?, string?

---@class leash.ExecContext
---@field record leash.UndoRecord what undo needs; handlers that change state add to it
---@field range? leash.LineRange the user's lines (|leash.context.range()|), if `:Do` got any

---@class leash.UndoRecord
---@field settings { key: string, kind: 'global'|'win'|'buf', scope?: 'local', old_global: any, old_local: any, win: integer, buf: integer }[]
---@field not_undoable string[] labels of steps that ran and cannot be undone

---@class leash.RunOpts
---@field entries? table[] catalog entries to look items up in (default: the live catalog)
---@field range? leash.LineRange the user's lines: a step the core gave them runs on them

--- Handlers for items, by the prefix of their id (`cmd`, `user`, `map`, `term`, …). A
--- handler gets the step, its catalog entry and the context and returns `true` or
--- `nil, message`. Other sources (lsp, diag, file, git, script) register theirs here.
---@type table<string, leash.StepHandler>
M.handlers = {}

--- Run `plan`'s steps in order, stopping at the first failure.
---@param plan table validated plan
---@param opts? leash.RunOpts
---@return boolean ok
---@return string? err names the step: `step 2 (Run :vsplit x): E…`
function M.run(plan, opts)
  opts = opts or {}
  if type(plan) ~= 'table' or type(plan.steps) ~= 'table' then return false, 'leash: not a validated plan' end
  local record = { settings = {}, not_undoable = {} }
  if #plan.steps > 0 then H.last = record end -- an empty plan keeps the previous undo
  local ctx = { record = record, range = opts.range }
  local entries
  for pos, step in ipairs(plan.steps) do
    local ok, err
    if type(step) ~= 'table' then
      ok, err = false, 'not a step'
    elseif step.type == 'setting' then
      ok, err = H.pcall(H.run_setting, step, ctx)
    elseif step.type == 'terminal' then
      ok, err = H.pcall(H.run_terminal, step.command, ctx)
      if ok then record.not_undoable[#record.not_undoable + 1] = H.label(step) end
    elseif step.type == 'item' then
      entries = entries or H.entry_map(opts.entries)
      ok, err = H.run_item(step, entries, ctx)
      if ok then record.not_undoable[#record.not_undoable + 1] = H.label(step) end
    else
      ok, err = false, ('unknown step type %s'):format(vim.inspect(step.type))
    end
    if not ok then
      local n = type(step) == 'table' and tonumber(step.index) and (step.index + 1) or pos
      return false, ('leash: step %d (%s): %s'):format(n, H.label(step), err or 'failed')
    end
  end
  return true
end

--- Restore the settings changed by the last plan (old values, same scope, same window or
--- buffer) and say which of its steps cannot be undone. `:Leash undo` calls it with
--- `{ notify = true }`.
---@param opts? { notify?: boolean } report the outcome with |vim.notify()|
---@return boolean ok
---@return string msg
function M.undo(opts)
  local ok, msg = H.undo()
  if opts and opts.notify then H.notify(msg, ok and vim.log.levels.INFO or vim.log.levels.WARN) end
  return ok, msg
end

function H.undo()
  local record = H.last
  if not record then return false, 'leash: nothing to undo' end
  H.last = nil
  local restored, failed = {}, {}
  for i = #record.settings, 1, -1 do
    local s = record.settings[i]
    local ok, err = pcall(H.restore, s)
    if ok then
      table.insert(restored, 1, s.key)
    else
      failed[#failed + 1] = ('%s (%s)'):format(s.key, tostring(err))
    end
  end
  local parts = {}
  if #restored > 0 then
    parts[#parts + 1] = 'restored ' .. table.concat(vim.fn.uniq(vim.fn.sort(restored)), ', ')
  else
    parts[#parts + 1] = 'no settings to restore'
  end
  if #failed > 0 then parts[#parts + 1] = 'could not restore ' .. table.concat(failed, ', ') end
  if #record.not_undoable > 0 then
    parts[#parts + 1] = 'cannot be undone: ' .. table.concat(record.not_undoable, '; ')
  end
  return #failed == 0, 'leash: ' .. table.concat(parts, '; ')
end

--- What the last plan recorded for undo (specs and `:Leash log` read it).
---@return leash.UndoRecord?
function M.last() return H.last end

--- Show the plan window when the rules require it (|leash.confirm.needs_window()|), then
--- run the plan. Reports the outcome with |vim.notify()|.
---@param plan table validated plan
---@param opts? { config?: leash.Config, on_done?: fun(ran: boolean, err?: string), entries?: table[], range?: leash.LineRange }
function M.confirm_and_run(plan, opts)
  opts = opts or {}
  local confirm = require('leash.ui.confirm')
  local function done(ran, err)
    if opts.on_done then opts.on_done(ran, err) end
  end
  local function go()
    local _, same = confirm.unchanged(plan)
    local ok, err = M.run(plan, { entries = opts.entries, range = opts.range })
    if ok then
      local n = #plan.steps
      local tail = same > 0 and ('; %d changed nothing'):format(same) or ''
      H.notify(('leash: ran %d step%s%s (:Leash undo restores settings)'):format(n, n == 1 and '' or 's', tail))
    else
      H.notify(err, vim.log.levels.ERROR)
    end
    done(ok, err)
  end
  if type(plan) ~= 'table' or type(plan.steps) ~= 'table' then
    H.notify('leash: not a validated plan', vim.log.levels.ERROR)
    return done(false, 'not a validated plan')
  end
  local nothing = #plan.steps == 0 and 'leash: nothing to run' or confirm.nothing_to_change(plan)
  if nothing then
    -- Nothing can run, or nothing would change: the reply (the model's or the offline
    -- planner's explanation) and the reasons for any dropped steps are all there is to show.
    local lines = {}
    if plan.reply and plan.reply ~= '' then lines[1] = confirm.visible(plan.reply) end
    if #plan.steps > 0 or #lines == 0 then lines[#lines + 1] = nothing end
    for _, d in ipairs(plan.dropped or {}) do
      lines[#lines + 1] = ('dropped step %d: %s'):format((d.index or 0) + 1, confirm.visible(d.reason))
    end
    H.notify(table.concat(lines, '\n'), #plan.dropped > 0 and vim.log.levels.WARN or vim.log.levels.INFO)
    return done(false)
  end
  if confirm.needs_window(plan, opts.config) then
    return confirm.open(plan, {
      on_run = go,
      on_cancel = function()
        H.notify('leash: cancelled, nothing ran')
        done(false)
      end,
    })
  end
  go()
end

--- The argument filter of doc/reach.md (section 4.3) for builtin command `name`,
--- re-applied before it runs. `reach` is the step's reach.
---@param name string full command name from the catalog
---@param reach string
---@param args string[]
---@return boolean ok
---@return string? why
function M.check_command_args(name, reach, args)
  local row = H.command_row(name)
  local full = not H.rank[reach] or H.rank[reach] <= H.rank.write or (H.rank[row.raw] or 5) > H.rank[reach]
  if H.no_args[name] and #args > 0 then return false, (':%s takes no arguments here'):format(name) end
  for _, a in ipairs(args) do
    if type(a) ~= 'string' then return false, 'an argument is not a string' end
    local what = ('argument “%s”'):format(require('leash.ui.confirm').visible(a))
    local why = H.check_text(a)
    if why then return false, what .. why end
    if row.backticks and a:find('`', 1, true) then
      return false, what .. (' contains a backtick, which :%s hands to the shell'):format(name)
    end
    if row.name_arg or H.name_arg[name] then
      if not a:match('^[%w_.-]+$') or a:find('..', 1, true) then
        return false, what .. ' must be a plain name (letters, digits, “_”, “.”, “-”)'
      end
    end
    if full then
      why = H.check_arg(a, row)
      if why then return false, what .. why end
    end
  end
  return true
end

-- Helper data ================================================================

---@type leash.UndoRecord?
H.last = nil

H.rank = { safe = 1, edit = 2, write = 3, code = 4, shell = 5 }

-- Commands whose argument is a runtime-file name (a path would source any file).
H.name_arg = { colorscheme = true, compiler = true, packadd = true, setfiletype = true }
-- Commands offered without arguments (their argument would be another command).
H.no_args = { hide = true }

-- Autocommand events whose handlers replace reading a file (term://, netrw, zip, tar).
H.read_handler_events = { 'BufReadCmd', 'FileReadCmd', 'SourceCmd' }

-- When the core's tables cannot be read, every command gets the strictest filter.
H.strictest = { raw = 'shell', xfile = true, backticks = true, loads_files = true, name_arg = false }

-- Name endings that make the bundled gzip/tar/zip plugins run a program (as the core lists).
-- stylua: ignore
H.archive_suffixes = {
  '.gz', '.bz2', '.z', '.lzma', '.xz', '.lz', '.zst', '.br', '.lzo',
  '.tar', '.lrp', '.tbz', '.tgz', '.txz', '.tzs', '.tzst',
  '.aar', '.apk', '.celzip', '.crtx', '.docm', '.docx', '.dotm', '.dotx', '.ear', '.epub',
  '.gcsx', '.glox', '.gqsx', '.ja', '.jar', '.kmz', '.odb', '.odc', '.odf', '.odg', '.odi',
  '.odm', '.odp', '.ods', '.odt', '.otc', '.otf', '.otg', '.oth', '.oti', '.otp', '.ots',
  '.ott', '.oxt', '.potm', '.potx', '.ppam', '.ppsm', '.ppsx', '.pptm', '.pptx', '.sldx',
  '.thmx', '.vdw', '.war', '.wsz', '.xap', '.xlam', '.xlsb', '.xlsm', '.xlsx', '.xltm',
  '.xltx', '.xpi', '.zip', '.whl', '.vsix', '.nupkg', '.crx',
}

-- Helper functionality =======================================================

function H.notify(msg, level)
  if vim.in_fast_event() then
    return vim.schedule(function() H.notify(msg, level) end)
  end
  vim.notify(msg, level or vim.log.levels.INFO, { title = 'leash' })
end

--- The step's label for messages, with control characters made visible.
function H.label(step)
  if type(step) ~= 'table' then return '?' end
  return require('leash.ui.confirm').visible(step.label or step.id or step.key or step.type)
end

--- pcall that returns `ok, err` with Neovim's message (no file:line of this module).
function H.pcall(fn, ...)
  local ok, res, msg = pcall(fn, ...)
  if not ok then return false, H.clean(res) end
  if res == false or (res == nil and msg) then return false, msg end
  return true
end

function H.clean(err)
  err = tostring(err)
  return (err:gsub('^[^\n]-:%d+: ', ''))
end

-- Settings -------------------------------------------------------------------

function H.run_setting(step, ctx)
  local key, value = step.key, step.value
  if type(key) ~= 'string' or not key:match('^[%w_]+$') then return nil, 'not an option name' end
  local vt = type(value)
  if vt ~= 'boolean' and vt ~= 'number' and vt ~= 'string' then return nil, 'the value has no option type' end
  if vt == 'string' then
    local why = H.check_text(value)
    if why then return nil, 'the value' .. why end
    if value:find('`', 1, true) then return nil, 'the value contains a backtick' end
  end
  local info = vim.api.nvim_get_option_info2(key, {})
  -- Only exact full names: an alias would name another option than the one shown.
  if info.name ~= key then return nil, ("'%s' is not the option's full name"):format(key) end
  local scope = step.scope == 'local' and 'local' or nil
  local rec = {
    key = key,
    kind = info.scope,
    scope = scope,
    win = vim.api.nvim_get_current_win(),
    buf = vim.api.nvim_get_current_buf(),
    old_global = vim.api.nvim_get_option_value(key, { scope = 'global' }),
  }
  if info.scope ~= 'global' then rec.old_local = vim.api.nvim_get_option_value(key, { scope = 'local' }) end
  vim.api.nvim_set_option_value(key, value, { scope = scope })
  table.insert(ctx.record.settings, rec)
  return true
end

--- Put back the values `rec` saw, in the window or buffer it changed.
function H.restore(rec)
  if rec.kind == 'global' then return vim.api.nvim_set_option_value(rec.key, rec.old_global, { scope = 'global' }) end
  if rec.scope ~= 'local' then vim.api.nvim_set_option_value(rec.key, rec.old_global, { scope = 'global' }) end
  if rec.kind == 'buf' then
    if not vim.api.nvim_buf_is_valid(rec.buf) then error('its buffer is gone', 0) end
    return vim.api.nvim_set_option_value(rec.key, rec.old_local, { buf = rec.buf })
  end
  if not vim.api.nvim_win_is_valid(rec.win) then error('its window is gone', 0) end
  vim.api.nvim_win_call(
    rec.win,
    function() vim.api.nvim_set_option_value(rec.key, rec.old_local, { scope = 'local' }) end
  )
end

-- Items ----------------------------------------------------------------------

--- `{ [id] = entry }` from the given entries or the live catalog.
function H.entry_map(entries)
  if not entries then entries = require('leash.catalog').entries() end
  local map = {}
  for _, e in ipairs(entries) do
    if type(e) == 'table' and type(e.id) == 'string' then map[e.id] = e end
  end
  return map
end

function H.run_item(step, entries, ctx)
  local id = step.id
  if type(id) ~= 'string' then return false, 'the step names no item' end
  local entry = entries[id]
  if not entry then return false, ('“%s” is not in the catalog'):format(require('leash.ui.confirm').visible(id)) end
  local args = step.args
  if args == nil or args == vim.NIL then args = {} end
  if type(args) == 'string' then args = { args } end
  if type(args) ~= 'table' or not vim.islist(args) then return false, 'the arguments are not a list' end
  for _, a in ipairs(args) do
    if type(a) ~= 'string' or #a > 4096 then return false, 'an argument is not a string of at most 4096 bytes' end
  end
  if entry.args == 'none' and #args > 0 then return false, 'this item takes no arguments' end
  if entry.args == 'required' and #args == 0 then return false, 'this item needs an argument' end
  local prefix = id:match('^(%a+):')
  local handler = prefix and M.handlers[prefix]
  if not handler then return false, ('no handler runs “%s:” items yet'):format(prefix or '?') end
  -- A shallow copy: the core's plan tables carry a protected metatable (mlua's array
  -- marker), which vim.deepcopy() cannot copy (setmetatable(t, false) raises).
  local clean = {}
  for k, v in pairs(step) do
    clean[k] = v
  end
  clean.args = args
  return H.pcall(handler, clean, entry, ctx)
end

--- The core's row for builtin `name`: raw reach and argument flags.
function H.command_row(name)
  if H.rows == nil then H.rows = H.load_rows() or false end
  local row = H.rows and H.rows[name]
  if not row then return H.strictest end
  return row
end

--- Read the core's command table (`src/policy/neovim-reach.json`); nil if unreadable.
function H.load_rows()
  local ok, root = pcall(function() return require('leash.native').root() end)
  if not ok then return nil end
  local f = io.open(root .. '/src/policy/neovim-reach.json', 'r')
  if not f then return nil end
  local text = f:read('*a')
  f:close()
  local dok, data = pcall(vim.json.decode, text)
  if not dok or type(data) ~= 'table' or type(data.commands) ~= 'table' then return nil end
  local rows = {}
  for name, r in pairs(data.commands) do
    local row = { raw = r.raw or 'shell' }
    for _, flag in ipairs(type(r.flags) == 'table' and r.flags or {}) do
      row[flag] = true
    end
    rows[name] = row
  end
  return rows
end

--- Control and invisible characters, and length: " contains …" or nil.
function H.check_text(s)
  if #s > 4096 then return ' is longer than 4096 bytes' end
  if s:find('[%z\1-\31\127]') or s:find('\194[\128-\159]') then return ' contains a control character' end
  if require('leash.ui.confirm').visible(s) ~= s then return ' contains an invisible formatting character' end
end

--- The recipe of doc/reach.md (section 4.3) for one argument: " …why" or nil.
function H.check_arg(a, row)
  if a:find('`', 1, true) then return ' contains a backtick, which can run a shell command' end
  if a:find('^%s*%+') then return ' starts with “+”, which Neovim reads as +cmd or ++opt' end
  if a:find('^%s*!') then return ' starts with “!”, the form that runs a shell command' end
  if a:find('|', 1, true) then return ' contains “|”, which could start a second command' end
  if a:find('^%s*%a[%w+.-]*:') then return ' starts with a URL-like scheme (term:// runs a shell)' end
  if row.xfile then
    local c = a:match('[%%#*?%[{$]')
    if c then return (' contains “%s”, which Neovim may expand into other file names'):format(c) end
    if a:find('^%s*~') then return ' starts with “~”, which Neovim expands' end
    if a:find('<%a+>') then return ' contains a <word> that Neovim replaces with editor text' end
  end
  if row.xfile or row.loads_files then
    local lower = a:gsub('[%s/]+$', ''):lower()
    for _, suffix in ipairs(H.archive_suffixes) do
      if vim.endswith(lower, suffix) then
        return (' names a “%s” file; opening it runs an external program'):format(suffix)
      end
    end
    -- :args, :argadd, :next, :drop, :vimgrep… split one argument into several names at
    -- white space: every word gets the rules the first one gets.
    for word in a:gmatch('%S+') do
      local why = H.check_word(word)
      if why then return why end
    end
  end
end

--- The start-of-name rules for one word of a file argument: " …why" or nil.
function H.check_word(word)
  if word:find('^[+!~]') then
    return (' holds the word “%s”, which Neovim reads as a command, option or home directory'):format(word)
  end
  if word:find('^%a[%w+.-]*:') then return (' holds the URL-like name “%s” (term:// runs a shell)'):format(word) end
  local lower = word:gsub('[/\\]+$', ''):lower()
  for _, suffix in ipairs(H.archive_suffixes) do
    if vim.endswith(lower, suffix) then
      return (' holds a “%s” name; opening it runs an external program'):format(suffix)
    end
  end
end

--- Builtin Ex commands: `cmd:<fullname>`.
M.handlers.cmd = function(step, entry, ctx)
  local name = entry.id:sub(5)
  if name == '' then return nil, 'not a command name' end
  for _, w in ipairs(require('leash.catalog.commands').withheld) do
    if w == name then return nil, ':' .. name .. ' is withheld from the catalog' end
  end
  if vim.fn.exists(':' .. name) ~= 2 then return nil, ':' .. name .. ' does not exist' end
  local ok, why = M.check_command_args(name, step.reach, step.args)
  if not ok then return nil, why end
  local range, rerr = H.step_range(step, entry, ctx)
  if rerr then return nil, rerr end
  local function run()
    vim.api.nvim_cmd(
      { cmd = name, args = step.args, range = range, magic = { file = false, bar = false } },
      { output = false }
    )
  end
  if H.rank[step.reach] and H.rank[step.reach] <= H.rank.write then return H.without_read_handlers(run) end
  run()
  return true
end

--- Run `fn` (a step of reach safe, edit or write) so that no buffer it loads can reach
--- further than its label: the argument filter sees only the step's own arguments, but
--- the names a step opens may also come from text (a quickfix list made by :cbuffer or
--- :cfile, a tags file, the file name under the cursor for :wincmd f, a list of files).
--- A name like `term://cmd` is opened by a BufReadCmd handler that starts `cmd`; netrw
--- and the zip/tar plugins claim `scp://`, `https://`, `zipfile:`… the same way. While
--- the step runs those handlers are ignored, and a buffer with such a name that the
--- step created is wiped (so no later jump loads it) and the step fails.
---@param fn fun()
---@return boolean? ok
---@return string? err
function H.without_read_handlers(fn)
  local before = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    before[b] = true
  end
  local saved = vim.o.eventignore
  local ignore = table.concat(H.read_handler_events, ',')
  vim.o.eventignore = saved == '' and ignore or (saved .. ',' .. ignore)
  local ok, err = pcall(fn)
  vim.o.eventignore = saved
  local opened
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local name = not before[b] and vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_name(b) or ''
    if H.url_name(name) then
      opened = opened or name
      pcall(vim.api.nvim_buf_delete, b, { force = true })
    end
  end
  if opened then
    return nil,
      ('it opened “%s”, a name a handler would run or fetch; leash does not load it'):format(
        require('leash.ui.confirm').visible(opened)
      )
  end
  if not ok then return nil, H.clean(err) end
  return true
end

--- Whether a buffer name is URL-like (`term://…`, `scp://…`, `zipfile:…`); a one-letter
--- scheme is a Windows drive.
function H.url_name(name) return name:find('^%a[%w+.-]+:') ~= nil end

--- User commands: `user:<Name>`, current definition only.
M.handlers.user = function(step, entry, ctx)
  local name = entry.id:sub(6)
  if not name:match('^%u[%w]*$') then return nil, 'not a user command name' end
  local defined = vim.api.nvim_buf_get_commands(0, {})[name] or vim.api.nvim_get_commands({})[name]
  if not defined then return nil, ':' .. name .. ' is no longer defined' end
  local full = not H.rank[step.reach] or H.rank[step.reach] <= H.rank.write
  for _, a in ipairs(step.args) do
    local what = ('argument “%s”'):format(require('leash.ui.confirm').visible(a))
    local why = H.check_text(a) or (full and H.check_arg(a, { xfile = false }))
    if why then return nil, what .. why end
  end
  local range, rerr = H.step_range(step, entry, ctx)
  if rerr then return nil, rerr end
  vim.api.nvim_cmd(
    { cmd = name, args = step.args, range = range, magic = { file = false, bar = false } },
    { output = false }
  )
  return true
end

--- The line range a command step runs on: the user's, exactly as the plan window showed
--- it (the core put it on the step because the catalog entry takes a range), in the
--- buffer it was given in. Anything else fails the step: a range the user did not give, a
--- step shown without the user's range, or another buffer.
---@return integer[]? range
---@return string? err
function H.step_range(step, entry, ctx)
  local user, shown = ctx and ctx.range, step.range
  if shown == nil or shown == vim.NIL then
    if user and entry.range then return nil, 'the plan window did not show this step with your lines' end
    return nil
  end
  if not user then return nil, 'the step has a range, but you gave none' end
  if not entry.range then return nil, 'this command takes no range' end
  if type(shown) ~= 'table' or shown[1] ~= user[1] or shown[2] ~= user[2] then
    return nil, "the step's range is not the lines you gave"
  end
  if user.buf and vim.api.nvim_get_current_buf() ~= user.buf then
    return nil, ('your lines are in buffer %d, not in the current one'):format(user.buf)
  end
  return { user[1], user[2] }
end

--- Keymaps: `map:<mode>:<lhs>`, looked up fresh (never from model text). A Lua callback
--- is called; any other mapping gets its own keys fed with remapping, so Neovim runs it
--- exactly as typing them would (its rhs, `<silent>`, `<SID>`, `<expr>`, buffer-local
--- first), which feeding a copy of the rhs would not. Only normal-mode mappings: a plan
--- has no selection.
M.handlers.map = function(_, entry, _)
  local mode, lhs = entry.id:match('^map:(%a):(.+)$')
  if not mode then return nil, 'not a keymap id' end
  if mode ~= 'n' then
    return nil, ('only normal-mode mappings can run from a plan (this one is for mode %s)'):format(mode)
  end
  local m = vim.fn.maparg(lhs, mode, false, true)
  if type(m) ~= 'table' or vim.tbl_isempty(m) then return nil, 'the mapping no longer exists' end
  if m.callback and m.expr ~= 1 then
    m.callback()
  else
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(lhs, true, true, true), 'mx', false)
  end
  return true
end

--- `term:run`: the arguments are the command line, run in a terminal split.
--- `term:below` and `term:tab` open the user's shell (lua/leash/actions/term.lua).
M.handlers.term = function(step, entry, ctx)
  if entry.id == 'term:below' or entry.id == 'term:tab' then
    return require('leash.actions.term').handler(entry, step)
  end
  if entry.id ~= 'term:run' then return nil, 'unknown terminal item' end
  return H.run_terminal(table.concat(step.args, ' '), ctx)
end

-- Sources whose items run by their own path, one action module each (lua/leash/actions/).
-- Required on first use so loading this module stays cheap.
for prefix, name in pairs({
  script = 'scripts',
  git = 'git',
  file = 'files',
  lsp = 'lsp',
  diag = 'diagnostics',
  entry = 'entries',
}) do
  M.handlers[prefix] = function(step, entry, _) return require('leash.actions.' .. name).handler(entry, step) end
end

--- Open a terminal split below and run `command` through 'shell' exactly as shown;
--- focus returns to the window the plan was made in.
function H.run_terminal(command, _)
  if type(command) ~= 'string' or command == '' then return nil, 'no command' end
  local prev = vim.api.nvim_get_current_win()
  local buf = vim.api.nvim_create_buf(true, false)
  local win = vim.api.nvim_open_win(buf, true, { split = 'below', win = -1 })
  local ok, job
  if vim.fn.has('nvim-0.11') == 1 then
    ok, job = pcall(vim.fn.jobstart, command, { term = true })
  else
    ok, job = pcall(vim.fn.termopen, command)
  end
  if not ok or type(job) ~= 'number' or job <= 0 then
    pcall(vim.api.nvim_win_close, win, true)
    return nil, 'could not start the terminal: ' .. H.clean(ok and ('job id ' .. tostring(job)) or job)
  end
  if vim.api.nvim_win_is_valid(prev) then vim.api.nvim_set_current_win(prev) end
  return true
end

return M
