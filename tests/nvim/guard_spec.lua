-- lua/leash/guard.lua: while a step that is not shell runs, no program starts. Each layer
-- is tried on its own (a marker file appears only if a program really ran), then the
-- executor's use of it: a step that tried is stopped with a message naming what it tried.

local dir = vim.fn.tempname() .. '-guard'
vim.fn.mkdir(dir, 'p')
local marker = dir .. '/ran'

local function exists(path) return vim.uv.fs_stat(path) ~= nil end

--- `fn` inside the guard; the marker must not appear (now or a little later).
local function refused(fn, what)
  vim.fn.delete(marker)
  local okr, err = require('leash.guard').run(fn)
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

  it('refuses the Lua entry points, also through a reference kept from before', function()
    local kept_system = vim.fn.system
    local cases = {
      ['vim.fn.system'] = function() vim.fn.system({ 'touch', marker }) end,
      ['kept vim.fn.system'] = function() kept_system({ 'touch', marker }) end,
      ['vim.fn.systemlist'] = function() vim.fn.systemlist({ 'touch', marker }) end,
      ['vim.fn.jobstart'] = function() vim.fn.jobstart({ 'touch', marker }) end,
      ['nvim_call_function'] = function() vim.api.nvim_call_function('jobstart', { { 'touch', marker } }) end,
      ['vim.system'] = function() vim.system({ 'touch', marker }) end,
      ['vim.uv.spawn'] = function()
        vim.uv.spawn('touch', { args = { marker } }, function() end)
      end,
      ['io.popen'] = function() io.popen(touch) end,
      ['os.execute'] = function() os.execute(touch) end,
    }
    for name, fn in pairs(cases) do
      local err = refused(fn, name)
      matches('“touch .*' .. vim.pesc(vim.fs.basename(marker)), err, name)
    end
    -- Everything is back afterwards.
    eq(kept_system, vim.fn.system)
    eq('0', vim.trim(vim.fn.system({ 'sh', '-c', 'echo 0' })))
    local obj = vim.system({ 'true' }):wait()
    eq(0, obj.code)
  end)

  it('stops a job that Vimscript started with an argv list, before it can act', function()
    local err = refused(
      function() vim.cmd(('call jobstart(["sh", "-c", "sleep 0.5; %s"])'):format(touch:gsub('"', '\\"'))) end,
      'jobstart([argv]) from Vimscript'
    )
    matches('%(a job, stopped%)', err)
    vim.wait(1000, function() return exists(marker) end)
    eq(false, exists(marker), 'the job ran on after the step')
  end)

  it('switches the clipboard provider off for the step', function()
    vim.g.clipboard = {
      name = 'leash-spec',
      copy = {
        ['+'] = { 'sh', '-c', 'cat >/dev/null; ' .. touch },
        ['*'] = { 'sh', '-c', 'cat >/dev/null; ' .. touch },
      },
      paste = { ['+'] = { 'sh', '-c', touch }, ['*'] = { 'sh', '-c', touch } },
    }
    vim.g.loaded_clipboard_provider = nil
    vim.cmd('runtime autoload/provider/clipboard.vim')
    eq(1, vim.fn.has('clipboard'))
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'x' })
    local okr = require('leash.guard').run(function()
      vim.cmd('silent! yank +')
      vim.cmd('silent! registers')
      eq(0, vim.fn.has('clipboard'), 'provider off inside')
    end)
    eq(true, okr)
    vim.wait(300, function() return exists(marker) end)
    eq(false, exists(marker), 'the clipboard tool ran')
    eq(2, vim.g.loaded_clipboard_provider, 'provider back')
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

  it('writes the refusal program once, owner-only, and repairs it', function()
    local g = require('leash.guard')
    local path = assert(g.refusal_program())
    local st = assert(vim.uv.fs_stat(path))
    eq(tonumber('700', 8), bit.band(st.mode, tonumber('777', 8)))
    vim.fn.writefile({ '#!/bin/sh', 'exec sh "$@"' }, path)
    fresh()
    g = require('leash.guard')
    eq(path, g.refusal_program())
    matches('It runs nothing', table.concat(vim.fn.readfile(path), '\n'))
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
        index = 0,
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
    eq(false, vim.o.wrap, 'the plan stopped')
    vim.cmd('silent! diffoff!')
    vim.cmd('silent! only!')
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
