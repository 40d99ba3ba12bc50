--- The process guard: while a plan step whose reach is not `shell` runs, no program may
--- start. The argument filter and the reach tables are lists, and lists miss things (a
--- plugin that runs `gzip` on `BufReadPost`, a name that reaches a step through a
--- quickfix list, `'diffopt'` without `internal`); the guard does not depend on them.
---
--- For the duration of one step:
---
--- 1. `'shell'` points at a refusal program (written once under `stdpath('state')`): it
---    runs nothing, records its arguments where this module reads them, and fails. Every
---    command line Neovim hands to a shell goes there: `:!`, `system('…')`, `jobstart('…')`,
---    file-name expansion through the shell, an external diff, the gzip/tar/zip plugins.
--- 2. The Lua entry points that start programs refuse and record: `vim.fn.system()`,
---    `systemlist()`, `jobstart()`, `termopen()` (and the same through `vim.call()` and
---    |nvim_call_function()|), `vim.system()`, `vim.uv.spawn()`, `io.popen()`,
---    `os.execute()`.
--- 3. The clipboard provider is switched off (`g:loaded_clipboard_provider`), so a yank
---    or `:registers` does not start `xclip`, `wl-copy`… (Neovim says "clipboard: No
---    provider" meanwhile).
--- 4. After the step, any job channel or child process that appeared during it is
---    stopped (Vimscript's `jobstart([...])`/`system([...])` with an argv list reach
---    neither 1 nor 2; a program that started that way and has already exited is not
---    seen).
---
--- A step that tried to start anything fails with a message naming what it tried, and
--- the executor stops the plan. Each layer is undone after the step; a step that changed
--- `'shell'` itself (a confirmed `code` step) keeps its new value.
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.GuardAttempt
---@field via string how it was tried: `'shell'`, `vim.system()`, `a job`…
---@field what string the command line or program, as text to show

--- Run `fn` with the guard armed; `fn` returns `ok, err` like a step handler. Returns
--- `false, message` when the guard cannot be armed (nothing ran) or when `fn` tried to
--- start a program (the message names it), else what `fn` returned.
---@param fn fun(): boolean?, string?
---@return boolean ok
---@return string? err
function M.run(fn)
  if H.armed then return H.call(fn) end
  local program, err = M.refusal_program()
  if not program then return false, err end
  local state = H.new_state(program)
  local armed, aerr = pcall(H.arm, state)
  if not armed then
    H.disarm(state)
    return false, 'leash: the process guard could not be set up, so the step did not run: ' .. tostring(aerr)
  end
  local ok, ferr = H.call(fn)
  local attempts = H.disarm(state)
  if #attempts > 0 then return false, M.describe(attempts) end
  return ok, ferr
end

--- Whether a guarded step is running.
---@return boolean
function M.active() return H.armed ~= nil end

--- The user's value of an option the guard changed while it is armed (`'shell'`), so an
--- undo record keeps the user's value, not the refusal program; else the current value.
---@param name string option name
---@return any
function M.user_option(name)
  local s = H.armed
  if s and name == 'shell' and vim.o.shell == s.shell_value then return s.shell end
  return vim.api.nvim_get_option_value(name, { scope = 'global' })
end

--- The message for a step that tried to start programs.
---@param attempts leash.GuardAttempt[]
---@return string
function M.describe(attempts)
  local text = require('leash.text')
  local parts = {}
  for i, a in ipairs(attempts) do
    if i > 3 then
      parts[#parts + 1] = ('and %d more'):format(#attempts - 3)
      break
    end
    local what = text.visible(a.what)
    if #what > 200 then what = what:sub(1, 197) .. '…' end
    parts[#parts + 1] = ('“%s” (%s)'):format(what, a.via)
  end
  return ('it tried to start a program: %s. A step not marked [shell] may not start one, so leash refused it'):format(
    table.concat(parts, '; ')
  )
end

--- The refusal program's path (written if missing), or nil and why not.
---@return string? path
---@return string? err
function M.refusal_program()
  if H.program then return H.program end
  if vim.fn.has('win32') == 1 then
    -- No POSIX shell to write it for: a path that does not exist refuses just as well,
    -- without the record of what was tried.
    H.program = vim.fs.joinpath(vim.fn.stdpath('state'), 'leash', 'guard', 'no-program-runs-here.exe')
    return H.program
  end
  local dir = vim.fs.joinpath(vim.fn.stdpath('state'), 'leash', 'guard')
  local path = vim.fs.joinpath(dir, 'refuse-shell')
  if path:find('"', 1, true) or path:find('%c') then
    return nil, ('leash: cannot use %s for the guard program (quote or control character in the path)'):format(path)
  end
  local ok, err = pcall(H.write_program, dir, path)
  if not ok then return nil, 'leash: cannot write the guard program: ' .. tostring(err) end
  H.program = path
  return path
end

-- Helper data ================================================================

--- What the armed guard saved, or nil when no guarded step runs.
---@type table?
H.armed = nil

---@type string?
H.program = nil

--- The refusal program: records its arguments (unit-separated, one record per call)
--- beside itself under the Neovim process id, and fails without running anything.
H.program_text = [[
#!/bin/sh
# leash: stands in for 'shell' while a plan step that is not [shell] runs.
# It runs nothing: it records its arguments for Neovim to report, then fails.
log="${0%/*}/refused-$PPID.log"
{ for a in "$@"; do printf '%s\037' "$a"; done; printf '\036'; } >>"$log" 2>/dev/null
echo "leash: refused to run a program from a step that is not [shell]" >&2
exit 126
]]

-- Value given to g:loaded_clipboard_provider while armed (Neovim needs 2 to use it).
H.clipboard_off = -1

-- Vimscript functions that start programs, refused through vim.call()/nvim_call_function().
H.starting_functions = { system = true, systemlist = true, jobstart = true, termopen = true }

-- Helper functionality =======================================================

function H.call(fn)
  local ok, res, msg = pcall(fn)
  if not ok then return false, tostring(res) end
  if res == false or (res == nil and msg) then return false, msg end
  return true
end

function H.write_program(dir, path)
  vim.fn.mkdir(dir, 'p', tonumber('700', 8))
  local f = io.open(path, 'r')
  local current = f and f:read('*a')
  if f then f:close() end
  local st = vim.uv.fs_stat(path)
  if current == H.program_text and st and bit.band(st.mode, tonumber('111', 8)) ~= 0 then return end
  local tmp = ('%s.%d.tmp'):format(path, vim.uv.os_getpid())
  local out = assert(io.open(tmp, 'w'))
  out:write(H.program_text)
  out:close()
  assert(vim.uv.fs_chmod(tmp, tonumber('700', 8)))
  assert(vim.uv.fs_rename(tmp, path))
end

--- The log the refusal program writes for this Neovim.
function H.log_path(program) return ('%s/refused-%d.log'):format(vim.fs.dirname(program), vim.uv.os_getpid()) end

--- Set an option without firing OptionSet (a user's handler must not see the swap).
function H.set_quiet(name, value)
  H.pending_option = { name, value }
  vim.api.nvim_cmd({ cmd = 'lua', args = { "require('leash.guard')._set_pending()" }, mods = { noautocmd = true } }, {})
end

---@private
function M._set_pending()
  local p = H.pending_option
  H.pending_option = nil
  if p then vim.api.nvim_set_option_value(p[1], p[2], { scope = 'global' }) end
end

--- What the guard saves for one step (nothing is changed yet).
function H.new_state(program)
  local pid = vim.uv.os_getpid()
  return {
    attempts = {},
    program = program,
    log = H.log_path(program),
    shell = vim.o.shell,
    shell_value = program:find(' ', 1, true) and ('"' .. program .. '"') or program,
    chans = H.job_channels(),
    children = H.children(pid),
    pid = pid,
    wrapped = {},
  }
end

--- Arm every layer; on an error the caller disarms what was armed.
function H.arm(s)
  os.remove(s.log)
  H.armed = s
  H.set_quiet('shell', s.shell_value)
  s.shell_set = true
  H.wrap_lua(s)
  s.clipboard = vim.g.loaded_clipboard_provider
  vim.g.loaded_clipboard_provider = H.clipboard_off
  s.clipboard_set = true
end

--- Undo every layer and collect what the step tried. Each part is undone even when
--- another fails.
---@return leash.GuardAttempt[]
function H.disarm(s)
  H.armed = nil
  for i = #s.wrapped, 1, -1 do
    local w = s.wrapped[i]
    if rawget(w.tbl, w.key) == w.wrapper then rawset(w.tbl, w.key, w.original) end
  end
  -- A step that set 'shell' itself (a confirmed code step) keeps its value.
  if s.shell_set and vim.o.shell == s.shell_value and not pcall(H.set_quiet, 'shell', s.shell) then
    vim.o.shell = s.shell
  end
  if s.clipboard_set and vim.g.loaded_clipboard_provider == H.clipboard_off then
    vim.g.loaded_clipboard_provider = s.clipboard
  end
  local attempts = s.attempts
  local ok, logged = pcall(H.read_log, s.log)
  for _, a in ipairs(ok and logged or {}) do
    attempts[#attempts + 1] = a
  end
  local sok, stopped = pcall(H.stop_new_processes, s)
  for _, a in ipairs(sok and stopped or {}) do
    attempts[#attempts + 1] = a
  end
  return attempts
end

--- The records of the refusal program: the command line of each call (its last argument,
--- after the shell's flags), or every argument when there is only one.
function H.read_log(path)
  local f = io.open(path, 'rb')
  if not f then return {} end
  local data = f:read('*a')
  f:close()
  os.remove(path)
  local out = {}
  for record in data:gmatch('([^\30]*)\30') do
    local args = vim.split(record, '\31', { plain = true, trimempty = true })
    out[#out + 1] = { via = "through 'shell'", what = args[#args] or '' }
  end
  return out
end

--- Job channels (jobs and terminals) by id.
function H.job_channels()
  local out = {}
  for _, c in ipairs(vim.api.nvim_list_chans()) do
    if c.stream == 'job' then out[c.id] = c end
  end
  return out
end

function H.children(pid)
  local ok, list = pcall(vim.api.nvim_get_proc_children, pid)
  local out = {}
  for _, p in ipairs(ok and list or {}) do
    out[p] = true
  end
  return out
end

--- Stop every job and child process that appeared while the step ran; describe them.
function H.stop_new_processes(s)
  local out = {}
  local stopped = {}
  for id, c in pairs(H.job_channels()) do
    if not s.chans[id] then
      local argv = type(c.argv) == 'table' and c.argv or {}
      local pid = vim.F.npcall(vim.fn.jobpid, id)
      if pid then stopped[pid] = true end
      pcall(vim.fn.jobstop, id)
      local what = table.concat(argv, ' ')
      -- The refusal program started as a job ('shell' with a command string): show the command.
      if argv[1] and vim.fs.basename(argv[1]:gsub('"', '')) == 'refuse-shell' then
        what = argv[#argv]
        out[#out + 1] = { via = "a job through 'shell', stopped", what = what }
      else
        out[#out + 1] = { via = 'a job, stopped', what = what ~= '' and what or ('job ' .. id) }
      end
    end
  end
  for pid in pairs(H.children(s.pid)) do
    if not s.children[pid] and not stopped[pid] then
      local info = vim.F.npcall(vim.api.nvim_get_proc, pid)
      vim.uv.kill(pid, 'sigkill')
      out[#out + 1] = { via = 'a process, killed', what = info and info.name or ('process ' .. pid) }
    end
  end
  return out
end

--- Replace the Lua entry points that start programs with refusals for this step.
function H.wrap_lua(s)
  local function refuse(via, what)
    s.attempts[#s.attempts + 1] = { via = via, what = what }
    error(('leash: refused to start “%s”: this plan step is not marked [shell]'):format(what), 2)
  end
  local function describe(cmd)
    if type(cmd) == 'table' then return table.concat(vim.tbl_map(tostring, cmd), ' ') end
    return tostring(cmd)
  end
  local function wrap(tbl, key, make)
    local original = rawget(tbl, key)
    if type(original) ~= 'function' then return end
    local wrapper = make(original)
    s.wrapped[#s.wrapped + 1] = { tbl = tbl, key = key, original = original, wrapper = wrapper }
    rawset(tbl, key, wrapper)
  end
  -- vim.fn.system() and friends call vim.call() at call time, even when a plugin kept a
  -- reference to them.
  wrap(vim, 'call', function(original)
    return function(name, ...)
      if H.starting_functions[name] then refuse(name .. '()', describe((...))) end
      return original(name, ...)
    end
  end)
  wrap(vim.api, 'nvim_call_function', function(original)
    return function(name, args)
      if H.starting_functions[name] then refuse(name .. '()', describe(type(args) == 'table' and args[1] or args)) end
      return original(name, args)
    end
  end)
  wrap(vim, 'system', function()
    return function(cmd) refuse('vim.system()', describe(cmd)) end
  end)
  wrap(vim.uv, 'spawn', function()
    return function(path, opts) refuse('vim.uv.spawn()', describe({ path, unpack(opts and opts.args or {}) })) end
  end)
  wrap(io, 'popen', function()
    return function(cmd) refuse('io.popen()', describe(cmd)) end
  end)
  wrap(os, 'execute', function()
    return function(cmd) refuse('os.execute()', describe(cmd)) end
  end)
end

return M
