-- lua/leash/code_dirs.lua and the core's write check: a step that writes where Neovim
-- loads code from (the config folder, 'runtimepath', $PATH, a .git folder) is `code`,
-- when the plan is checked, when the window opens (the current file) and again just
-- before it runs (an earlier :cd or 'backupdir' step); file:delete and file:rename name
-- their file and run only on it.

local project = vim.fn.tempname() .. '-project'
local config = vim.fn.stdpath('config')
local plugin_dir = config .. '/plugin'

local function exists(path) return vim.uv.fs_stat(path) ~= nil end

local function floats()
  return vim.tbl_filter(function(w) return vim.api.nvim_win_get_config(w).relative ~= '' end, vim.api.nvim_list_wins())
end

local function press(keys) vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, true, true), 'x', false) end

--- Validate `model` (the model's JSON as a Lua table) with the real core and catalog.
local function validate(steps)
  local native = require('leash.native').get()
  require('leash.catalog').invalidate()
  local state = assert(require('leash.catalog').get())
  local p = native.validate(state.handle, vim.json.encode({ reply = 'ok', steps = steps }), { profile = 'neovim' })
  return p, state.entries
end

--- Run `p` through the window: open it, wait for the run key to arm, press `y`.
local function confirm(p, entries)
  local done, err = 'pending', nil
  require('leash.execute').confirm_and_run(p, {
    entries = entries,
    on_done = function(ran, e)
      done, err = ran, e
    end,
  })
  local win = floats()[1]
  assert(win, 'the plan window did not open')
  -- The rows as one text, a row's wrapped continuation joined to it.
  local lines = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), '\n')
  lines = lines:gsub(' *\n +(%l)', ' %1')
  vim.wait(300, function() return false end) -- let the run key arm
  press('y')
  vim.wait(1000, function() return done ~= 'pending' end)
  return lines, done, err
end

--- A fresh editor in a project with notes.txt (current) and other.txt, and an empty
--- plugin/ folder in the config folder.
local function fresh_project()
  fresh()
  vim.cmd('silent! %bwipeout!')
  vim.fn.delete(project, 'rf')
  vim.fn.delete(plugin_dir, 'rf')
  vim.fn.mkdir(project .. '/src', 'p')
  vim.fn.mkdir(plugin_dir, 'p')
  vim.fn.writefile({ 'notes' }, project .. '/notes.txt')
  vim.fn.writefile({ 'other' }, project .. '/other.txt')
  vim.cmd.cd(vim.fn.fnameescape(project))
  vim.cmd.edit('notes.txt')
end

