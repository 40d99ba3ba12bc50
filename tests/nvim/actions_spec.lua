-- Every scripts/Git/files/LSP/diagnostics/terminal/user-entry item executed through its
-- own path: a plan validated by the real core, run by leash.execute.

local helpers = dofile(root .. '/tests/nvim/helpers.lua')

local start_cwd = vim.uv.cwd()
local git_ok = vim.fn.executable('git') == 1
local make_ok = vim.fn.executable('make') == 1

--- Write `files` ({ [relpath] = text }) under a new temporary directory.
local function project(files)
  local dir =
    vim.fs.normalize(vim.uv.fs_realpath(vim.fs.dirname(vim.fn.tempname())) .. '/' .. vim.fs.basename(vim.fn.tempname()))
  vim.fn.mkdir(dir, 'p')
  for rel, text in pairs(files or {}) do
    local path = dir .. '/' .. rel
    vim.fn.mkdir(vim.fs.dirname(path), 'p')
    vim.fn.writefile(vim.split(text, '\n', { plain = true }), path)
  end
  return dir
end

local read = require('leash.file').read

local function git(dir, ...)
  local res = vim.system({ 'git', ... }, { cwd = dir, text = true }):wait()
  eq(0, res.code, 'git ' .. table.concat({ ... }, ' ') .. ': ' .. (res.stderr or ''))
  return vim.trim(res.stdout or '')
end

--- A Git repository with one commit of a.txt, identity set locally.
local function repo(extra)
  local files = vim.tbl_extend('force', { ['a.txt'] = 'one\ntwo' }, extra or {})
  local dir = project(files)
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'config', 'user.name', 'Leash Spec')
  git(dir, 'config', 'user.email', 'spec@example.com')
  git(dir, 'config', 'commit.gpgsign', 'false')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-qm', 'first')
  return dir
end

