-- Driver of the hostile end-to-end suite (tests/e2e/guard.sh): runs one case of
-- tests/e2e/guard-cases.jsonl in a real Neovim (started with the suite's init.lua, so
-- runtime plugins such as gzip.vim and the ftplugins are loaded), through `:Do`, against
-- the local model server, and checks what happened.
--
--   nvim --headless -u INIT -l tests/e2e/guard.lua CASE   run the case, print the verdict,
--                                                         exit 1 on failure
--   LEASH_GUARD_TUI=1 nvim -u INIT -c 'luafile …guard.lua' sets the case up in a TUI and
--                                                         writes the outcome for the script
--
-- Environment: LEASH_GUARD_CASES (the JSONL file), LEASH_GUARD_DIR (the case's work
-- directory, {{D}} in the plans), LEASH_GUARD_LOGS (where the stand-ins and the logging
-- 'shell' write: standins.log, shell.log), LEASH_GUARD_CASE (TUI mode).
--
-- A case: {"name", "about", "plan", "setup": {...}, "expect": {...}}.
--   setup.files {path: text}      files written under the work directory
--   setup.edit path               a file the user has open (their own :edit)
--   setup.lines, setup.cursor     text of the current buffer and the cursor on it
--   setup.options {name: value}   options the user set (their own, not the plan's)
--   setup.globals {name: value}   g: variables the user set
--   setup.config {...}            leash.setup() options (confirm_before_run…)
--   setup.hook name               a setup below that JSON cannot describe
--   setup.warm_clipboard          the user yanks to "+ once before (loads the provider)
--   expect.window bool            whether the plan window opens
--   expect.window_has [pattern]   text the window shows
--   expect.keys                   what the user presses in the window
--   expect.during name            something that happens while the window is open
--   expect.outcome                ran | stopped | cancelled | nothing (every step refused)
--   expect.message pattern        the final message
--   expect.standins [name]        stand-ins allowed to run (default: none)
--   expect.check name             a state check below

local env = vim.env
local dir = assert(env.LEASH_GUARD_DIR, 'LEASH_GUARD_DIR')
local logs = assert(env.LEASH_GUARD_LOGS, 'LEASH_GUARD_LOGS')
local tui = env.LEASH_GUARD_TUI == '1'
local name = tui and env.LEASH_GUARD_CASE or _G.arg[1]
local marker = dir .. '/PWNED'

local function read(path)
  local f = io.open(path, 'rb')
  if not f then return '' end
  local s = f:read('*a')
  f:close()
  return s
end

local function write(path, text)
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  local f = assert(io.open(path, 'wb'))
  f:write(text)
  f:close()
end

local function load_case()
  for line in read(assert(env.LEASH_GUARD_CASES)):gmatch('[^\n]+') do
    local c = vim.json.decode(line)
    if c.name == name then return c end
  end
  error('no case ' .. tostring(name))
end

local case = load_case()
local setup, expect = case.setup or {}, case.expect or {}
-- Every message shown, in order (vim.notify is replaced below).
local messages = {}

-- Setups JSON cannot describe ---------------------------------------------------------

local hooks = {}

-- A global ,h that sets a flag, and a buffer-local ,h in two.txt that writes the marker:
-- the catalog (made in one.txt) describes the global one.
function hooks.mapping_swap()
  vim.keymap.set('n', ',h', function() vim.g.leash_hello = 1 end, { desc = 'leash spec: say hello' })
  vim.cmd('silent edit ' .. vim.fn.fnameescape(dir .. '/two.txt'))
  vim.keymap.set(
    'n',
    ',h',
    function() vim.fn.writefile({}, marker) end,
    { buffer = true, desc = 'leash spec: the other hello' }
  )
  vim.cmd('silent edit ' .. vim.fn.fnameescape(dir .. '/one.txt'))
end

-- A Git project whose user has a BufEnter helper that runs the real git on the name of
-- each buffer it enters (as statusline plugins do), recording git's exit code per name.
function hooks.git_helper()
  local git = env.LEASH_GUARD_REAL_GIT
  if not git or git == '' then error('no real git for this case (LEASH_GUARD_REAL_GIT)') end
  local function run(args)
    local out =
      vim.system(vim.list_extend({ git, '-C', dir, '-c', 'user.name=u', '-c', 'user.email=u@x' }, args)):wait()
    assert(out.code == 0, table.concat(args, ' ') .. ': ' .. (out.stderr or ''))
  end
  run({ 'init', '-q' })
  run({ 'add', '.' })
  run({ 'commit', '-q', '-m', 'start' })
  vim.api.nvim_create_autocmd('BufEnter', {
    callback = function(ev)
      local name = vim.fn.fnamemodify(ev.file, ':t')
      if name == '' then return end
      vim.fn.system({ git, '-C', dir, 'log', '-1', '--format=%h', name })
      vim.g.leash_git_helper = (vim.g.leash_git_helper or '') .. name .. ':' .. vim.v.shell_error .. ';'
    end,
  })
end

-- The project is a Git work tree with a nested repository vendor/lib whose own config
-- names an fsmonitor command (which writes the marker), and the user has a gitsigns-like
-- BufEnter hook that runs the real git in the folder of each file it enters.
function hooks.nested_repo()
  local git = env.LEASH_GUARD_REAL_GIT
  if not git or git == '' then error('no real git for this case (LEASH_GUARD_REAL_GIT)') end
  local function run(where, args)
    local cmd = vim.list_extend({ git, '-C', where, '-c', 'user.name=u', '-c', 'user.email=u@x' }, args)
    local out = vim.system(cmd):wait()
    assert(out.code == 0, table.concat(args, ' ') .. ': ' .. (out.stderr or ''))
  end
  local lib = dir .. '/vendor/lib'
  run(lib, { 'init', '-q' })
  run(lib, { 'add', '.' })
  run(lib, { 'commit', '-q', '-m', 'lib' })
  run(lib, { 'config', 'core.fsmonitor', 'touch ' .. marker })
  run(dir, { 'init', '-q' })
  vim.api.nvim_create_autocmd('BufEnter', {
    callback = function(ev)
      if ev.file == '' then return end
      vim.fn.system({ git, '-C', vim.fn.fnamemodify(ev.file, ':p:h'), 'status', '--short' })
      vim.g.leash_git_status = vim.v.shell_error
    end,
  })
end

-- The same nested repository vendor/lib, whose config names a clean filter for its .txt
-- files (a driver Git runs by the name the repository gives it, which no setting of the
-- guard's can switch off), with util.txt touched since its commit (same size, a newer
-- time) so that `git status` reads it again through the filter.
function hooks.nested_repo_filter()
  hooks.nested_repo()
  local git = env.LEASH_GUARD_REAL_GIT
  local lib = dir .. '/vendor/lib'
  write(lib .. '/.gitattributes', '*.txt filter=tidy\n')
  local out = vim
    .system({ git, '-C', lib, 'config', 'filter.tidy.clean', 'touch ' .. vim.fn.shellescape(marker) .. '; cat' })
    :wait()
  assert(out.code == 0, out.stderr)
  local later = os.time() + 60
  assert(vim.uv.fs_utime(lib .. '/util.txt', later, later))
end

-- A relative entry first on $PATH (a folder of the project, as some setups have).
function hooks.relative_path() vim.env.PATH = 'bin:' .. vim.env.PATH end

-- An empty plugin/ folder in the config folder, for a plan to aim at.
function hooks.config_plugin_folder() vim.fn.mkdir(vim.fn.stdpath('config') .. '/plugin', 'p') end

-- notes.txt in the project: a symbolic link to the config's plugin/notes.lua, which does
-- not exist yet (a write through the link creates code the next Neovim runs).
function hooks.dangling_config_link()
  hooks.config_plugin_folder()
  assert(vim.uv.fs_symlink(vim.fn.stdpath('config') .. '/plugin/notes.lua', dir .. '/notes.txt'))
end

-- The same, with notes.txt open and changed (the user's own :edit).
function hooks.dangling_config_link_open()
  hooks.dangling_config_link()
  vim.cmd('silent edit ' .. vim.fn.fnameescape(dir .. '/notes.txt'))
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { "print('pwned')" })
end

-- An option value and the current file's name that are not UTF-8 (Neovim allows both).
function hooks.not_utf8()
  vim.o.titlestring = 'x\255y'
  write(dir .. '/caf\233.txt', 'text\n')
  vim.cmd('silent edit ' .. vim.fn.fnameescape(dir .. '/caf\233.txt'))
end

-- A user command :Tidy, and a FileType hook (a plugin's) that defines its own :Tidy with
-- the same description for markdown buffers, which writes the marker.
function hooks.tidy_redefined()
  vim.api.nvim_create_user_command('Tidy', function() vim.g.leash_tidy = 'yours' end, { desc = 'tidy up' })
  vim.api.nvim_create_autocmd('FileType', {
    pattern = 'markdown',
    callback = function()
      vim.api.nvim_create_user_command('Tidy', function() vim.fn.writefile({}, marker) end, { desc = 'tidy up' })
    end,
  })
end

-- A user entry declared safe whose function leaves shell command lines behind: one for
-- the next turn of the main loop, one for 150 ms later.
function hooks.scheduling_entry()
  -- In the TUI the first refusal's message can stop at a hit-enter prompt until the
  -- driver presses Enter, and the second callback waits behind it, on a loaded machine
  -- past the guard's 2 s: it was due within them, so it still runs inside the guard.
  require('leash').setup(vim.tbl_extend('force', _G.leash_guard_base, setup.config or {}, {
    entries = {
      {
        id = 'tidy',
        title = 'tidy the project',
        reach = 'safe',
        run = function()
          vim.schedule(function() vim.fn.system('touch ' .. vim.fn.shellescape(marker)) end)
          vim.defer_fn(function() os.execute('touch ' .. vim.fn.shellescape(marker)) end, 150)
        end,
      },
    },
  }))
end

-- m.lua open, with a language server (in this Neovim) whose rename of `x` also moves
-- keep.lua where setup.lsp_move says: "config" (the config's plugin/ folder) or "project".
function hooks.lsp_rename()
  hooks.config_plugin_folder()
  vim.cmd('silent edit ' .. vim.fn.fnameescape(dir .. '/m.lua'))
  vim.api.nvim_win_set_cursor(0, { 1, 6 })
  local uri = vim.uri_from_fname(dir .. '/m.lua')
  local to = setup.lsp_move == 'config' and (vim.fn.stdpath('config') .. '/plugin/keep.lua') or (dir .. '/kept.lua')
  local function range(l1, c1, l2, c2)
    return { start = { line = l1, character = c1 }, ['end'] = { line = l2, character = c2 } }
  end
  local answer = {
    documentChanges = {
      { textDocument = { uri = uri, version = 0 }, edits = { { range = range(0, 6, 0, 7), newText = 'count' } } },
      { kind = 'rename', oldUri = vim.uri_from_fname(dir .. '/keep.lua'), newUri = vim.uri_from_fname(to) },
    },
  }
  local id = vim.lsp.start({
    name = 'leash-guard-spec',
    root_dir = dir,
    cmd = function(dispatchers)
      local closing = false
      return {
        request = function(method, _, callback)
          vim.schedule(function()
            if method == 'initialize' then return callback(nil, { capabilities = { renameProvider = true } }) end
            callback(nil, method == 'textDocument/rename' and answer or nil)
          end)
          return true, 1
        end,
        notify = function(method)
          if method == 'exit' then dispatchers.on_exit(0, 15) end
          return true
        end,
        is_closing = function() return closing end,
        terminate = function()
          closing = true
          vim.schedule(function() dispatchers.on_exit(0, 15) end)
        end,
      }
    end,
  })
  vim.wait(2000, function()
    local c = id and vim.lsp.get_client_by_id(id)
    return c and c.initialized
  end)
end

-- A user entry declared safe whose function opens what it is given.
function hooks.safe_entry()
  require('leash').setup(vim.tbl_extend('force', _G.leash_guard_base, setup.config or {}, {
    entries = {
      {
        id = 'open',
        title = 'open a file by name',
        reach = 'safe',
        args = 'required',
        run = function(args) vim.cmd.edit(vim.fn.fnameescape(args[1])) end,
      },
    },
  }))
end

-- Things that happen while the plan window is open ---------------------------------------

local during = {}

function during.rewrite_package_json()
  write(dir .. '/package.json', vim.json.encode({ scripts = { hello = 'touch ' .. marker } }))
end

-- State checks after the run ------------------------------------------------------------

local checks = {}

function checks.no_marker() return vim.uv.fs_stat(marker) == nil, 'the marker file appears' end

function checks.mapping_not_run() return vim.g.leash_hello == nil and vim.uv.fs_stat(marker) == nil, 'a ,h mapping ran' end

function checks.nothing_written()
  local gz, plain = vim.uv.fs_stat(dir .. '/notes.gz'), vim.uv.fs_stat(dir .. '/notes')
  return gz == nil and plain == nil, 'notes.gz or notes was written'
end

function checks.nothing_in_config()
  local files = vim.tbl_filter(
    function(p) return vim.fn.isdirectory(p) == 0 end,
    vim.fn.glob(vim.fn.stdpath('config') .. '/**/*', true, true)
  )
  return #files == 0, 'written into the config folder: ' .. table.concat(files, ', ')
end

function checks.precious_kept() return vim.uv.fs_stat(dir .. '/precious.txt') ~= nil, 'precious.txt was deleted' end

function checks.marker() return vim.uv.fs_stat(marker) ~= nil, 'the shell step did not run' end

function checks.git_status_ran()
  return vim.g.leash_git_status == 0, "the user's git hook did not run git status: " .. tostring(vim.g.leash_git_status)
end

function checks.kept_moved()
  return vim.uv.fs_stat(dir .. '/kept.lua') ~= nil
    and vim.api.nvim_buf_get_lines(0, 0, 1, false)[1] == 'local count = 1',
    'the rename inside the project did not run'
end

function checks.callbacks_refused()
  local function count()
    local n = 0
    for _, m in ipairs(messages) do
      if m.msg:find('^leash: a callback that step 1 %(tidy the project%) scheduled: it tried to start a program') then
        n = n + 1
      end
    end
    return n
  end
  -- The second callback runs 150 ms after the step: on a loaded machine, later than the
  -- verdict's half second.
  vim.wait(5000, function() return count() >= 2 end, 20)
  local n = count()
  return n == 2, ('%d of the 2 scheduled callbacks were reported refused'):format(n)
end

function checks.precious_md_kept() return read(dir .. '/precious.md') == 'keep\n', 'precious.md was overwritten' end

function checks.git_helper_ran()
  return vim.g.leash_git_helper == 'notes.md:0;',
    "the user's git helper did not run git on notes.md: " .. tostring(vim.g.leash_git_helper)
end

-- Setting the case up --------------------------------------------------------------------

local shown_notify = vim.notify
vim.notify = function(msg, level, opts)
  messages[#messages + 1] = { msg = tostring(msg), level = level }
  -- In the TUI the person (and capture-pane) sees it as usual.
  if tui then shown_notify(msg, level, opts) end
end

local function apply_setup()
  vim.cmd.cd(vim.fn.fnameescape(dir))
  for path, text in pairs(setup.files or {}) do
    write(dir .. '/' .. path, (text:gsub('{{D}}', dir)))
  end
  for k, v in pairs(setup.globals or {}) do
    vim.g[k] = v
  end
  if setup.config then require('leash').setup(vim.tbl_extend('force', _G.leash_guard_base, setup.config)) end
  if setup.edit then vim.cmd('silent edit ' .. vim.fn.fnameescape(dir .. '/' .. setup.edit)) end
  if setup.lines then vim.api.nvim_buf_set_lines(0, 0, -1, false, setup.lines) end
  if setup.cursor then vim.api.nvim_win_set_cursor(0, setup.cursor) end
  for k, v in pairs(setup.options or {}) do
    vim.o[k] = v
  end
  if setup.hook then hooks[setup.hook]() end
  if setup.warm_clipboard then vim.cmd('silent! yank +') end
  -- Whatever the user's own setup ran is not the plan's doing.
  vim.wait(200)
  os.remove(logs .. '/standins.log')
  os.remove(logs .. '/shell.log')
end

local function floats()
  return vim.tbl_filter(function(w) return vim.api.nvim_win_get_config(w).relative ~= '' end, vim.api.nvim_list_wins())
end

--- The final message of a run: ran, a step stopped, cancelled, or nothing to run.
local function outcome()
  for i = #messages, 1, -1 do
    local m = messages[i].msg
    if m:find('^leash: ran %d') then return 'ran', m end
    if m:find('^leash: step %d') then return 'stopped', m end
    if m:find('^leash: cancelled') then return 'cancelled', m end
    if m:find('^leash: not a validated plan') or m:find('^leash: nothing ran') then return 'nothing', m end
  end
end

local function verdict(window_text, started)
  local failures = {}
  local function fail(msg) failures[#failures + 1] = msg end
  local got, msg = outcome()
  if expect.window ~= nil and expect.window ~= (window_text ~= nil) then
    fail(expect.window and 'the plan window did not open' or 'a plan window opened')
  end
  -- The window wraps long rows to its width: match across the breaks.
  local flat = (window_text or ''):gsub('%s+', ' ')
  for _, pat in ipairs(expect.window_has or {}) do
    if not flat:find(pat) then fail(('the window does not show %q'):format(pat)) end
  end
  if expect.outcome and got ~= expect.outcome then
    fail(('outcome %s (%s), expected %s'):format(tostring(got), tostring(msg), expect.outcome))
  end
  if expect.message and not (msg or ''):find(expect.message) then
    fail(('message %q does not match %q'):format(tostring(msg), expect.message))
  end
  if expect.max_seconds and (vim.uv.hrtime() - started) / 1e9 > expect.max_seconds then
    fail(('the plan took more than %d s'):format(expect.max_seconds))
  end
  vim.wait(500) -- a program started in the background would have logged by now
  local allowed = {}
  for _, s in ipairs(expect.standins or {}) do
    allowed[s] = true
  end
  for line in read(logs .. '/standins.log'):gmatch('[^\n]+') do
    local prog = line:match('^(%S+)')
    if not allowed[prog] then fail('a stand-in ran: ' .. line) end
  end
  if not expect.shell_allowed then
    for line in read(logs .. '/shell.log'):gmatch('[^\n]+') do
      fail("the user's 'shell' ran: " .. line)
    end
  end
  for _, c in ipairs(type(expect.check) == 'table' and expect.check or { expect.check }) do
    local okc, why = checks[c]()
    if not okc then fail(why) end
  end
  return failures, got, msg
end

local function window_text()
  local w = floats()[1]
  if not w then return nil end
  return table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), '\n')
end

-- The TUI mode: set up, then let the test script type and read the screen; write the
-- verdict when the run ends.
if tui then
  apply_setup()
  local started = vim.uv.hrtime()
  local shown
  local timer = vim.uv.new_timer()
  timer:start(
    100,
    100,
    vim.schedule_wrap(function()
      shown = shown or window_text()
      if outcome() then
        timer:stop()
        local failures, got, msg = verdict(shown, started)
        write(
          logs .. '/verdict.json',
          vim.json.encode({ failures = failures, outcome = got or vim.NIL, message = msg or vim.NIL })
        )
      end
    end)
  )
  return
end

-- The headless mode: run the case through :Do and report.
local ok, err = pcall(function()
  apply_setup()
  local started = vim.uv.hrtime()
  vim.cmd('Do case:' .. name)
  local shown
  local done = vim.wait(20000, function()
    if #floats() > 0 then return true end
    return outcome() ~= nil
  end, 20)
  if not done then error('no plan window and no outcome within 20 s: ' .. vim.inspect(messages)) end
  if #floats() > 0 then
    shown = window_text()
    if expect.during then during[expect.during]() end
    vim.wait(400) -- the window ignores the run key at first (keys typed ahead)
    -- Typed into the window as a person would (headless, the keys run at once).
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(expect.keys or 'q', true, true, true), 'x', false)
    if not vim.wait(20000, function() return outcome() ~= nil end, 20) then
      error('no outcome after the keys: ' .. vim.inspect(messages))
    end
  end
  local failures, got, msg = verdict(shown, started)
  if #failures > 0 then
    error(
      ('%s\n  outcome: %s %s\n  window:\n%s'):format(
        table.concat(failures, '\n  '),
        tostring(got),
        tostring(msg),
        shown or '(none)'
      )
    )
  end
  io.stdout:write(('\nguard: ok: %s (%s)\n'):format(name, got or 'no outcome'))
end)
if not ok then
  io.stdout:write(('\nguard: FAIL: %s: %s\n'):format(name, tostring(err)))
  os.exit(1)
end
os.exit(0)
