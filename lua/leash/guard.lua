--- The process guard (design rule 7): while a plan step that was not confirmed as
--- `shell` (or `plugin`) runs, no shell command line runs, whatever list missed it;
--- programs the user's own setup starts with an argument list do run.
---
--- For the duration of one step:
---
--- 1. `'shell'` points at a refusal program (written under `stdpath('state')` and
---    verified, content, mode and owner, every time the guard is armed): it runs
---    nothing, records its arguments where this module reads them, and exits 126. Every
---    command line Neovim hands to a shell goes there: `:!`, `system('…')`,
---    `jobstart('…')`, `termopen('…')`, file-name expansion through the shell, an
---    external diff, the gzip/tar/zip/netrw plugins. The caller sees a command that
---    failed, never a Lua error.
--- 2. Programs started with an argument list from Lua (`vim.system()`, `vim.uv.spawn()`,
---    `vim.fn.jobstart({…})`, `vim.fn.system({…})`, `termopen({…})`, also through
---    `vim.call()` and |nvim_call_function()|) are checked before they start: they run
---    unless the program is a shell (or a wrapper such as `env`, `nice`, `timeout`
---    around one), the program is text of the plan, or an argument beginning with `-`
---    holds plan text beginning with `-` (option injection into the user's tools). A
---    refused start runs the refusal program in its place, so the caller gets a process
---    that exits 126, as a program that cannot run would: no handle is missing, nothing
---    raises inside another plugin. `io.popen()` (a shell line) returns `nil, message`;
---    `os.execute()` (a shell line) returns a failed status.
--- 3. After the step, every job channel and child process that appeared during it is
---    checked the same way from its argument list (Vimscript's `jobstart([...])` reaches
---    neither 1 nor 2): one that breaks the rule is stopped; one whose argument list
---    cannot be read is stopped too. Language servers, git for gitsigns and lualine,
---    formatters, provider probes and the clipboard provider keep running.
---
--- 4. Child processes get an environment that switches off Git's settings that make it run
---    a command (`core.fsmonitor`, hooks, `diff.external`, the pager, editor, SSH command,
---    credential helper, signing programs: `GIT_CONFIG_COUNT`/`KEY`/`VALUE`, which Git
---    reads after every configuration file), so the git the user's setup runs in a
---    repository the step opened does not run that repository's commands. Drivers a
---    repository names itself (`filter.<name>`, `diff.<name>.textconv`) cannot be switched
---    off by name: a step that opens a file of another project is `[code]` and says so
---    (the core's `profile/neovim/projects.rs`). A step below `[code]` can still land in
---    one without naming it (`:cfirst` after an error file, a tag, `:wincmd f`): while the
---    current buffer is a file of another project that the step moved to, no program
---    starts (`opts.projects`), so the user's git hook, or a language server starting
---    there, does not run that project's drivers unconfirmed.
---
--- 5. Callbacks the step schedules (`vim.schedule()`, `vim.defer_fn()`, a libuv timer,
---    `timer_start()` from Lua) run inside the guard when they are due within
---    |M.later_ms| of the step's end, and so do the callbacks those schedule, due within
---    the same time. A callback is due when it was scheduled, plus its timer's delay: one
---    held back (at a hit-enter prompt, which the guard's own report may cause, or behind
---    a long command) still runs inside the guard. One that tries a refused start is
---    stopped and reported on its own (the plan has moved on). A libuv timer's callback
---    runs on the main loop then (arming needs it), one loop turn later. Callbacks due
---    later run as what the step left behind.
---
--- Every start during a step is recorded (allowed or refused) and written to the log. A
--- step that tried a refused start fails with a message naming what it tried, and the
--- executor stops the plan. Each layer is undone after the step; a step that changed
--- `'shell'` itself (a confirmed `code` step) keeps its new value.
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.GuardAttempt
---@field via string how it was tried: `"through 'shell'"`, `vim.system()`, `a job`…
---@field what string the command line or program, as text to show
---@field why? string why it was refused

---@class leash.GuardStart
---@field via string
---@field what string the argument list, as text
---@field refused? string why it was refused (nil: it ran)

---@class leash.GuardOpts
---@field plan_text? string[] everything the model wrote in the plan (arguments, values,
---  commands): a program named by it, or an argument beginning with `-` that holds a
---  piece of it beginning with `-`, is refused even as an argument list
---@field on_starts? fun(starts: leash.GuardStart[]) called after the step with every start seen
---  (and after each callback it scheduled that ran inside the guard)
---@field label? string the step as messages name it (`step 2 (Run :edit x)`), for a
---  callback of it that tried a refused start
---@field projects? boolean the step is below `[code]`: refuse every start while the current
---  buffer is a file of another project the step moved to

--- Run `fn` with the guard armed; `fn` returns `ok, err` like a step handler. Returns
--- `false, message` when the guard cannot be armed (nothing ran) or when `fn` tried a
--- refused start (the message names it), else what `fn` returned.
---@param fn fun(): boolean?, string?
---@param opts? leash.GuardOpts
---@return boolean ok
---@return string? err
function M.run(fn, opts)
  if H.armed then return H.call(fn) end
  opts = opts or {}
  local program, err = M.refusal_program()
  if not program then return false, err end
  local state = H.new_state(program, opts.plan_text)
  -- The file the step starts on: a step below [code] that moves to a file of another
  -- project gets no program started there (see the module header, 4).
  local projects = opts.projects and { file = H.buffer_file(vim.api.nvim_get_current_buf()), seen = {} } or nil
  state.later = { plan_text = opts.plan_text, label = opts.label, on_starts = opts.on_starts, projects = projects }
  state.projects = projects
  local armed, aerr = pcall(H.arm, state)
  if not armed then
    H.disarm(state)
    return false, 'leash: the process guard could not be set up, so the step did not run: ' .. tostring(aerr)
  end
  local ok, ferr = H.call(fn)
  local attempts = H.disarm(state)
  -- What the step scheduled is covered until then (see the module header, 5).
  state.later.until_ms = vim.uv.now() + M.later_ms
  if opts.on_starts and #state.starts > 0 then pcall(opts.on_starts, state.starts) end
  if #attempts > 0 then return false, M.describe(attempts) end
  return ok, ferr
end

--- The environment entries the guard adds while a step runs (`{ "GIT_CONFIG_KEY_0=…" }`
--- on top of `base`, a `vim.uv.spawn()` environment list). Exposed for specs.
---@param base string[]
---@return string[]
function M.git_env_list(base) return H.git_env_list(base) end

--- `fn` as a continuation of the step running now, to be called later by something that
--- is not a schedule or timer (the person's choice in `vim.ui.select()`): whenever it
--- runs, it runs inside the guard with this step's plan text, and a refused start it
--- tries is reported with the step. Outside a guarded step, `fn` itself.
---@generic F: function
---@param fn F
---@return F
function M.bind(fn)
  local s = H.armed
  if not (s and s.later) then return fn end
  local later = s.later
  return H.later({ plan_text = later.plan_text, label = later.label, on_starts = later.on_starts }, fn)
end

--- How long after a step ends the callbacks it scheduled still run inside the guard, in
--- milliseconds.
M.later_ms = 2000

--- Whether a guarded step is running.
---@return boolean
function M.active() return H.armed ~= nil end

--- Why the argument list `argv` may not start while a step runs with `plan_text`, or nil
--- when it may. Exposed for specs and |:checkhealth|; the armed guard uses it.
---@param argv string[]
---@param plan_text? string[]
---@return string? why
function M.check_argv(argv, plan_text)
  return H.check_argv({ tokens = H.tokens(plan_text or {}), shell = vim.o.shell, program = H.program }, argv)
end

--- The user's value of an option the guard changed while it is armed (`'shell'`), so an
--- undo record keeps the user's value, not the refusal program; else the current value.
---@param name string option name
---@return any
function M.user_option(name)
  local s = H.armed
  if s and name == 'shell' and vim.o.shell == s.shell_value then return s.shell end
  return vim.api.nvim_get_option_value(name, { scope = 'global' })
end

--- The message for a step that tried refused starts.
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
    local why = (a.why and a.why ~= H.shell_line) and ('; ' .. a.why) or ''
    parts[#parts + 1] = ('“%s” (%s%s)'):format(what, a.via, why)
  end
  return ('it tried to start a program: %s. A step not marked [shell] may not run a shell command line or a program the plan chose, so leash refused it'):format(
    table.concat(parts, '; ')
  )
end

--- The refusal program's path, written or repaired when it is missing or not exactly
--- leash's (content, mode, owner), or nil and why not. Checked at every arm: an
--- approved write step could have replaced it since the last one.
---@return string? path
---@return string? err
function M.refusal_program()
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
  local ok, err = pcall(H.ensure_program, dir, path)
  if not ok then return nil, 'leash: cannot write the guard program: ' .. tostring(err) end
  H.program = path
  return path
end

-- Helper data ================================================================

--- What the armed guard saved, or nil when no guarded step runs.
---@type table?
H.armed = nil

--- While a callback a step scheduled runs inside the guard: when it was due (`vim.uv.now()`
--- time), the "now" of what it schedules in turn.
---@type integer?
H.due_now = nil

---@type string?
H.program = nil

--- Why a command line handed to a shell was refused (the `via` already says how).
H.shell_line = 'a shell command line'

--- The first argument that marks a start the guard replaced (recorded already).
H.stand_in_flag = '--leash-refused'

--- The refusal program: records its arguments (unit-separated, one record per call)
--- beside itself under the Neovim process id, and fails without running anything.
H.program_text = [[
#!/bin/sh
# leash: stands in for 'shell' while a plan step that is not [shell] runs.
# It runs nothing: it records its arguments for Neovim to report, then fails.
if [ "$1" != "--leash-refused" ]; then
  log="${0%/*}/refused-$PPID.log"
  { for a in "$@"; do printf '%s\037' "$a"; done; printf '\036'; } >>"$log" 2>/dev/null
fi
echo "leash: refused to run a program from a step that is not [shell]" >&2
exit 126
]]

--- Git's settings that make it run a command, and the value that switches each off while
--- a step runs (see the module header, 4). An empty `credential.helper` clears the list;
--- an empty `core.askPass` or `core.alternateRefsCommand` means none.
H.git_config = {
  { 'core.fsmonitor', 'false' },
  { 'core.hooksPath', '/dev/null' },
  { 'diff.external', 'false' },
  { 'core.pager', 'cat' },
  { 'core.editor', 'false' },
  { 'sequence.editor', 'false' },
  { 'core.sshCommand', 'ssh' },
  { 'core.askPass', '' },
  { 'credential.helper', '' },
  { 'core.alternateRefsCommand', '' },
  { 'gpg.program', 'gpg' },
  { 'gpg.ssh.program', 'ssh-keygen' },
  { 'gpg.x509.program', 'gpgsm' },
}

-- The starting functions whose program has ended when they return.
H.ends_at_once = { ['system()'] = true, ['systemlist()'] = true }

-- Vimscript functions that start programs, checked through vim.call()/nvim_call_function().
H.starting_functions = { system = true, systemlist = true, jobstart = true, termopen = true }

--- Programs that run a command line they are given: a start of one of them is a shell.
--- Added at arm time: the user's 'shell' and every entry of /etc/shells.
H.shells = {
  sh = true,
  bash = true,
  dash = true,
  zsh = true,
  ksh = true,
  mksh = true,
  oksh = true,
  pdksh = true,
  yash = true,
  ash = true,
  hush = true,
  fish = true,
  csh = true,
  tcsh = true,
  rc = true,
  es = true,
  nu = true,
  xonsh = true,
  elvish = true,
  pwsh = true,
  powershell = true,
  cmd = true,
  busybox = true,
  toybox = true,
  -- Run their arguments as a command line through a shell.
  watch = true,
  script = true,
  ssh = true,
  su = true,
  sudo = true,
  doas = true,
  xargs = true,
}

--- Listed in /etc/shells, but not shells for this rule (see H.user_shells).
H.not_shells = { tmux = true, screen = true }

--- Programs that run the program named by their first plain argument: the check looks
--- through them.
H.wrappers = {
  env = true,
  command = true,
  exec = true,
  nice = true,
  nohup = true,
  timeout = true,
  stdbuf = true,
  setsid = true,
  ionice = true,
  chrt = true,
  taskset = true,
  time = true,
  flock = true,
  unbuffer = true,
}

-- Helper functionality =======================================================

--- `fn` as a callback scheduled by a step whose schedule context is `later`, `delay`
--- ms from now (a timer's; 0: at the next turn of the main loop), repeating every
--- `every` ms: run inside the guard when it is due before `later.until_ms` (or while
--- the step still runs), else as it is. "Now" is, inside a callback run this way, the
--- time that callback was due: a chain of callbacks is timed from the step, not from
--- when a blocked main loop got to each. Anything but a function is left alone.
function H.later(later, fn, delay, every)
  if type(fn) ~= 'function' or not later then return fn end
  local due = (H.due_now or vim.uv.now()) + (tonumber(delay) or 0)
  local step = tonumber(every) or 0
  return function(...)
    local this = due
    -- A repeating timer's next call is due one period later.
    if step > 0 then due = due + step end
    if H.armed or (later.until_ms and this > later.until_ms) then return fn(...) end
    local args = vim.F.pack_len(...)
    if vim.in_fast_event() then
      -- A libuv callback cannot arm the guard ('shell', the environment): the main loop can.
      vim.schedule(function() H.run_later(later, fn, args, this) end)
      return
    end
    return H.run_later(later, fn, args, this)
  end
end

--- Run a scheduled callback inside the guard; a refused start it tried is reported with
--- the step that scheduled it. A callback that cannot be guarded does not run.
function H.run_later(later, fn, args, due)
  local notify = require('leash.ui.notify').notify
  local who = later.label and ('a callback that %s scheduled'):format(later.label) or 'a callback a step scheduled'
  local program, perr = M.refusal_program()
  if not program then return notify(('leash: %s did not run: %s'):format(who, perr), vim.log.levels.ERROR) end
  local state = H.new_state(program, later.plan_text)
  state.later = later
  state.projects = later.projects
  local armed, aerr = pcall(H.arm, state)
  if not armed then
    H.disarm(state)
    return notify(
      ('leash: %s did not run: the process guard could not be set up: %s'):format(who, tostring(aerr)),
      vim.log.levels.ERROR
    )
  end
  local outer = H.due_now
  H.due_now = due
  local ok, res = pcall(fn, vim.F.unpack_len(args))
  H.due_now = outer
  local attempts = H.disarm(state)
  if later.on_starts and #state.starts > 0 then pcall(later.on_starts, state.starts) end
  if #attempts > 0 then
    -- The log holds every attempt whole (`on_starts`): a message cut to fit points there.
    local more = later.on_starts and { more = ':Leash log' } or nil
    notify(('leash: %s: %s'):format(who, M.describe(attempts)), vim.log.levels.ERROR, more)
  end
  if not ok then error(res, 0) end
  return res
end

--- The period of a |timer_start()| timer that repeats (its `time`, at least 1 ms, so that
--- its calls do not all count as due at once), or 0.
function H.timer_repeat(time, opts)
  local rep = type(opts) == 'table' and opts['repeat'] or nil
  if rep == nil or rep == 1 or rep == 0 then return 0 end
  return math.max(1, tonumber(time) or 0)
end

--- The methods of libuv timer handles (their `start` is wrapped while a step runs).
function H.timer_methods()
  if H.timer_index == nil then
    local t = vim.uv.new_timer()
    local mt = t and getmetatable(t)
    H.timer_index = type(mt) == 'table' and type(mt.__index) == 'table' and mt.__index or false
    if t then t:close() end
  end
  return H.timer_index or nil
end

function H.call(fn)
  local ok, res, msg = pcall(fn)
  if not ok then return false, tostring(res) end
  if res == false or (res == nil and msg) then return false, msg end
  return true
end

--- The program is leash's when it has exactly leash's text, is a regular file owned by
--- this user, executable, and neither it nor its folder is writable by anyone else.
function H.program_ok(dir, path)
  local uid = vim.uv.getuid()
  local dst = vim.uv.fs_lstat(dir)
  if not dst or dst.type ~= 'directory' or dst.uid ~= uid or bit.band(dst.mode, tonumber('022', 8)) ~= 0 then
    return false
  end
  local st = vim.uv.fs_lstat(path)
  if not st or st.type ~= 'file' or st.uid ~= uid then return false end
  if bit.band(st.mode, tonumber('022', 8)) ~= 0 or bit.band(st.mode, tonumber('100', 8)) == 0 then return false end
  return require('leash.file').read(path) == H.program_text
end

function H.ensure_program(dir, path)
  if H.program_ok(dir, path) then return end
  vim.fn.mkdir(dir, 'p', tonumber('700', 8))
  local dst = assert(vim.uv.fs_lstat(dir))
  if dst.type ~= 'directory' then error(dir .. ' is not a directory') end
  if dst.uid ~= vim.uv.getuid() then error(dir .. ' belongs to another user') end
  assert(vim.uv.fs_chmod(dir, tonumber('700', 8)))
  local tmp = ('%s.%d.tmp'):format(path, vim.uv.os_getpid())
  os.remove(tmp)
  local out = assert(io.open(tmp, 'w'))
  out:write(H.program_text)
  out:close()
  assert(vim.uv.fs_chmod(tmp, tonumber('700', 8)))
  -- rename() replaces a file, symlink or anything else at `path` without following it.
  if vim.fn.isdirectory(path) == 1 then vim.fn.delete(path, 'rf') end
  assert(vim.uv.fs_rename(tmp, path))
  if not H.program_ok(dir, path) then error(path .. ' could not be made leash’s refusal program') end
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

--- Pieces of the plan's text that a start is compared with: each string, and each of
--- its words (split at white space, `,`, `=`, `;` and the path separators `/` and `\`,
--- so `./--output=x` yields `--output=x`).
function H.tokens(plan_text)
  local whole, dashed = {}, {}
  for _, t in ipairs(plan_text) do
    if type(t) == 'string' then
      local pieces = { vim.trim(t) }
      for w in t:gmatch('[^%s,;=/\\]+') do
        pieces[#pieces + 1] = w
      end
      -- `--flag=value` is one piece too: the `=` belongs to it, also after a `/`.
      for w in t:gmatch('%S+') do
        pieces[#pieces + 1] = w
      end
      for w in t:gmatch('[^%s/\\]+') do
        pieces[#pieces + 1] = w
      end
      for _, p in ipairs(pieces) do
        if p ~= '' then
          whole[p] = true
          -- "-" and "--" alone are what tools take as "stdin" and "end of options".
          if p:find('^%-') and p ~= '-' and p ~= '--' then dashed[p] = true end
        end
      end
    end
  end
  return { whole = whole, dashed = dashed }
end

function H.basename(p)
  local b = vim.fs.basename((p:gsub('"', '')))
  return (b:gsub('%.exe$', ''):lower())
end

--- Why `argv` may not start now (see the module header), or nil.
function H.check_argv(s, argv)
  if type(argv) ~= 'table' or type(argv[1]) ~= 'string' or argv[1] == '' then return nil end
  local prog = argv[1]
  if s.program and (prog == s.program or prog == s.shell_value) then return H.shell_line end
  local i, base = 1, H.basename(prog)
  -- Look through `env FOO=1 nice -n 5 sh -c …` to the program that runs.
  while H.wrappers[base] and argv[i + 1] do
    i = i + 1
    while argv[i] and (argv[i]:find('^%-') or argv[i]:find('^[%w_]+=') or argv[i]:find('^%d[%d.]*%a?$')) do
      i = i + 1
    end
    if not argv[i] then break end
    prog, base = argv[i], H.basename(argv[i])
  end
  if H.shells[base] or (s.extra_shells and s.extra_shells[base]) then
    return ('%s runs a command line in a shell'):format(base)
  end
  local t = s.tokens
  if t.whole[prog] or t.whole[base] or t.whole[vim.fs.basename(prog)] then return 'the plan chose the program' end
  for j = 2, #argv do
    local a = argv[j]
    if type(a) == 'string' and a:find('^%-') then
      for d in pairs(t.dashed) do
        if a:find(d, 1, true) then return ('argument “%s” holds plan text that begins with “-”'):format(a) end
      end
    end
  end
  if s.projects then return H.foreign_project(s.projects) end
end

--- The file of buffer `buf` (nil for a special buffer or one without a name).
function H.buffer_file(buf)
  if vim.bo[buf].buftype ~= '' then return nil end
  local name = vim.api.nvim_buf_get_name(buf)
  return name ~= '' and name or nil
end

--- Why nothing may start now because the step moved to a file of another project, or
--- nil. Asked on the main loop only: a libuv callback cannot read the current buffer.
---@param p { file?: string, seen: table<string, string|false> }
function H.foreign_project(p)
  if vim.in_fast_event() then return nil end
  local name = H.buffer_file(vim.api.nvim_get_current_buf())
  if not name or name == p.file then return nil end
  if p.seen[name] == nil then
    local why, err = require('leash.code_dirs').check_path(name, { code_folders = false })
    if err then why = 'leash cannot tell which project the current file belongs to: ' .. err end
    p.seen[name] = why and ('the step moved to a file the plan did not name: it %s'):format(why) or false
  end
  return p.seen[name] or nil
end

--- What the guard saves for one step (nothing is changed yet).
function H.new_state(program, plan_text)
  local pid = vim.uv.os_getpid()
  return {
    attempts = {},
    starts = {},
    approved = {},
    tokens = H.tokens(plan_text or {}),
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

--- The user's shells: 'shell' (its program) and the entries of /etc/shells.
function H.user_shells(shell)
  local out = {}
  local first = vim.split(vim.trim(shell or ''), '%s+')[1]
  if first and first ~= '' then out[H.basename(first)] = true end
  local f = io.open('/etc/shells', 'r')
  if f then
    for line in f:lines() do
      local base = line:find('^/') and H.basename(vim.trim(line))
      -- Terminal multiplexers are listed as login shells; the clipboard provider runs
      -- them with an argument list, and they run no command line unless told to.
      if base and not H.not_shells[base] then out[base] = true end
    end
    f:close()
  end
  return out
end

--- Arm every layer; on an error the caller disarms what was armed.
function H.arm(s)
  os.remove(s.log)
  s.extra_shells = H.user_shells(s.shell)
  H.armed = s
  H.set_quiet('shell', s.shell_value)
  s.shell_set = true
  H.git_env_arm(s)
  H.wrap_lua(s)
end

--- Add Git's switched-off settings (H.git_config) to Neovim's environment, after any
--- `GIT_CONFIG_COUNT` entries the user has; what was there before is saved.
function H.git_env_arm(s)
  local base = tonumber(vim.env.GIT_CONFIG_COUNT or '') or 0
  local saved = {}
  s.git_env = saved
  local function set(k, v)
    if saved[k] == nil then saved[k] = vim.env[k] or false end
    vim.env[k] = v
  end
  for i, kv in ipairs(H.git_config) do
    set(('GIT_CONFIG_KEY_%d'):format(base + i - 1), kv[1])
    set(('GIT_CONFIG_VALUE_%d'):format(base + i - 1), kv[2])
  end
  set('GIT_CONFIG_COUNT', tostring(base + #H.git_config))
end

--- Put Neovim's environment back as it was before the step.
function H.git_env_disarm(s)
  -- vim.env, not libuv's calls: Neovim keeps its own copy of what it read.
  for k, v in pairs(s.git_env or {}) do
    vim.env[k] = v or nil
  end
  s.git_env = nil
end

--- An environment list for `vim.uv.spawn()` (`{ "K=V", … }`, which replaces Neovim's
--- whole environment) with Git's switched-off settings added after the caller's own
--- `GIT_CONFIG_*` entries, unless it carries them already (a copy of Neovim's environment
--- made during the step).
function H.git_env_list(list)
  local count, vars = 0, {}
  local out = {}
  for _, e in ipairs(list) do
    local k, v = tostring(e):match('^([^=]*)=(.*)$')
    if k == 'GIT_CONFIG_COUNT' then
      count = tonumber(v) or 0
    else
      if k then vars[k] = v end
      out[#out + 1] = e
    end
  end
  local last = #H.git_config - 1
  local base = count - #H.git_config
  if base >= 0 and vars['GIT_CONFIG_KEY_' .. (base + last)] == H.git_config[#H.git_config][1] then
    out[#out + 1] = 'GIT_CONFIG_COUNT=' .. count
    return out
  end
  for i, kv in ipairs(H.git_config) do
    out[#out + 1] = ('GIT_CONFIG_KEY_%d=%s'):format(count + i - 1, kv[1])
    out[#out + 1] = ('GIT_CONFIG_VALUE_%d=%s'):format(count + i - 1, kv[2])
  end
  out[#out + 1] = 'GIT_CONFIG_COUNT=' .. (count + #H.git_config)
  return out
end

--- Undo every layer and collect the refused starts. Each part is undone even when
--- another fails.
---@return leash.GuardAttempt[]
function H.disarm(s)
  H.armed = nil
  for i = #s.wrapped, 1, -1 do
    local w = s.wrapped[i]
    if rawget(w.tbl, w.key) == w.wrapper then rawset(w.tbl, w.key, w.original) end
  end
  pcall(H.git_env_disarm, s)
  -- A step that set 'shell' itself (a confirmed code step) keeps its value.
  if s.shell_set and vim.o.shell == s.shell_value and not pcall(H.set_quiet, 'shell', s.shell) then
    vim.o.shell = s.shell
  end
  local ok, logged = pcall(H.read_log, s.log)
  for _, a in ipairs(ok and logged or {}) do
    H.record(s, a.via, a.what, H.shell_line)
  end
  pcall(H.check_new_processes, s)
  return s.attempts
end

--- Remember a start; a refused one (`why`) is also an attempt to report.
function H.record(s, via, what, why)
  s.starts[#s.starts + 1] = { via = via, what = what, refused = why }
  if why then s.attempts[#s.attempts + 1] = { via = via, what = what, why = why } end
end

--- The records of the refusal program: the command line of each call (its last argument,
--- after the shell's flags), or every argument when there is only one.
function H.read_log(path)
  local data = require('leash.file').read(path)
  if not data then return {} end
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

--- A process's argument list from /proc (Linux), or nil.
function H.proc_argv(pid)
  local f = io.open(('/proc/%d/cmdline'):format(pid), 'rb')
  if not f then return nil end
  local data = f:read('*a')
  f:close()
  if not data or data == '' then return nil end
  return vim.split(data, '\0', { plain = true, trimempty = true })
end

--- Check every job and child process that appeared while the step ran: stop the ones
--- the rule refuses (and those whose argument list cannot be read), record all.
function H.check_new_processes(s)
  local seen = {}
  for id, c in pairs(H.job_channels()) do
    if not s.chans[id] then
      local argv = type(c.argv) == 'table' and c.argv or {}
      local pid = vim.F.npcall(vim.fn.jobpid, id)
      if pid then seen[pid] = true end
      if argv[1] and H.basename(argv[1]) == 'refuse-shell' then
        -- The refusal program: a shell line ('shell' with a command string) is shown as
        -- the command; a stand-in for a refused start was recorded when it was made.
        if argv[2] ~= H.stand_in_flag then H.record(s, "a job through 'shell'", argv[#argv] or '', H.shell_line) end
      elseif not (pid and s.approved[pid]) then
        local what = table.concat(argv, ' ')
        local why = #argv == 0 and 'its program is not known' or H.check_argv(s, argv)
        if why then pcall(vim.fn.jobstop, id) end
        H.record(s, why and 'a job, stopped' or 'a job', what ~= '' and what or ('job ' .. id), why)
      end
    end
  end
  for pid in pairs(H.children(s.pid)) do
    if not s.children[pid] and not seen[pid] and not s.approved[pid] then
      local argv = H.proc_argv(pid)
      if not (argv and argv[1] and H.basename(argv[1]) == 'refuse-shell') then
        local why = argv and H.check_argv(s, argv) or (not argv and 'its argument list cannot be read') or nil
        local info = not argv and vim.F.npcall(vim.api.nvim_get_proc, pid)
        local what = argv and table.concat(argv, ' ') or (info and info.name) or ('process ' .. pid)
        if why then vim.uv.kill(pid, 'sigkill') end
        H.record(s, why and 'a process, killed' or 'a process', what, why)
      end
    end
  end
end

--- The argument list that runs in place of a refused one: the refusal program, told not
--- to record (the start was recorded here), so the caller sees a program that failed.
function H.stand_in(s, via, what) return { s.program, H.stand_in_flag, via, what } end

--- Check the Lua entry points' starts for this step; a refused start runs the refusal
--- program instead.
function H.wrap_lua(s)
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
  --- `cmd` as it may run: unchanged, or the stand-in (recorded as refused).
  local function checked(via, cmd)
    if type(cmd) ~= 'table' then return cmd end -- a string is a shell line: 'shell' refuses it
    if cmd[1] == s.program and cmd[2] == H.stand_in_flag then return cmd end
    local what = describe(cmd)
    local why = H.check_argv(s, cmd)
    if not why then
      -- system() has ended before the step does; a job is recorded when the step ends
      -- (H.check_new_processes), uv.spawn() where it starts.
      if H.ends_at_once[via] then H.record(s, via, what) end
      return cmd
    end
    H.record(s, via, what, why)
    return H.stand_in(s, via, what)
  end
  -- vim.fn.system() and friends call vim.call() at call time, even when a plugin kept a
  -- reference to them.
  wrap(vim, 'call', function(original)
    return function(name, ...)
      if H.starting_functions[name] then
        local n, args = select('#', ...), { ... }
        args[1] = checked(name .. '()', args[1])
        return original(name, unpack(args, 1, n))
      end
      if name == 'timer_start' then
        local n, args = select('#', ...), { ... }
        args[2] = H.later(s.later, args[2], args[1], H.timer_repeat(args[1], args[3]))
        return original(name, unpack(args, 1, n))
      end
      return original(name, ...)
    end
  end)
  wrap(vim.api, 'nvim_call_function', function(original)
    return function(name, args)
      if H.starting_functions[name] and type(args) == 'table' then
        args = vim.list_slice(args)
        args[1] = checked(name .. '()', args[1])
      elseif name == 'timer_start' and type(args) == 'table' then
        args = vim.list_slice(args)
        args[2] = H.later(s.later, args[2], args[1], H.timer_repeat(args[1], args[3]))
      end
      return original(name, args)
    end
  end)
  -- What the step schedules runs inside the guard for a while (the module header, 5);
  -- vim.defer_fn() and vim.schedule_wrap() go through these.
  wrap(vim, 'schedule', function(original)
    return function(fn) return original(H.later(s.later, fn)) end
  end)
  local function timer_start(original)
    return function(timer, timeout, rep, fn) return original(timer, timeout, rep, H.later(s.later, fn, timeout, rep)) end
  end
  local timers = H.timer_methods()
  if timers then wrap(timers, 'start', timer_start) end
  wrap(vim.uv, 'timer_start', timer_start)
  -- vim.system() starts through vim.uv.spawn(), looked up at call time.
  wrap(vim.uv, 'spawn', function(original)
    return function(path, opts, on_exit)
      opts = opts or {}
      local argv = { path, unpack(opts.args or {}) }
      local run = checked('vim.uv.spawn()', argv)
      if run ~= argv then
        opts = vim.tbl_extend('force', opts, { args = vim.list_slice(run, 2) })
        path = run[1]
      end
      -- An environment of the caller's own replaces Neovim's: Git's settings go in it too.
      if type(opts.env) == 'table' then opts = vim.tbl_extend('force', opts, { env = H.git_env_list(opts.env) }) end
      local handle, pid = original(path, opts, on_exit)
      if handle and run == argv then
        s.approved[pid] = true
        H.record(s, 'vim.uv.spawn()', describe(argv))
      end
      return handle, pid
    end
  end)
  wrap(io, 'popen', function()
    return function(cmd)
      H.record(s, 'io.popen()', describe(cmd), H.shell_line)
      return nil, 'leash: refused to run a shell command line from a step that is not [shell]'
    end
  end)
  wrap(os, 'execute', function(original)
    return function(cmd)
      -- os.execute() alone only asks whether a shell exists.
      if cmd == nil then return original() end
      H.record(s, 'os.execute()', describe(cmd), H.shell_line)
      return 126 * 256 -- what a shell returns for a command it cannot run
    end
  end)
end

return M
