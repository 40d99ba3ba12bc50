-- lua/leash/guard.lua (design rule 7): while a step that is not shell runs, no shell command
-- line runs and no argument-list start the rule refuses; the user's own argument-list starts
-- run. Each layer is tried on its own (a marker file appears only if a program really ran),
-- then the executor's use of it: a step that tried is stopped with a message naming it.

local dir = vim.fn.tempname() .. '-guard'
vim.fn.mkdir(dir, 'p')
local marker = dir .. '/ran'

local function exists(path) return vim.uv.fs_stat(path) ~= nil end

--- `fn` inside the guard; the marker must not appear (now or a little later).
local function refused(fn, what, opts)
  vim.fn.delete(marker)
  local okr, err = require('leash.guard').run(fn, opts)
  vim.wait(300, function() return exists(marker) end)
  eq(false, exists(marker), (what or '') .. ': the program ran')
  eq(false, okr, (what or '') .. ': the step was not stopped')
  return err
end

local touch = 'touch ' .. vim.fn.shellescape(marker)

describe('guard', function()
  before_each(function()
    fresh()
    vim.fn.delete(marker)
  end)

  it('a refused start of a scheduled callback, said in one line, points to the log that holds it', function()
    local g = require('leash.guard')
    vim.o.columns = 80
    local said, echo, silenced = {}, vim.api.nvim_echo, vim.notify
    vim.api.nvim_echo = function(chunks)
      said[#said + 1] = table.concat(vim.tbl_map(function(c) return c[1] end, chunks))
    end
    vim.notify = package.loaded['spec.builtin_notify']
    local logged
    local okr = g.run(function()
      vim.schedule(function() vim.fn.system(touch) end)
    end, { label = 'step 1 (Run :edit x)', on_starts = function(starts) logged = starts end })
    vim.wait(500, function() return #said > 0 end)
    vim.notify, vim.api.nvim_echo = silenced, echo
    eq(true, okr)
    eq(false, exists(marker))
    ok(logged and #logged > 0, 'the log was given the start')
    matches('^leash: a callback that step 1 .*… %(:Leash log%)$', said[#said])
  end)

  it('covers what a step schedules for a while after it, and reports a refused start of it', function()
    local g = require('leash.guard')
    local notes = {}
    local notify = vim.notify
    vim.notify = function(msg) notes[#notes + 1] = tostring(msg) end
    local seen = {}
    local okr, err = g.run(function()
      -- A shell line from each way a step can leave work behind; an argument-list start
      -- of the user's kind runs.
      vim.schedule(function() vim.fn.system(touch) end)
      vim.defer_fn(function() os.execute(touch) end, 150)
      vim.uv.new_timer():start(100, 0, function() pcall(vim.uv.spawn, 'sh', { args = { '-c', touch } }) end)
      vim.fn.timer_start(120, function() vim.fn.jobstart(touch) end)
      vim.defer_fn(function()
        seen.shell = vim.o.shell
        seen.code = vim.system({ 'true' }):wait().code
        -- What a scheduled callback schedules is covered too.
        vim.schedule(function() vim.fn.system(touch) end)
      end, 50)
    end, { label = 'step 1 (Run :edit x)' })
    eq(true, okr, err)
    vim.wait(800, function() return exists(marker) end)
    vim.notify = notify
    eq(false, exists(marker), 'a scheduled callback ran a shell command')
    eq(0, seen.code, 'an argument-list start runs')
    ok(seen.shell and seen.shell:find('refuse%-shell'), tostring(seen.shell))
    local text = table.concat(notes, '\n')
    matches('leash: a callback that step 1 %(Run :edit x%) scheduled: it tried to start a program: “touch', text)
    ok(#notes >= 5, text)
    eq(false, g.active())
    -- Past the bound, what the step left behind runs as it is.
    local bound = g.later_ms
    g.later_ms = 50
    okr = g.run(function()
      vim.defer_fn(function() vim.fn.system(touch) end, 300)
    end)
    g.later_ms = bound
    eq(true, okr)
    vim.wait(1000, function() return exists(marker) end)
    eq(true, exists(marker), 'control: a callback after the bound runs without the guard')
  end)

  it('covers what was due within the bound, however long the main loop held it back', function()
    local g = require('leash.guard')
    local notes = {}
    local notify = vim.notify
    vim.notify = function(msg) notes[#notes + 1] = tostring(msg) end
    local bound = g.later_ms
    g.later_ms = 100
    -- Each way a step leaves work behind, due within the bound; what those schedule too.
    local okr = g.run(function()
      vim.schedule(function() vim.fn.system(touch) end)
      vim.defer_fn(function() os.execute(touch) end, 20)
      vim.fn.timer_start(30, function()
        vim.schedule(function() vim.fn.system(touch) end)
      end)
      vim.uv.new_timer():start(40, 0, function() pcall(vim.uv.spawn, 'sh', { args = { '-c', touch } }) end)
    end, { label = 'step 1 (Run :Tidy)' })
    -- The main loop does not turn for three times the bound (a hit-enter prompt waiting
    -- for Enter, which a refusal's own message may bring up, or a long command).
    vim.uv.sleep(300)
    vim.wait(500, function() return exists(marker) end)
    g.later_ms = bound
    vim.notify = notify
    eq(true, okr)
    eq(false, exists(marker), 'a callback held back past the bound ran a shell command')
    -- Callbacks that run in one turn may be reported together: each start is named.
    local text = table.concat(notes, '\n')
    matches('^leash: a callback that step 1 %(Run :Tidy%) scheduled: it tried to start a program', text)
    eq(3, select(2, text:gsub('“touch ', '')), text)
    -- A repeating timer's later calls are due later: past the bound they run as they are.
    local calls, guarded = 0, {}
    g.later_ms = 100
    okr = g.run(function()
      local t = vim.uv.new_timer()
      t:start(10, 60, function()
        calls = calls + 1
        vim.schedule(function() guarded[#guarded + 1] = g.active() end)
        if calls == 4 then
          t:stop()
          t:close()
        end
      end)
    end)
    g.later_ms = bound
    vim.wait(1000, function() return #guarded == 4 end)
    eq({ true, true, false, false }, guarded)
    -- A Vimscript timer repeating every 0 ms: its calls count 1 ms apart, so they too
    -- leave the window.
    local n, last = 0, nil
    g.later_ms = 100
    g.run(function()
      vim.fn.timer_start(0, function(id)
        n = n + 1
        last = g.active()
        if n >= 300 then vim.fn.timer_stop(id) end
      end, { ['repeat'] = -1 })
    end)
    g.later_ms = bound
    vim.wait(5000, function() return n >= 300 end, 1)
    eq(300, n)
    eq(false, last, 'the 300th call of a 0 ms timer ran inside the guard')
  end)

  it("switches off Git's command settings for child processes while a step runs", function()
    if vim.fn.executable('git') == 0 then return skip('git is not installed') end
    -- A repository whose own config names commands Git would run: fsmonitor on status,
    -- a hook on commit.
    local repo = dir .. '/repo'
    vim.fn.mkdir(repo .. '/hooks', 'p')
    local function git(args, opts)
      return vim
        .system(vim.list_extend({ 'git', '-C', repo, '-c', 'user.name=u', '-c', 'user.email=u@x' }, args), opts)
        :wait()
    end
    eq(0, git({ 'init', '-q' }).code)
    vim.fn.writefile({ 'a' }, repo .. '/f')
    eq(0, git({ 'add', 'f' }).code)
    eq(0, git({ 'config', 'core.fsmonitor', touch }).code)
    vim.fn.writefile({ '#!/bin/sh', touch }, repo .. '/hooks/pre-commit')
    vim.uv.fs_chmod(repo .. '/hooks/pre-commit', tonumber('755', 8))
    eq(0, git({ 'config', 'core.hooksPath', repo .. '/hooks' }).code)
    local user_count = vim.env.GIT_CONFIG_COUNT
    local seen = {}
    local okr, err = require('leash.guard').run(function()
      seen.count = vim.env.GIT_CONFIG_COUNT
      seen.status = git({ 'status', '--short' }).code
      seen.commit = git({ 'commit', '-q', '-m', 'x' }).code
      -- A caller's own environment (which replaces Neovim's in vim.uv.spawn) gets it too.
      seen.fsmonitor = git({ 'config', 'core.fsmonitor' }, { env = { LEASH_SPEC = '1' }, clear_env = true }).stdout
    end)
    eq(true, okr, err)
    eq(0, seen.status, 'git status runs')
    eq(0, seen.commit, 'git commit runs, without the hook')
    eq('false\n', seen.fsmonitor)
    ok(tonumber(seen.count) and tonumber(seen.count) >= 2, tostring(seen.count))
    vim.wait(300, function() return exists(marker) end)
    eq(false, exists(marker), "the repository's own command ran")
    eq(user_count, vim.env.GIT_CONFIG_COUNT, 'the environment is put back after the step')
    -- Outside a step, the repository's settings are the user's business again.
    git({ 'status', '--short' })
    eq(true, exists(marker), 'control: git runs the fsmonitor command outside a step')
    -- The caller's own GIT_CONFIG entries stay first; a list that has them already is kept.
    local list = require('leash.guard').git_env_list({
      'A=1',
      'GIT_CONFIG_COUNT=1',
      'GIT_CONFIG_KEY_0=x.y',
      'GIT_CONFIG_VALUE_0=z',
    })
    ok(vim.tbl_contains(list, 'GIT_CONFIG_KEY_1=core.fsmonitor'), vim.inspect(list))
    ok(vim.tbl_contains(list, 'GIT_CONFIG_KEY_0=x.y'), vim.inspect(list))
    eq(list, require('leash.guard').git_env_list(list))
  end)

  it("points 'shell' at the refusal program and puts the user's value back", function()
    local user = vim.o.shell
    local seen
    local err = refused(function()
      seen = vim.o.shell
      vim.cmd('silent! call system(' .. vim.fn.string(touch) .. ')')
    end, ':call system()')
    ok(seen ~= user and seen:find('refuse%-shell'), seen)
    eq(user, vim.o.shell)
    matches("it tried to start a program: “touch .-” %(through 'shell'%)", err)
  end)

  it('refuses what Neovim runs through the shell for a command', function()
    refused(function() vim.cmd('silent! !' .. touch) end, ':!')
    -- A quote makes :argadd expand the name through the shell.
    local err = refused(
      function() vim.api.nvim_cmd({ cmd = 'argadd', args = { "a'b" }, magic = { file = false, bar = false } }, {}) end,
      'shell glob'
    )
    matches('vimglob', err)
    pcall(vim.cmd, 'silent! %argdelete')
  end)

  it('refuses shell lines from Lua without raising: the caller sees a failed command', function()
    local kept_system = vim.fn.system
    local seen = {}
    local cases = {
      ['vim.fn.system(string)'] = function()
        seen.out = vim.fn.system(touch)
        seen.code = vim.v.shell_error
      end,
      ['kept vim.fn.system(string)'] = function() kept_system(touch) end,
      ['vim.fn.jobstart(string)'] = function() vim.fn.jobwait({ vim.fn.jobstart(touch) }, 2000) end,
      ['io.popen'] = function() seen.popen = { io.popen(touch) } end,
      ['os.execute'] = function() seen.execute = os.execute(touch) end,
    }
    for name, fn in pairs(cases) do
      local err = refused(fn, name)
      matches('“touch .*' .. vim.pesc(vim.fs.basename(marker)), err, name)
      ok(not err:find('stack traceback'), name .. ': ' .. err)
    end
    eq(126, seen.code)
    eq(nil, seen.popen[1])
    ok(seen.execute ~= 0)
    eq(kept_system, vim.fn.system)
  end)

  it('refuses a shell started with an argument list, through every entry point, without raising', function()
    local res = {}
    local sh = { 'sh', '-c', touch }
    local cases = {
      ['vim.system'] = function() res.system = vim.system(sh):wait() end,
      ['vim.uv.spawn'] = function()
        local done = false
        local h = vim.uv.spawn('bash', { args = { '-c', touch } }, function(code)
          res.spawn, done = code, true
        end)
        ok(h ~= nil, 'a handle, as for a program that ran')
        vim.wait(2000, function() return done end)
      end,
      ['vim.fn.system(list)'] = function()
        vim.fn.system({ 'env', 'FOO=1', 'nice', '-n', '5', 'sh', '-c', touch })
        res.shell_error = vim.v.shell_error
      end,
      ['vim.fn.jobstart(list)'] = function() vim.fn.jobwait({ vim.fn.jobstart({ 'dash', '-c', touch }) }, 2000) end,
      ['nvim_call_function'] = function()
        vim.fn.jobwait({ vim.api.nvim_call_function('jobstart', { { 'sh', '-c', touch } }) }, 2000)
      end,
    }
    for name, fn in pairs(cases) do
      local err = refused(fn, name)
      matches('runs a command line in a shell', err, name)
    end
    eq(126, res.system.code)
    eq(126, res.spawn)
    eq(126, res.shell_error)
  end)

  it('refuses every start while a step below [code] is on a file of another project it moved to', function()
    if vim.fn.executable('git') == 0 then return skip('git is not installed') end
    -- This project (a Git work tree) with a nested repository of its own, and the user's
    -- hook that runs a program in the folder of every file it enters.
    local project = dir .. '/project'
    vim.fn.mkdir(project .. '/vendor/lib', 'p')
    vim.fn.mkdir(project .. '/src', 'p')
    eq(0, vim.system({ 'git', '-C', project, 'init', '-q' }):wait().code)
    eq(0, vim.system({ 'git', '-C', project .. '/vendor/lib', 'init', '-q' }):wait().code)
    vim.fn.writefile({ 'util' }, project .. '/vendor/lib/util.txt')
    vim.fn.writefile({ 'main' }, project .. '/src/main.txt')
    local before = vim.uv.cwd()
    vim.cmd.cd(project)
    local group = vim.api.nvim_create_augroup('LeashSpecHook', { clear = true })
    vim.api.nvim_create_autocmd('BufEnter', {
      group = group,
      callback = function(ev)
        if ev.file ~= '' then vim.system({ 'touch', marker }):wait() end
      end,
    })
    local function step(name)
      return function() vim.api.nvim_cmd({ cmd = 'edit', args = { name }, magic = { file = false, bar = false } }, {}) end
    end
    local err = refused(step('vendor/lib/util.txt'), 'a jump into the nested repository', { projects = true })
    matches('another project', err)
    vim.cmd('silent! %bwipeout!')
    -- A file of this project, and the same jump in a step confirmed as [code]: the hook runs.
    local okr, oerr = require('leash.guard').run(step('src/main.txt'), { projects = true })
    eq(true, okr, oerr)
    eq(true, exists(marker), 'a file of this project')
    vim.fn.delete(marker)
    vim.cmd('silent! %bwipeout!')
    okr, oerr = require('leash.guard').run(step('vendor/lib/util.txt'), {})
    eq(true, okr, oerr)
    eq(true, exists(marker), 'a step confirmed as [code]')
    vim.api.nvim_del_augroup_by_id(group)
    vim.cmd('silent! %bwipeout!')
    vim.cmd.cd(before)
  end)

  it('lets the user’s own argument-list starts run and records them', function()
    local starts
    local okr, err = require('leash.guard').run(function()
      vim.system({ 'touch', marker }):wait()
      vim.fn.system({ 'true' })
    end, { plan_text = { 'notes.txt' }, on_starts = function(s) starts = s end })
    eq(true, okr, err)
    eq(true, exists(marker))
    ok(#starts >= 2)
    matches('^touch ', starts[1].what)
    eq(nil, starts[1].refused)
    -- system() with a list has ended before the step does: recorded where it starts.
    eq({ via = 'system()', what = 'true' }, starts[#starts])
  end)

  it('refuses a program the plan chose and plan text beginning with “-” in the arguments', function()
    local g = require('leash.guard')
    matches('the plan chose the program', g.check_argv({ 'touch', marker }, { 'touch' }))
    matches('the plan chose the program', g.check_argv({ '/tmp/evil' }, { 'x /tmp/evil' }))
    matches('begins with “%-”', g.check_argv({ 'git', 'log', '--output=' .. marker }, { '--output=' .. marker }))
    -- A path whose last part begins with `-`: `./` in front does not hide it.
    for _, name in ipairs({ './--output=' .. marker, 'docs/--output=' .. marker, 'a\\--output=' .. marker }) do
      matches('begins with “%-”', g.check_argv({ 'git', 'log', '--output=' .. marker }, { name }))
    end
    eq(nil, g.check_argv({ 'git', 'log', '--', '--not-a-flag' }, { 'notes.txt' }))
    eq(nil, g.check_argv({ 'git', 'log', '--' }, { '--' }))
    local err = refused(
      function() vim.system({ 'touch', '--no-create', marker }):wait() end,
      'dash option from the plan',
      { plan_text = { 'a --no-create' } }
    )
    ok(err:find('--no-create', 1, true), err)
    -- As a user's hook would: the program from an option value the plan set.
    local hook = vim.api.nvim_create_autocmd('OptionSet', {
      pattern = 'keywordprg',
      callback = function() vim.system({ vim.o.keywordprg, marker }):wait() end,
    })
    local okr, perr = g.run(function() vim.o.keywordprg = 'touch' end, { plan_text = { 'touch' } })
    vim.api.nvim_del_autocmd(hook)
    vim.o.keywordprg = ':Man'
    eq(false, okr)
    matches('the plan chose the program', perr)
    eq(false, exists(marker))
  end)

  it('a refused start inside another plugin’s callback raises nothing there', function()
    local finished, errors = false, nil
    local id = vim.api.nvim_create_autocmd('BufEnter', {
      callback = function()
        local r = vim.system({ 'sh', '-c', touch }):wait()
        local j = vim.fn.jobstart({ 'sh', '-c', touch })
        finished = r.code ~= 0 and j > 0
      end,
    })
    local okr, err = require('leash.guard').run(function() vim.cmd('enew') end)
    vim.api.nvim_del_autocmd(id)
    errors = vim.v.errmsg
    eq(true, finished, 'the callback ran to its end')
    eq(false, okr)
    ok(not err:find('traceback'), err)
    ok(not tostring(errors):find('refused'), errors)
    vim.wait(300, function() return exists(marker) end)
    eq(false, exists(marker))
  end)

  it('stops a shell that Vimscript started with an argv list, and leaves other programs running', function()
    local err = refused(
      function() vim.cmd(('call jobstart(["sh", "-c", "sleep 0.5; %s"])'):format(touch:gsub('"', '\\"'))) end,
      'jobstart([argv]) from Vimscript'
    )
    matches('%(a job, stopped', err)
    vim.wait(1000, function() return exists(marker) end)
    eq(false, exists(marker), 'the job ran on after the step')
    local job
    local okr = require('leash.guard').run(function() job = vim.fn.execute('echo jobstart(["sleep", "1"])') end)
    eq(true, okr)
    local id = tonumber(vim.trim(job))
    eq(-1, vim.fn.jobwait({ id }, 0)[1], 'a program started with an argument list runs on')
    vim.fn.jobstop(id)
  end)

  it('lets the clipboard provider run its tool', function()
    vim.g.clipboard = {
      name = 'leash-spec',
      copy = { ['+'] = { 'tee', marker }, ['*'] = { 'tee', marker } },
      paste = { ['+'] = { 'cat', marker }, ['*'] = { 'cat', marker } },
    }
    vim.g.loaded_clipboard_provider = nil
    vim.cmd('runtime autoload/provider/clipboard.vim')
    eq(1, vim.fn.has('clipboard'))
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'copied text' })
    local okr, err = require('leash.guard').run(function() vim.cmd('silent yank +') end)
    eq(true, okr, err)
    vim.wait(2000, function() return exists(marker) and #vim.fn.readfile(marker) > 0 end)
    eq({ 'copied text' }, vim.fn.readfile(marker))
    vim.g.clipboard = nil
    vim.g.loaded_clipboard_provider = nil
  end)

  it("keeps a 'shell' the step set itself, and no OptionSet sees the swap", function()
    local user = vim.o.shell
    local seen = {}
    local id = vim.api.nvim_create_autocmd('OptionSet', {
      pattern = 'shell',
      callback = function() seen[#seen + 1] = vim.v.option_new end,
    })
    eq(true, (require('leash.guard').run(function() vim.o.shell = '/bin/sh' end)))
    vim.api.nvim_del_autocmd(id)
    eq('/bin/sh', vim.o.shell)
    eq({ '/bin/sh' }, seen)
    vim.o.shell = user
  end)

  it('checks the refusal program at every arm and repairs it', function()
    local g = require('leash.guard')
    local path = assert(g.refusal_program())
    local st = assert(vim.uv.fs_stat(path))
    eq(tonumber('700', 8), bit.band(st.mode, tonumber('777', 8)))
    -- Replaced between two steps (as an approved write step could), in this session.
    vim.fn.writefile({ '#!/bin/sh', 'exec sh "$@"' }, path)
    refused(function() vim.fn.system(touch) end, 'after a replaced program')
    matches('It runs nothing', table.concat(vim.fn.readfile(path), '\n'))
    -- Made writable by others.
    vim.uv.fs_chmod(path, tonumber('777', 8))
    refused(function() vim.fn.system(touch) end, 'after chmod')
    eq(tonumber('700', 8), bit.band(assert(vim.uv.fs_stat(path)).mode, tonumber('777', 8)))
    -- A symlink in its place.
    os.remove(path)
    vim.uv.fs_symlink('/bin/sh', path)
    refused(function() vim.fn.system(touch) end, 'after a symlink')
    eq('file', assert(vim.uv.fs_lstat(path)).type)
    eq('126', vim.trim(vim.fn.system({ path, '-c', touch }) and tostring(vim.v.shell_error)))
    eq(false, exists(marker))
  end)

  it('runs fn unguarded inside an armed guard only once (nested use)', function()
    local g = require('leash.guard')
    local okr = g.run(function()
      eq(true, g.active())
      return g.run(function() return true end)
    end)
    eq(true, okr)
    eq(false, g.active())
  end)
end)

describe('guarded steps in a plan', function()
  before_each(function()
    fresh()
    -- The files the steps open are this project's (a file of another project is [code]).
    vim.cmd.cd(vim.fn.fnameescape(dir))
    vim.fn.delete(marker)
    vim.cmd('silent! only!')
    vim.cmd('enew!')
  end)

  local function plan(steps) return { reply = '', confirm = 'default', steps = steps, dropped = {} } end

  it('stops the step that tried, names what it tried, and runs no later step', function()
    vim.o.wrap = false
    vim.fn.writefile({ 'x' }, dir .. '/plain.txt')
    local user_diffopt = vim.o.diffopt
    vim.o.diffopt = 'filler' -- no `internal`: diffs run `diff` through 'shell'
    local okr, err = require('leash.execute').run(plan({
      {
        index = 2, -- the model's third step; the first two were refused
        type = 'item',
        id = 'cmd:diffsplit',
        args = { dir .. '/plain.txt' },
        reach = 'safe',
        label = 'Run :diffsplit',
      },
      { index = 1, type = 'setting', key = 'wrap', value = true, reach = 'safe', label = 'Set wrap' },
    }))
    vim.o.diffopt = user_diffopt
    eq(false, okr)
    matches('^leash: step 1 %(Run :diffsplit%): it tried to start a program: “diff ', err)
    -- The log names the step as the window and the message do, not by the model's index.
    local log = vim.fn.readfile(require('leash.log').path())
    local line = vim.json.decode(log[#log])
    eq({ 1, 'Run :diffsplit' }, { line.guard.step, line.guard.label })
    eq(false, vim.o.wrap, 'the plan stopped')
    vim.cmd('silent! diffoff!')
    vim.cmd('silent! only!')
  end)

  it("undoes a step that lets control characters be drawn raw ('isprint' from a modeline)", function()
    local file = dir .. '/raw.txt'
    vim.fn.writefile({ 'text', 'vim: set isprint=1-255 :' }, file)
    vim.o.modeline = true -- Neovim turns it off for root
    local user = vim.o.isprint
    local okr, err = require('leash.execute').run(plan({
      { index = 0, type = 'item', id = 'cmd:edit', args = { file }, reach = 'safe', label = 'Run :edit' },
      { index = 1, type = 'setting', key = 'wrap', value = true, reach = 'safe', label = 'Set wrap' },
    }))
    eq(false, okr)
    matches("let control characters be drawn raw %('isprint'", err)
    eq(user, vim.o.isprint)
    eq(false, require('leash.ui.terminal').raw_controls())
    vim.o.modeline = false
  end)

  it('records the user’s shell for undo when a confirmed step sets it', function()
    local user = vim.o.shell
    local okr = require('leash.execute').run(
      plan({ { index = 0, type = 'setting', key = 'shell', value = '/bin/sh', reach = 'code', label = 'Set shell' } })
    )
    eq(true, okr)
    eq('/bin/sh', vim.o.shell)
    require('leash.execute').undo()
    eq(user, vim.o.shell)
  end)

  it('a shell step is not guarded', function()
    local okr, err = require('leash.execute').run(
      plan({ { index = 0, type = 'terminal', command = touch, reach = 'shell', label = 'Run in a terminal' } })
    )
    eq(true, okr, err)
    vim.wait(2000, function() return exists(marker) end)
    eq(true, exists(marker))
    -- Leave no terminal behind for the next spec: wait for its shell to exit, then wipe it.
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.bo[b].buftype == 'terminal' then
        vim.fn.jobwait({ vim.bo[b].channel }, 2000)
        vim.api.nvim_buf_delete(b, { force = true })
      end
    end
    -- The channel closes on the event loop.
    vim.wait(2000, function()
      return #vim.tbl_filter(function(c) return c.mode == 'terminal' end, vim.api.nvim_list_chans()) == 0
    end)
    vim.cmd('silent! only!')
  end)
end)