--- Validate `steps` with the real core against the live catalog and run them.
---@return boolean ok, string? err, table plan
local function run(steps)
  require('leash.catalog').invalidate()
  local state = assert(require('leash.catalog').get())
  local native = assert(require('leash.native').load())
  local plan = native.validate(state.handle, vim.json.encode({ reply = '', steps = steps }))
  eq(0, #plan.dropped, 'dropped steps: ' .. vim.inspect(plan.dropped, { newline = ' ', indent = '' }))
  local okk, err = require('leash.execute').run(plan)
  return okk, err, plan
end

--- Wait for the terminal job in the current window to end; its exit code.
local function wait_terminal()
  local job = vim.b.terminal_job_id
  ok(job, 'a terminal is open in the current window')
  local code = vim.fn.jobwait({ job }, 20000)[1]
  return code
end

local function close_extra_windows()
  pcall(vim.cmd, 'silent! tabonly!')
  pcall(vim.cmd, 'silent! only!')
  vim.cmd('silent! %bwipeout!')
end

local function edit(path) vim.api.nvim_cmd({ cmd = 'edit', args = { path }, magic = { file = false, bar = false } }, {}) end

--- Programs named `names` in a folder put first on PATH; each records its argv and cwd.
local function fake_programs(names)
  local bin = project({})
  local log = bin .. '/calls.log'
  for _, name in ipairs(names) do
    local path = bin .. '/' .. name
    vim.fn.writefile({ '#!/bin/sh', ('printf "%%s|%%s\\n" "$(pwd)" "%s $*" >> "%s"'):format(name, log) }, path)
    vim.uv.fs_chmod(path, 493)
  end
  vim.env.PATH = bin .. ':' .. vim.env.PATH
  return log
end

describe('script actions', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset({ disk = true })
    close_extra_windows()
  end)

  it('runs a Makefile target in a terminal split, in the project folder', function()
    if not make_ok then skip('make is not installed') end
    local dir = project({ Makefile = 'touch:\n\ttouch made-by-make\n' })
    vim.fn.chdir(dir)
    local before = #vim.api.nvim_tabpage_list_wins(0)
    local okk, err = run({ { type = 'item', id = 'script:make:touch' } })
    ok(okk, err)
    eq(before + 1, #vim.api.nvim_tabpage_list_wins(0), 'a split opened')
    eq('terminal', vim.bo.buftype)
    eq(0, wait_terminal())
    ok(vim.uv.fs_stat(dir .. '/made-by-make'), 'the target ran')
  end)

  it('runs package scripts, cargo and pytest with their argv, arguments as argv elements', function()
    if jit.os == 'Windows' then return end
    local log = fake_programs({ 'pnpm', 'cargo', 'pytest' })
    local dir = project({
      ['package.json'] = '{"scripts":{"test":"vitest"}}',
      ['pnpm-lock.yaml'] = '',
      ['Cargo.toml'] = '[package]\nname = "demo"\n',
      ['pyproject.toml'] = '[tool.pytest.ini_options]\n',
    })
    vim.fn.chdir(dir)
    local steps = {
      { type = 'item', id = 'script:pnpm:test', args = '--watch=false' },
      { type = 'item', id = 'script:cargo:test', args = 'parser; touch pwned' },
      { type = 'item', id = 'script:python:pytest', args = '-k $(touch pwned)' },
    }
    for _, step in ipairs(steps) do
      local okk, err = run({ step })
      ok(okk, err)
      eq(0, wait_terminal())
    end
    local lines = vim.split(vim.trim(read(log) or ''), '\n')
    eq({
      dir .. '|pnpm run test --watch=false',
      dir .. '|cargo test parser; touch pwned',
      dir .. '|pytest -k $(touch pwned)',
    }, lines)
    eq(nil, vim.uv.fs_stat(dir .. '/pwned'), 'no shell read the arguments')
  end)

  it('refuses arguments for a script that takes none', function()
    local dir = project({ Makefile = 'a:\n\ttrue\n' })
    vim.fn.chdir(dir)
    local okk, err = require('leash.sources.scripts').run(
      require('leash.sources.shared.core_sources').discover().scripts[1],
      { args = { 'SHELL=/bin/evil' } }
    )
    eq(false, okk)
    matches('takes no arguments', err)
  end)

  it('runs a project script only with the pin of its files, and only while they are unchanged', function()
    local dir = project({ Makefile = 'a:\n\ttrue\n' })
    vim.fn.chdir(dir)
    local entry = require('leash.sources.shared.core_sources').discover().scripts[1]
    eq(dir, entry.root)
    ok(type(entry.pin) == 'string' and entry.pin:find('Makefile', 1, true), 'the Makefile is pinned')
    local handler = require('leash.sources.scripts').run
    local unpinned = vim.tbl_extend('force', entry, { pin = vim.NIL })
    unpinned.pin = nil
    local okk, err = handler(unpinned, {})
    eq(false, okk)
    matches('were not pinned', err)
    vim.fn.writefile({ 'a:', '\tfalse' }, dir .. '/Makefile')
    okk, err = handler(entry, {})
    eq(false, okk)
    matches('changed after the plan was shown', err)
  end)
end)

describe('git actions', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset({ disk = true })
    close_extra_windows()
  end)

  --- Run a read-only git item and return the scratch buffer's text.
  local function show(id)
    local buf
    local okk, err = require('leash.sources.git').run({ id = id }, { args = {} }, {
      on_done = function(b) buf = b or -1 end,
    })
    ok(okk, err)
    vim.wait(10000, function() return buf ~= nil end)
    ok(buf and buf > 0, id .. ' showed a buffer')
    return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n'), buf
  end

  it('shows status, diffs, the file log and the line blame in scratch buffers', function()
    if not git_ok then skip('git is not installed') end
    local dir = repo()
    vim.fn.chdir(dir)
    edit(dir .. '/a.txt')
    vim.fn.writefile({ 'one', 'TWO' }, dir .. '/a.txt')
    vim.o.modeline = true -- on by default except for root; the scratch buffers turn it off
    matches('a%.txt', (show('git:status')))
    vim.cmd.wincmd('p')
    local diff, dbuf = show('git:diff')
    matches('%+TWO', diff)
    eq('diff', vim.bo[dbuf].filetype)
    eq('nofile', vim.bo[dbuf].buftype)
    eq(false, vim.bo[dbuf].modeline)
    vim.cmd.wincmd('p')
    matches('%+TWO', (show('git:diff_file')))
    vim.cmd.wincmd('p')
    matches('first', (show('git:log_file')))
    vim.cmd.wincmd('p')
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    local blame = show('git:blame_line')
    matches('Leash Spec', blame)
    matches('first', blame)
  end)

  it('also runs a read-only item through execute (a validated plan)', function()
    if not git_ok then skip('git is not installed') end
    local dir = repo()
    vim.fn.chdir(dir)
    local wins = #vim.api.nvim_tabpage_list_wins(0)
    local okk, err = run({ { type = 'item', id = 'git:status' } })
    ok(okk, err)
    vim.wait(10000, function() return #vim.api.nvim_tabpage_list_wins(0) > wins end)
    matches('branch main', table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n'))
  end)

  it('stages, commits with the message as one argument, branches, stashes, pushes and pulls', function()
    if not git_ok then skip('git is not installed') end
    local remote = project({})
    git(remote, 'init', '-q', '--bare', '-b', 'main')
    local dir = repo({ ['b.txt'] = 'b' })
    git(dir, 'remote', 'add', 'origin', remote)
    git(dir, 'push', '-q', '-u', 'origin', 'main')
    vim.fn.chdir(dir)
    edit(dir .. '/a.txt')
    local function step(id, args)
      local okk, err = run({ { type = 'item', id = id, args = args } })
      ok(okk, id .. ': ' .. tostring(err))
      eq(0, wait_terminal(), id .. ' exit code')
      vim.cmd.wincmd('p')
    end

    vim.fn.writefile({ 'changed' }, dir .. '/a.txt')
    vim.fn.writefile({ 'new' }, dir .. '/c.txt')
    step('git:stage_file')
    eq('M  a.txt\n?? c.txt', git(dir, 'status', '--porcelain'))
    step('git:stage_all')
    eq('M  a.txt\nA  c.txt', git(dir, 'status', '--porcelain'))
    local msg = 'fix: it\'s "quoted"; $(touch pwned) `touch pwned2` && rm -rf x'
    step('git:commit', msg)
    eq(msg, git(dir, 'log', '-1', '--format=%s'))
    eq(nil, vim.uv.fs_stat(dir .. '/pwned'), 'no shell saw the message')

    step('git:push')
    eq(git(dir, 'rev-parse', 'HEAD'), git(remote, 'rev-parse', 'main'))

    step('git:branch_create', 'feature/x')
    eq('feature/x', git(dir, 'branch', '--show-current'))
    step('git:switch', 'main')
    eq('main', git(dir, 'branch', '--show-current'))

    vim.fn.writefile({ 'wip' }, dir .. '/b.txt')
    step('git:stash')
    eq('', git(dir, 'status', '--porcelain'))
    step('git:stash_pop')
    eq('M b.txt', git(dir, 'status', '--porcelain')) -- trimmed ' M b.txt'

    -- Someone else pushes; pull brings it in.
    local other = project({})
    git(other, 'clone', '-q', remote, 'o')
    other = other .. '/o'
    git(other, 'config', 'user.name', 'Other')
    git(other, 'config', 'user.email', 'o@example.com')
    vim.fn.writefile({ 'from other' }, other .. '/d.txt')
    git(other, 'add', 'd.txt')
    git(other, 'commit', '-qm', 'other')
    git(other, 'push', '-q')
    git(dir, 'config', 'pull.rebase', 'false')
    step('git:pull')
    ok(vim.uv.fs_stat(dir .. '/d.txt'), 'pulled')
  end)

  it('refuses branch names that read as options or revisions and empty messages', function()
    local g = require('leash.sources.git')
    for _, bad in ipairs({ '-f', '--orphan', 'a..b', 'a b', 'x@{1}', 'a.lock', '', 'a;b', 'HEAD~1' }) do
      ok(g.check_branch(bad), 'refused ' .. bad)
    end
    eq(nil, g.check_branch('feature/new-thing_2'))
    ok(g.check_message('  '), 'empty message')
    ok(g.check_message('a\27[2Jb'), 'escape sequence')
    eq(nil, g.check_message('subject\n\nbody'))
  end)
end)

describe('file actions', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset({ disk = true })
    close_extra_windows()
  end)

  it('opens a new file without writing it, and its folder appears on write', function()
    local dir = project({ ['.git/HEAD'] = '' })
    vim.fn.chdir(dir)
    local okk, err = run({ { type = 'item', id = 'file:new', args = 'src/new/module.lua' } })
    ok(okk, err)
    eq(dir .. '/src/new/module.lua', vim.api.nvim_buf_get_name(0))
    eq(nil, vim.uv.fs_stat(dir .. '/src/new/module.lua'), 'nothing written yet')
    eq('lua', vim.bo.filetype)
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'return {}' })
    vim.cmd('silent write')
    eq('return {}\n', read(dir .. '/src/new/module.lua'))
  end)

  it('renames the current file on disk and points the buffer at it', function()
    local dir = project({ ['.git/HEAD'] = '', ['src/old.txt'] = 'hello' })
    vim.fn.chdir(dir)
    edit(dir .. '/src/old.txt')
    local buf = vim.api.nvim_get_current_buf()
    local okk, err = run({ { type = 'item', id = 'file:rename', args = 'new.md' } })
    ok(okk, err)
    eq(nil, vim.uv.fs_stat(dir .. '/src/old.txt'), 'old name gone')
    eq('hello\n', read(dir .. '/src/new.md'), 'a bare name stays in the folder')
    eq(dir .. '/src/new.md', vim.api.nvim_buf_get_name(buf))
    eq(false, vim.bo[buf].modified)
    eq('markdown', vim.bo[buf].filetype)
    vim.cmd('silent write') -- no E13: the buffer is the file again
    okk, err = run({ { type = 'item', id = 'file:rename', args = 'docs/moved.md' } })
    ok(okk, err)
    eq('hello\n', read(dir .. '/docs/moved.md'), 'a path is relative to the current directory')
  end)

  it('never overwrites with rename and refuses unsafe paths', function()
    local dir = project({ ['.git/HEAD'] = '', ['a.txt'] = 'a', ['b.txt'] = 'b' })
    vim.fn.chdir(dir)
    edit(dir .. '/a.txt')
    local files = require('leash.sources.files')
    local okk, err = files.run({ id = 'file:rename' }, { args = { 'b.txt' } })
    eq(false, okk)
    matches('already exists', err)
    eq('b\n', read(dir .. '/b.txt'))
    local bad = {
      [''] = 'a path is needed',
      ['a\0b'] = 'control character',
      ['x\ny'] = 'control character',
      ['-rf'] = 'starts with',
      ['+cmd'] = 'starts with',
      ['term://sh'] = 'URL scheme',
      ['scp://host/x'] = 'URL scheme',
      ['notes.gz'] = 'autocommand of “gzip”.*can run a program',
      ['data.lz4'] = 'autocommand of “gzip”.*can run a program',
      ['pkg.zip'] = 'autocommand of “zip”.*can run a program',
      ['../outside.txt'] = 'outside the project',
      ['/etc/passwd2'] = 'outside the project',
      ['`touch x`'] = 'backtick',
      ['~/x'] = '~',
    }
    for path, why in pairs(bad) do
      local p, perr = files.check_path(path, dir, dir)
      eq(nil, p, path)
      matches(why, perr, vim.inspect(path))
      okk, err = files.run({ id = 'file:new' }, { args = { path } })
      eq(false, okk, 'file:new ' .. vim.inspect(path))
    end
    eq('a\n', read(dir .. '/a.txt'))
  end)

  it('refuses a symbolic link that leads out of the project', function()
    if jit.os == 'Windows' then return end
    local outside = project({})
    local dir = project({ ['.git/HEAD'] = '' })
    vim.uv.fs_symlink(outside, dir .. '/link')
    local p, err = require('leash.sources.files').check_path('link/x.txt', dir, dir)
    eq(nil, p)
    matches('outside the project', err)
  end)

  it('copies the path and deletes the current file', function()
    local dir = project({ ['.git/HEAD'] = '', ['gone.txt'] = 'bye' })
    vim.fn.chdir(dir)
    edit(dir .. '/gone.txt')
    local okk, err = run({ { type = 'item', id = 'file:copy_path' } })
    ok(okk, err)
    eq(dir .. '/gone.txt', vim.fn.getreg('"'))
    okk, err = run({ { type = 'item', id = 'file:copy_path', args = 'name' } })
    ok(okk, err)
    eq('gone.txt', vim.fn.getreg('"'))
    local buf = vim.api.nvim_get_current_buf()
    okk, err = run({ { type = 'item', id = 'file:delete' } })
    ok(okk, err)
    eq(nil, vim.uv.fs_stat(dir .. '/gone.txt'))
    eq(false, vim.api.nvim_buf_is_valid(buf))
  end)

  it('reveals in the explorer and opens the folder with the system opener', function()
    local dir = project({ ['.git/HEAD'] = '', ['x.txt'] = '' })
    vim.fn.chdir(dir)
    edit(dir .. '/x.txt')
    local opened
    local saved_oil, saved_open = package.loaded.oil, vim.ui.open
    package.loaded.oil = { open = function(d) opened = d end }
    local okk, err = run({ { type = 'item', id = 'file:reveal' } })
    package.loaded.oil = saved_oil
    ok(okk, err)
    eq(dir, opened)
    local asked
    vim.ui.open = function(path)
      asked = path
      return { wait = function() end }, nil
    end
    okk, err = run({ { type = 'item', id = 'file:open_folder' } })
    vim.ui.open = saved_open
    ok(okk, err)
    eq(dir, asked)
  end)