describe('writes where Neovim loads code from', function()
  before_each(fresh_project)

  it('are code with the reason when the plan is checked, other writes stay write', function()
    local p = validate({
      { type = 'item', id = 'cmd:write', args = plugin_dir .. '/notes.lua' },
      { type = 'item', id = 'cmd:write', args = 'src/copy.txt' },
      { type = 'setting', key = 'backupdir', value = plugin_dir .. '//' },
      { type = 'setting', key = 'verbosefile', value = plugin_dir .. '/log.vim' },
      { type = 'item', id = 'cmd:write', args = '.git/hooks/pre-commit' },
      { type = 'item', id = 'file:rename', args = plugin_dir .. '/moved.lua' },
    })
    eq(6, #p.steps, vim.inspect(p.dropped))
    local reaches = vim.tbl_map(function(s) return s.reach end, p.steps)
    eq({ 'code', 'write', 'code', 'code', 'code', 'code' }, reaches)
    matches('a folder Neovim loads code from', p.steps[1].note)
    matches("^'backupdir' writes to", p.steps[3].note)
    matches('%.git folder', p.steps[5].note)
    eq('required', p.confirm)
  end)

  it('are refused before they run when an earlier :cd moved them there', function()
    local p, entries = validate({
      { type = 'item', id = 'cmd:cd', args = config },
      { type = 'item', id = 'cmd:write', args = 'plugin/x.lua' },
    })
    eq({ 'write' }, { p.steps[2].reach }, 'project/plugin/x.lua is no code folder')
    local okr, err = require('leash.execute').run(p, { entries = entries })
    eq(false, okr)
    matches('^leash: step 2 .*needs %[code%]: writes .*a folder Neovim loads code from', err)
    eq(false, exists(plugin_dir .. '/x.lua'), 'the file was written')
  end)

  it("check the plan's own relative 'backupdir' again after a :cd", function()
    local p, entries = validate({
      { type = 'setting', key = 'backup', value = true },
      { type = 'setting', key = 'backupdir', value = 'plugin//' },
      { type = 'setting', key = 'backupext', value = '.lua' },
      { type = 'item', id = 'cmd:cd', args = config },
      { type = 'item', id = 'cmd:write' },
    })
    eq(5, #p.steps, vim.inspect(p.dropped))
    local okr, err = require('leash.execute').run(p, { entries = entries })
    eq(false, okr)
    matches("^leash: step 5 .*'backupdir' writes to “plugin”", err)
    eq({}, vim.fn.glob(plugin_dir .. '/*', true, true), 'a backup was written into plugin/')
    require('leash.execute').undo()
  end)

  it("are shown as [code] when the window opens on the user's config file, and run on y", function()
    vim.fn.writefile({ '-- my config' }, config .. '/init.lua')
    vim.cmd.edit(vim.fn.fnameescape(config .. '/init.lua'))
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { '-- my config, changed' })
    local p, entries = validate({ { type = 'item', id = 'cmd:write' } })
    eq('write', p.steps[1].reach, 'the core cannot know the current file')
    local lines, done, err = confirm(p, entries)
    matches('%[code%] Run :write', lines)
    matches('init%.lua.*a folder Neovim loads code from', lines)
    eq(true, done, err)
    eq({ '-- my config, changed' }, vim.fn.readfile(config .. '/init.lua'))
  end)
end)

describe('file:delete and file:rename', function()
  before_each(fresh_project)

  it('name the file they act on in the window', function()
    local p, entries = validate({ { type = 'item', id = 'file:delete' } })
    local lines, done, err = confirm(p, entries)
    matches('on notes%.txt, the current file\n', lines .. '\n')
    eq(true, done, err)
    eq(false, exists(project .. '/notes.txt'))
    eq(true, exists(project .. '/other.txt'))
  end)

  it('run only on the file the window named, whatever an earlier step made current', function()
    local p, entries = validate({
      { type = 'item', id = 'cmd:edit', args = 'other.txt' },
      { type = 'item', id = 'file:delete' },
    })
    eq(2, #p.steps, vim.inspect(p.dropped))
    local lines, done, err = confirm(p, entries)
    matches('on notes%.txt, the current file; if an earlier step makes another file current, it does not run', lines)
    eq(false, done)
    matches('step 2 .*the current file is now other%.txt, not notes%.txt as the plan window showed', err)
    eq(true, exists(project .. '/other.txt'), 'the other file was deleted')
    eq(true, exists(project .. '/notes.txt'))
    -- Renaming too.
    vim.cmd.edit('notes.txt')
    p, entries = validate({
      { type = 'item', id = 'cmd:edit', args = 'other.txt' },
      { type = 'item', id = 'file:rename', args = 'renamed.txt' },
    })
    lines, done, err = confirm(p, entries)
    eq(false, done)
    matches('the current file is now other%.txt', err)
    eq(false, exists(project .. '/renamed.txt'))
  end)
end)

describe('the folders Neovim loads code from', function()
  it('follow runtimepath, packpath and $PATH', function()
    local code_dirs = require('leash.code_dirs')
    local rtp, pp, path = vim.o.runtimepath, vim.o.packpath, vim.env.PATH
    local base = vim.fn.tempname()
    local ok_, err = pcall(function()
      vim.fn.mkdir(base .. '/one', 'p')
      local before = code_dirs.list()
      ok(not vim.tbl_contains(before, base .. '/one'))
      eq(before, code_dirs.list(), 'unchanged: the same list')
      vim.opt.runtimepath:append(base .. '/one')
      ok(vim.tbl_contains(code_dirs.list(), base .. '/one'), 'a folder added to runtimepath')
      vim.env.PATH = base .. '/bin:' .. path
      ok(vim.tbl_contains(code_dirs.list(), base .. '/bin'), 'a folder added to $PATH')
      vim.o.packpath = vim.o.packpath .. ',' .. base .. '/packs'
      ok(vim.tbl_contains(code_dirs.list(), base .. '/packs'), 'a folder added to packpath')
    end)
    vim.o.runtimepath, vim.o.packpath, vim.env.PATH = rtp, pp, path
    vim.fn.delete(base, 'rf')
    assert(ok_, err)
  end)
end)
