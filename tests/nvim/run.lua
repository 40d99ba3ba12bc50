-- Minimal spec runner for headless Neovim:
--   nvim --headless --clean -l tests/nvim/run.lua [tests/nvim/foo_spec.lua ...]
-- Run from the repository root. Each spec file runs in a Neovim of its own (the same
-- binary as the runner, started with --headless --clean), so no spec can leak editor
-- state into the next. Each spec file gets describe/it/before_each and the assertions
-- eq/ok/matches/raises as globals (only inside this runner). Prints every failure with
-- file:line and ends with exactly one "N passed, N failed, N skipped" line for all files;
-- exits non-zero on any failure. `skip(reason)` inside an `it` skips the test (a tool it
-- needs is missing); under CI (CI=true) a skip is a failure, since CI installs every tool.
--
-- Internally, the runner starts itself once per file with `--result PATH FILE`; that
-- child runs FILE in-process and writes its counts and failures to PATH as JSON.
local root = vim.fn.getcwd()

local args = {}
for i = 1, #_G.arg do
  args[#args + 1] = _G.arg[i]
end

local H = {}

--- Runs each spec file in a fresh Neovim; returns the totals and the failure lines.
function H.run_each(files)
  local passed, failed, failures, skipped = 0, 0, {}, {}
  for _, file in ipairs(files) do
    local result = vim.fn.tempname()
    local code, stderr =
      H.spawn({ vim.v.progpath, '--headless', '--clean', '-l', 'tests/nvim/run.lua', '--result', result, file })
    local f = io.open(result, 'r')
    local ok, r = pcall(vim.json.decode, f and f:read('*a') or '')
    if f then f:close() end
    os.remove(result)
    if ok and type(r) == 'table' then
      passed, failed = passed + r.passed, failed + r.failed
      vim.list_extend(failures, r.failures)
      vim.list_extend(skipped, r.skipped or {})
    else
      failed = failed + 1
      -- The summary is what a CI log's tail shows: it carries why the Neovim ended.
      local tail = vim.trim(stderr):gsub('\n', '\n    ')
      failures[#failures + 1] = ('%s: Neovim exited with %s before reporting a result%s'):format(
        file,
        code,
        tail ~= '' and (', its last words on stderr:\n    ' .. tail) or ' (nothing on stderr)'
      )
    end
  end
  return passed, failed, failures, skipped
end

--- Starts `cmd` with this process's stdout, passes its stderr through, and waits for it.
--- Returns how it ended ("code N", with the signal when one ended it) and the last 2 KB
--- of its stderr.
function H.spawn(cmd)
  local code, signal
  local err_pipe = assert(vim.uv.new_pipe(false))
  local tail, eof = '', false
  local handle = vim.uv.spawn(cmd[1], {
    args = vim.list_slice(cmd, 2),
    cwd = root,
    stdio = { nil, 1, err_pipe },
  }, function(c, s)
    code, signal = c, s
  end)
  if not handle then
    err_pipe:close()
    return 'unknown (could not start ' .. cmd[1] .. ')', ''
  end
  err_pipe:read_start(function(_, data)
    if not data then
      eof = true
      return
    end
    io.stderr:write(data)
    tail = (tail .. data):sub(-2048)
  end)
  -- A spec that hangs is a failure, not a stuck suite.
  local how
  if not vim.wait(15 * 60 * 1000, function() return code ~= nil end, 20) then
    handle:kill('sigkill')
    vim.wait(5000, function() return code ~= nil end, 20)
    how = 'a timeout (15 minutes)'
  end
  -- Whatever the child wrote last is read before the pipe closes.
  vim.wait(1000, function() return eof end, 10)
  err_pipe:close()
  handle:close()
  how = how or ('code %s%s'):format(code, (signal or 0) ~= 0 and (', signal ' .. signal) or '')
  return how, tail
end

--- Exits through Neovim's own exit path, which removes its temporary directory (where
--- the specs' `tempname()` projects live); `os.exit` would skip that and leave it behind.
function H.exit(code) vim.cmd(('cquit %d'):format(code)) end

local result_path
if args[1] == '--result' then
  result_path = args[2]
  args = vim.list_slice(args, 3)
end

local files = args
if #files == 0 then
  files = vim.fn.glob(root .. '/tests/nvim/*_spec.lua', false, true)
  table.sort(files)
end

if not result_path then
  local passed, failed, failures, skipped = H.run_each(files)
  if #skipped > 0 then io.stdout:write('\nSkipped:\n' .. table.concat(skipped, '\n') .. '\n') end
  if #failures > 0 then
    io.stdout:write('\nFailures:\n')
    for _, f in ipairs(failures) do
      io.stdout:write(f .. '\n')
    end
  end
  io.stdout:write(('%d passed, %d failed, %d skipped\n'):format(passed, failed, #skipped))
  H.exit(failed > 0 and 1 or 0)
end

-- The child: run the files in this process.
vim.opt.rtp:prepend(root)
vim.cmd.runtime('plugin/leash.lua')

-- Notifications would interleave with the report; specs that check them capture them
-- (or put Neovim's own back from `package.loaded['spec.builtin_notify']`).
package.loaded['spec.builtin_notify'] = vim.notify
vim.notify = function() end

local passed, failed, failures, skipped = 0, 0, {}, {}
local stack, befores = {}, {}
local in_ci = os.getenv('CI') == 'true'

--- What `skip` raises: told apart from a failure by `it`.
local Skip = {}

--- The spec line of an error: the first traceback frame inside a *_spec.lua file.
local function where(trace)
  for file, line in trace:gmatch('([^%s:]*_spec%.lua):(%d+)') do
    return vim.fn.fnamemodify(file, ':.') .. ':' .. line
  end
  return '?'
end

local env = {}
function env.describe(name, fn)
  stack[#stack + 1] = name
  local saved = #befores
  fn()
  for i = #befores, saved + 1, -1 do
    befores[i] = nil
  end
  stack[#stack] = nil
end

function env.before_each(fn) befores[#befores + 1] = fn end

function env.it(name, fn)
  local full = table.concat(stack, ' ') .. ' ' .. name
  local trace, skip_reason
  local ok = xpcall(function()
    for _, b in ipairs(befores) do
      b()
    end
    fn()
  end, function(err)
    if getmetatable(err) == Skip then
      skip_reason = err.reason
      trace = debug.traceback('skipped under CI: ' .. err.reason, 3)
    else
      trace = debug.traceback(tostring(err), 2)
    end
    return err
  end)
  if skip_reason and not in_ci then
    skipped[#skipped + 1] = ('%s: %s (%s)'):format(where(trace), full, skip_reason)
    io.stdout:write('SKIP ' .. full .. ' (' .. skip_reason .. ')\n')
  elseif ok then
    passed = passed + 1
    io.stdout:write('ok   ' .. full .. '\n')
  else
    failed = failed + 1
    local msg = trace:match('^[^\n]*')
    failures[#failures + 1] = ('%s: %s\n    %s'):format(where(trace), full, msg)
    io.stdout:write('FAIL ' .. full .. '\n')
  end
end

function env.eq(expected, actual, what)
  if not vim.deep_equal(expected, actual) then
    error(
      ('%sexpected %s, got %s'):format(what and (what .. ': ') or '', vim.inspect(expected), vim.inspect(actual)),
      2
    )
  end
end

function env.ok(cond, what)
  if not cond then error('expected true: ' .. (what or '?'), 2) end
  return cond
end

function env.matches(pattern, str, what)
  if type(str) ~= 'string' or not str:find(pattern) then
    error(('%sexpected %s to match %q'):format(what and (what .. ': ') or '', vim.inspect(str), pattern), 2)
  end
end

--- Skip the running test: a tool it needs is missing. A failure under CI.
---@param reason string what is missing, e.g. "make is not installed"
function env.skip(reason) error(setmetatable({ reason = reason }, Skip), 2) end

--- Call fn, expect an error, return its message.
function env.raises(fn, ...)
  local ok, err = pcall(fn, ...)
  if ok then error('expected an error, got none', 2) end
  return tostring(err)
end

--- Reload every leash Lua module (the native library stays loaded in the process).
function env.fresh()
  for name in pairs(package.loaded) do
    if name == 'leash' or name:match('^leash%.') then package.loaded[name] = nil end
  end
end

--- Hide the native library: the loader finds none until `native.reset()`. Returns the
--- empty folder it looks in and a function that puts CARGO_TARGET_DIR back (call it once
--- the loader has looked).
function env.without_native()
  local empty = vim.fn.tempname()
  vim.fn.mkdir(empty, 'p')
  local saved = vim.env.CARGO_TARGET_DIR
  vim.env.CARGO_TARGET_DIR = nil
  require('leash.native').reset({ root = empty, runtimepath = false })
  return empty, function() vim.env.CARGO_TARGET_DIR = saved end
end

env.root = root
setmetatable(env, { __index = _G })

for _, file in ipairs(files) do
  env.fresh()
  local chunk, err = loadfile(file, 't', env)
  if not chunk then
    failed = failed + 1
    failures[#failures + 1] = ('%s: could not load: %s'):format(file, err)
  else
    local ok, lerr = xpcall(chunk, debug.traceback)
    if not ok then
      failed = failed + 1
      failures[#failures + 1] = ('%s: %s'):format(where(lerr), lerr:match('^[^\n]*'))
    end
  end
end

local f = assert(io.open(result_path, 'w'))
f:write(vim.json.encode({ passed = passed, failed = failed, failures = failures, skipped = skipped }))
f:close()
H.exit(0)