end)

local start_server = helpers.start_server

describe('LSP and diagnostics actions', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset({ disk = true })
    close_extra_windows()
  end)

  it('formats, renames, runs a code action, hovers, jumps, lists and toggles hints', function()
    local dir = project({ ['m.lua'] = 'local  x = 1\nreturn x' })
    vim.fn.chdir(dir)
    edit(dir .. '/m.lua')
    local uri = vim.uri_from_fname(dir .. '/m.lua')
    local function range(l1, c1, l2, c2)
      return { start = { line = l1, character = c1 }, ['end'] = { line = l2, character = c2 } }
    end
    local seen = {}
    local client = start_server(dir, {
      ['textDocument/formatting'] = function()
        seen.format = true
        return { { range = range(0, 5, 0, 7), newText = ' ' } }
      end,
      ['textDocument/rename'] = function(p)
        seen.rename = p.newName
        return {
          changes = {
            [uri] = {
              { range = range(0, 6, 0, 7), newText = p.newName },
              { range = range(1, 7, 1, 8), newText = p.newName },
            },
          },
        }
      end,
      ['textDocument/codeAction'] = function()
        return {
          {
            title = 'add a comment',
            edit = { changes = { [uri] = { { range = range(0, 0, 0, 0), newText = '-- hi\n' } } } },
          },
        }
      end,
      ['textDocument/hover'] = function()
        seen.hover = true
        return { contents = { kind = 'plaintext', value = 'a number' } }
      end,
      ['textDocument/definition'] = function() return { uri = uri, range = range(1, 0, 1, 0) } end,
      ['textDocument/references'] = function()
        return { { uri = uri, range = range(0, 6, 0, 7) }, { uri = uri, range = range(1, 7, 1, 8) } }
      end,
      ['textDocument/documentSymbol'] = function()
        return { { name = 'x', kind = 13, range = range(0, 0, 0, 10), selectionRange = range(0, 6, 0, 7) } }
      end,
      ['textDocument/inlayHint'] = function() return {} end,
      ['textDocument/declaration'] = function() return { uri = uri, range = range(0, 0, 0, 0) } end,
      ['textDocument/typeDefinition'] = function() return { uri = uri, range = range(1, 0, 1, 0) } end,
      ['textDocument/implementation'] = function() return { uri = uri, range = range(0, 0, 0, 0) } end,
      ['workspace/symbol'] = function(p)
        seen.query = p.query
        return { { name = 'x', kind = 13, location = { uri = uri, range = range(1, 7, 1, 8) } } }
      end,
    }, {
      declarationProvider = true,
      typeDefinitionProvider = true,
      implementationProvider = true,
      workspaceSymbolProvider = true,
      documentFormattingProvider = true,
      renameProvider = true,
      codeActionProvider = true,
      hoverProvider = true,
      definitionProvider = true,
      referencesProvider = true,
      documentSymbolProvider = true,
      inlayHintProvider = true,
    })
    ok(client, 'client')

    local code_win = vim.api.nvim_get_current_win()
    local okk, err = run({ { type = 'item', id = 'lsp:format' } })
    ok(okk, err)
    eq('local x = 1', vim.api.nvim_buf_get_lines(0, 0, 1, false)[1])

    vim.api.nvim_win_set_cursor(0, { 1, 6 })
    okk, err = run({ { type = 'item', id = 'lsp:rename', args = 'count' } })
    ok(okk, err)
    -- Applied inside the step (and so inside the process guard), not later.
    eq({ 'local count = 1', 'return count' }, vim.api.nvim_buf_get_lines(0, 0, -1, false))
    okk, err = require('leash.sources.lsp').run({ id = 'lsp:rename' }, { args = { 'two words' } })
    eq(false, okk)

    local saved_select = vim.ui.select
    vim.ui.select = function(items, _, on_choice) on_choice(items[1], 1) end
    okk, err = run({ { type = 'item', id = 'lsp:code_action' } })
    vim.wait(2000, function() return vim.api.nvim_buf_get_lines(0, 0, 1, false)[1] == '-- hi' end)
    vim.ui.select = saved_select
    ok(okk, err)
    eq('-- hi', vim.api.nvim_buf_get_lines(0, 0, 1, false)[1])

    okk, err = run({ { type = 'item', id = 'lsp:hover' } })
    ok(okk, err)
    vim.wait(2000, function() return seen.hover end)
    ok(seen.hover, 'hover asked')

    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    okk, err = run({ { type = 'item', id = 'lsp:definition' } })
    ok(okk, err)
    -- The jump happened inside the step (and so inside the process guard), not later.
    eq(2, vim.api.nvim_win_get_cursor(0)[1])

    vim.fn.setqflist({}, 'r')
    okk, err = run({ { type = 'item', id = 'lsp:references' } })
    ok(okk, err)
    vim.wait(2000, function() return #vim.fn.getqflist() == 2 end)
    eq(2, #vim.fn.getqflist())

    vim.api.nvim_set_current_win(code_win) -- the quickfix window took the focus
    okk, err = run({ { type = 'item', id = 'lsp:document_symbols' } })
    ok(okk, err)

    vim.api.nvim_set_current_win(code_win)
    local before = vim.lsp.inlay_hint.is_enabled({ bufnr = 0 })
    okk, err = run({ { type = 'item', id = 'lsp:inlay_hints' } })
    ok(okk, err)
    eq(not before, vim.lsp.inlay_hint.is_enabled({ bufnr = 0 }))

    for _, nav in ipairs({ { 'lsp:declaration', 1 }, { 'lsp:type_definition', 2 }, { 'lsp:implementation', 1 } }) do
      vim.api.nvim_set_current_win(code_win)
      vim.api.nvim_win_set_cursor(0, { nav[2] == 1 and 2 or 1, 0 })
      okk, err = run({ { type = 'item', id = nav[1] } })
      ok(okk, err)
      eq(nav[2], vim.api.nvim_win_get_cursor(0)[1], nav[1])
    end

    vim.api.nvim_set_current_win(code_win)
    vim.fn.setqflist({}, 'r')
    okk, err = run({ { type = 'item', id = 'lsp:workspace_symbols', args = 'x' } })
    ok(okk, err)
    vim.wait(2000, function() return seen.query ~= nil end)
    eq('x', seen.query)

    vim.api.nvim_set_current_win(code_win)
    vim.lsp.stop_client(client, true)
    vim.wait(1000, function() return vim.lsp.get_client_by_id(client) == nil end)
    local okd, derr = require('leash.sources.lsp').run({ id = 'lsp:hover' }, { args = {} })
    eq(false, okd, 'refused without a client that supports it')
    matches('supports', derr)
  end)

  it('checks a language server’s file operations and outside edits before applying any', function()
    local dir = project({ ['m.lua'] = 'local x = 1\nreturn x', ['keep.lua'] = 'return 1' })
    vim.fn.chdir(dir)
    edit(dir .. '/m.lua')
    local uri = vim.uri_from_fname(dir .. '/m.lua')
    local plugin = vim.fn.stdpath('config') .. '/plugin'
    vim.fn.mkdir(plugin, 'p')
    local outside = vim.fn.tempname() .. '-outside'
    vim.fn.mkdir(outside, 'p')
    vim.fn.writefile({ 'return 0' }, outside .. '/other.lua')
    local function range(l1, c1, l2, c2)
      return { start = { line = l1, character = c1 }, ['end'] = { line = l2, character = c2 } }
    end
    local function rename_x(u)
      return {
        textDocument = { uri = u, version = 0 },
        edits = { { range = range(0, 6, 0, 7), newText = 'count' } },
      }
    end
    local answer, actions
    local client = start_server(dir, {
      ['textDocument/rename'] = function() return answer end,
      ['textDocument/codeAction'] = function() return actions end,
      -- The server's command sends its edit back as a request of its own.
      ['workspace/executeCommand'] = function(p, d)
        return d.server_request('workspace/applyEdit', { edit = p.arguments[1] })
      end,
    }, { renameProvider = true, codeActionProvider = true, executeCommandProvider = { commands = { 'spec.apply' } } })
    ok(client, 'client')
    local before = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    local refusals = {
      -- moves a project file into a folder Neovim loads code from
      {
        rename_x(uri),
        {
          kind = 'rename',
          oldUri = vim.uri_from_fname(dir .. '/keep.lua'),
          newUri = vim.uri_from_fname(plugin .. '/keep.lua'),
        },
      },
      -- creates a file there
      { rename_x(uri), { kind = 'create', uri = vim.uri_from_fname(plugin .. '/new.lua') } },
      -- edits a file of another place
      { rename_x(uri), rename_x(vim.uri_from_fname(outside .. '/other.lua')) },
      -- a name with a part beginning with "-"
      { rename_x(uri), { kind = 'create', uri = vim.uri_from_fname(dir .. '/--output=x') } },
    }
    for i, changes in ipairs(refusals) do
      answer = { documentChanges = changes }
      vim.api.nvim_win_set_cursor(0, { 1, 6 })
      local okk, err = run({ { type = 'item', id = 'lsp:rename', args = 'count' } })
      eq(false, okk, 'case ' .. i)
      matches('the language server’s rename was refused, nothing of it was applied: ', err)
      eq(before, vim.api.nvim_buf_get_lines(0, 0, -1, false), 'case ' .. i .. ': nothing applied')
    end
    eq(nil, vim.uv.fs_stat(plugin .. '/keep.lua'))
    eq(nil, vim.uv.fs_stat(plugin .. '/new.lua'))
    ok(vim.uv.fs_stat(dir .. '/keep.lua'), 'keep.lua stays')
    eq({ 'return 0' }, vim.fn.readfile(outside .. '/other.lua'))

    -- Control: a rename inside the project that also moves a file runs, and says so.
    local seen, restore = helpers.capture_notify()
    answer = {
      documentChanges = {
        rename_x(uri),
        {
          kind = 'rename',
          oldUri = vim.uri_from_fname(dir .. '/keep.lua'),
          newUri = vim.uri_from_fname(dir .. '/kept.lua'),
        },
      },
    }
    vim.api.nvim_win_set_cursor(0, { 1, 6 })
    local okk, err, plan = run({ { type = 'item', id = 'lsp:rename', args = 'count' } })
    restore()
    eq(true, okk, err)
    eq('local count = 1', vim.api.nvim_buf_get_lines(0, 0, 1, false)[1])
    ok(vim.uv.fs_stat(dir .. '/kept.lua'), 'the file was moved')
    matches('moved keep%.lua → kept%.lua', seen[#seen].msg)
    -- The window says what else a rename may do before it runs.
    require('leash.execute')._annotate(plan)
    matches('may also create, move or delete files', plan.steps[1].note)

    -- A code action picked after the step: its command's edit, sent by the server, is
    -- checked the same way.
    local saved_select = vim.ui.select
    local picked
    vim.ui.select = function(items, _, on_choice)
      picked = function() on_choice(items[1], 1) end
    end
    local create = { documentChanges = { { kind = 'create', uri = vim.uri_from_fname(plugin .. '/action.lua') } } }
    actions =
      { { title = 'generate', command = { title = 'generate', command = 'spec.apply', arguments = { create } } } }
    seen, restore = helpers.capture_notify()
    okk, err = run({ { type = 'item', id = 'lsp:code_action' } })
    eq(true, okk, err)
    ok(picked, 'the actions were offered')
    picked() -- the person picks, after the plan ran
    restore()
    vim.ui.select = saved_select
    eq(nil, vim.uv.fs_stat(plugin .. '/action.lua'), 'the server’s edit was applied')
    matches('refused, nothing of it was applied: writes .*loads code from', seen[#seen].msg)
    vim.lsp.stop_client(client, true)
    vim.fn.delete(plugin, 'rf')
  end)

  it('jumps inside the process guard, to file targets only, with a deadline', function()
    local dir = project({ ['a.lua'] = 'return 1', ['b.lua'] = 'return 2' })
    vim.fn.chdir(dir)
    edit(dir .. '/a.lua')
    local marker = dir .. '/ran'
    local target = { uri = vim.uri_from_fname(dir .. '/b.lua') }
    local client = start_server(dir, {
      ['textDocument/definition'] = function()
        if target.silent then return nil end
        return {
          uri = target.uri,
          range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } },
        }
      end,
    }, { definitionProvider = true })
    ok(client, 'client')
    local code_win = vim.api.nvim_get_current_win()
    -- The user's setup reacts to the opened buffer: a shell line there is refused, as
    -- part of the step that jumped; an argument-list start runs.
    local group = vim.api.nvim_create_augroup('leash-spec-jump', { clear = true })
    vim.api.nvim_create_autocmd('BufEnter', {
      group = group,
      pattern = '*/b.lua',
      callback = function()
        vim.system({ 'true' }):wait()
        vim.fn.system('touch ' .. vim.fn.shellescape(marker))
      end,
    })
    local okk, err = run({ { type = 'item', id = 'lsp:definition' } })
    eq(false, okk)
    matches('it tried to start a program: “touch ', err)
    eq(false, vim.uv.fs_stat(marker) ~= nil, 'the shell line ran')
    vim.api.nvim_del_augroup_by_id(group)

    vim.api.nvim_set_current_win(code_win)
    edit(dir .. '/a.lua')
    for _, uri in ipairs({ 'term://sh', 'http://example.invalid/x.lua' }) do
      target.uri = uri
      okk, err = run({ { type = 'item', id = 'lsp:definition' } })
      eq(false, okk, uri)
      matches('which is not a file', err)
      eq(dir .. '/a.lua', vim.api.nvim_buf_get_name(0))
    end
    target.uri = vim.uri_from_fname(dir .. '/x`id`.lua')
    okk, err = run({ { type = 'item', id = 'lsp:definition' } })
    eq(false, okk)
    matches('the jump target is refused: the file name “.*x`id`%.lua” contains a backtick', err)

    -- A server that never answers: the step fails at the deadline with a message.
    local lsp = require('leash.sources.lsp')
    local saved = lsp.jump_ms
    lsp.jump_ms = 200
    local real_sync = vim.lsp.buf_request_sync
    vim.lsp.buf_request_sync = function(b, m, p) return real_sync(b, m, p, 1) and nil end
    okk, err = lsp.run({ id = 'lsp:definition' }, { args = {} })
    vim.lsp.buf_request_sync = real_sync
    lsp.jump_ms = saved
    eq(false, okk)
    matches('did not answer within', err)
    vim.lsp.stop_client(client, true)
    vim.wait(1000, function() return vim.lsp.get_client_by_id(client) == nil end)
  end)

  it('jumps between diagnostics, lists them and toggles them', function()
    local dir = project({ ['d.txt'] = 'a\nb\nc\nd' })
    vim.fn.chdir(dir)
    edit(dir .. '/d.txt')
    local ns = vim.api.nvim_create_namespace('leash-spec')
    vim.diagnostic.set(ns, 0, {
      { lnum = 1, col = 0, message = 'first problem', severity = vim.diagnostic.severity.ERROR },
      { lnum = 3, col = 0, message = 'second problem', severity = vim.diagnostic.severity.WARN },
    })
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    local win = vim.api.nvim_get_current_win()
    local okk, err = run({ { type = 'item', id = 'diag:next' } })
    ok(okk, err)
    vim.api.nvim_set_current_win(win)
    eq(2, vim.api.nvim_win_get_cursor(win)[1])
    okk, err = run({ { type = 'item', id = 'diag:next' } })
    ok(okk, err)
    eq(4, vim.api.nvim_win_get_cursor(win)[1])
    vim.api.nvim_set_current_win(win)
    okk, err = run({ { type = 'item', id = 'diag:prev' } })
    ok(okk, err)
    eq(2, vim.api.nvim_win_get_cursor(win)[1])
    vim.api.nvim_set_current_win(win)
    okk, err = run({ { type = 'item', id = 'diag:quickfix' } })
    ok(okk, err)
    eq(2, #vim.fn.getqflist())
    vim.api.nvim_set_current_win(win)
    okk, err = run({ { type = 'item', id = 'diag:loclist' } })
    ok(okk, err)
    eq(2, #vim.fn.getloclist(win))
    vim.api.nvim_set_current_win(win)
    okk, err = run({ { type = 'item', id = 'diag:show' } })
    ok(okk, err)
    local was = vim.diagnostic.is_enabled()
    okk, err = run({ { type = 'item', id = 'diag:toggle' } })
    ok(okk, err)
    eq(not was, vim.diagnostic.is_enabled())
    vim.diagnostic.enable(true)
    vim.diagnostic.reset(ns)
  end)

  it('shows the diagnostic it jumped to at once, so a later step may close the window', function()
    local dir = project({ ['e.txt'] = 'a\nb\nc' })
    vim.fn.chdir(dir)
    edit(dir .. '/e.txt')
    local ns = vim.api.nvim_create_namespace('leash-spec-close')
    vim.diagnostic.set(
      ns,
      0,
      { { lnum = 2, col = 0, message = 'a problem', severity = vim.diagnostic.severity.ERROR } }
    )
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.cmd.split()
    local floats = function()
      return #vim.tbl_filter(
        function(w) return vim.api.nvim_win_get_config(w).relative ~= '' end,
        vim.api.nvim_list_wins()
      )
    end
    local before = floats()
    vim.v.errmsg = ''
    local okk, err = run({ { type = 'item', id = 'diag:next' } })
    ok(okk, err)
    eq(before + 1, floats(), 'the float is open when the step returns')
    -- The next step of a plan closes the window the jump happened in.
    vim.cmd.close()
    vim.wait(100, function() return false end)
    eq('', vim.v.errmsg, 'nothing left to run on the closed window')
    vim.diagnostic.reset(ns)
  end)
end)

describe('terminal and user entry actions', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset({ disk = true })
    close_extra_windows()
  end)

  it('opens a terminal below and in a new tab', function()
    vim.o.shell = 'sh'
    local wins = #vim.api.nvim_tabpage_list_wins(0)
    local okk, err = run({ { type = 'item', id = 'term:below' } })
    ok(okk, err)
    eq(wins + 1, #vim.api.nvim_tabpage_list_wins(0))
    eq('terminal', vim.bo.buftype)
    vim.fn.jobstop(vim.b.terminal_job_id)
    local tabs = #vim.api.nvim_list_tabpages()
    okk, err = run({ { type = 'item', id = 'term:tab' } })
    ok(okk, err)
    eq(tabs + 1, #vim.api.nvim_list_tabpages())
    eq('terminal', vim.bo.buftype)
    vim.fn.jobstop(vim.b.terminal_job_id)
  end)

  it('calls a user function with the arguments and runs a user program by argv', function()
    local got
    local dir = project({})
    require('leash').setup({
      entries = {
        { id = 'greet', title = 'say hello', args = 'optional', reach = 'safe', run = function(args) got = args end },
        { id = 'mark', title = 'mark the folder', cmd = { 'touch' }, args = 'required', cwd = dir },
      },
    })
    local okk, err = run({ { type = 'item', id = 'entry:greet', args = 'world' } })
    ok(okk, err)
    eq({ 'world' }, got)
    okk, err = run({ { type = 'item', id = 'entry:mark', args = 'a file; touch pwned' } })
    ok(okk, err)
    eq(0, wait_terminal())
    ok(vim.uv.fs_stat(dir .. '/a file; touch pwned'), 'one argv element')
    eq(nil, vim.uv.fs_stat(dir .. '/pwned'))
    require('leash').setup({})
  end)
end)

close_extra_windows()
vim.fn.chdir(start_cwd)
