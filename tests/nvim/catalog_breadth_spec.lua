-- The catalog sources beyond commands and options: project scripts, Git, files, LSP,
-- diagnostics, the terminal and the user's own entries. Each is built in a temporary
-- project of its kind; discovery must run no program.

local start_cwd = vim.uv.cwd()

local helpers = dofile(root .. '/tests/nvim/helpers.lua')
local index = helpers.index

--- Write `files` ({ [relpath] = text }) under a new temporary directory.
local function project(files)
  local dir = vim.fs.normalize(vim.fn.tempname())
  for rel, text in pairs(files) do
    local path = dir .. '/' .. rel
    vim.fn.mkdir(vim.fs.dirname(path), 'p')
    vim.fn.writefile(vim.split(text, '\n', { plain = true }), path)
  end
  vim.fn.mkdir(dir, 'p')
  return dir
end

--- Call `fn` with every way of starting a program replaced by a counter.
local function count_programs(fn)
  local calls = {}
  local saved = {
    system = vim.system,
    fn_system = vim.fn.system,
    fn_systemlist = vim.fn.systemlist,
    jobstart = vim.fn.jobstart,
    termopen = vim.fn.termopen,
    popen = io.popen,
    execute = os.execute,
    spawn = vim.uv.spawn,
  }
  local function counter(name)
    return function() calls[#calls + 1] = name end
  end
  vim.system = counter('vim.system')
  vim.fn.system = counter('system()')
  vim.fn.systemlist = counter('systemlist()')
  vim.fn.jobstart = counter('jobstart()')
  vim.fn.termopen = counter('termopen()')
  io.popen = counter('io.popen')
  os.execute = counter('os.execute')
  vim.uv.spawn = counter('uv.spawn')
  local ok, res = pcall(fn)
  vim.system, vim.fn.system, vim.fn.systemlist = saved.system, saved.fn_system, saved.fn_systemlist
  vim.fn.jobstart, vim.fn.termopen, io.popen = saved.jobstart, saved.termopen, saved.popen
  os.execute, vim.uv.spawn = saved.execute, saved.spawn
  if not ok then error(res, 0) end
  return res, calls
end

--- Every entry of the full catalog, built with no program allowed to start.
local function catalog_in(dir)
  vim.fn.chdir(dir)
  require('leash.catalog').invalidate()
  local entries, calls = count_programs(function() return (require('leash.catalog').entries()) end)
  eq({}, calls, 'programs started while building the catalog')
  return index(entries), entries
end

--- The validated plan for one item step, through the real core.
local function validate(step)
  local state = assert(require('leash.catalog').get())
  local native = assert(require('leash.native').load())
  return native.validate(state.handle, vim.json.encode({ reply = '', steps = { step } }))
end

local function rank_ids(request, limit)
  local hits = assert(require('leash').rank(request, { limit = limit or 5 }))
  return vim.tbl_map(function(h) return h.id end, hits)
end

local function position(list, id)
  for i, v in ipairs(list) do
    if v == id then return i end
  end
end

local git_ok = vim.fn.executable('git') == 1

local function git(dir, ...)
  local res = vim.system({ 'git', ... }, { cwd = dir, text = true }):wait()
  eq(0, res.code, 'git ' .. table.concat({ ... }, ' ') .. ': ' .. (res.stderr or ''))
  return res.stdout
end

describe('scripts source', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset({ disk = true })
  end)

  it('lists package.json scripts with the pnpm lockfile’s manager', function()
    local dir = project({
      ['package.json'] = vim.json.encode({
        name = 'demo',
        scripts = { test = 'vitest run', build = 'tsc -p .', pretest = 'echo pre', dev = 'vite' },
      }),
      ['pnpm-lock.yaml'] = "lockfileVersion: '9.0'",
    })
    local by = catalog_in(dir)
    local t = by['script:pnpm:test']
    ok(t, 'script:pnpm:test')
    eq('pnpm run test', t.title)
    eq('script', t.kind)
    eq('shell', t.reach)
    eq('optional', t.args)
    eq({ 'pnpm', 'run', 'test' }, t.cmd)
    eq(vim.uv.fs_realpath(dir), vim.uv.fs_realpath(t.cwd))
    matches('vitest run', t.description)
    ok(vim.tbl_contains(t.aliases, 'run the tests'), 'natural words for test')
    eq('pnpm run build', by['script:pnpm:build'].title)
    eq(nil, by['script:pnpm:pretest'], 'lifecycle hooks are not items')
    eq(nil, by['script:npm:test'])
  end)

  it('picks the package manager from each lockfile', function()
    for lock, pm in pairs({ ['yarn.lock'] = 'yarn', ['bun.lockb'] = 'bun', ['package-lock.json'] = 'npm' }) do
      local dir = project({ ['package.json'] = '{"scripts":{"lint":"eslint ."}}', [lock] = '' })
      local by = catalog_in(dir)
      eq(pm .. ' run lint', by[('script:%s:lint'):format(pm)].title, lock)
    end
  end)

  it('lists Makefile targets, not variables or special targets', function()
    local dir = project({
      Makefile = table.concat({
        'CC := gcc',
        'VERSION = 1',
        '.PHONY: test build',
        '# Run the unit tests',
        'test: build',
        '\t./run-tests',
        'build: ## compile everything',
        '\t$(CC) -o app main.c',
        '%.o: %.c',
        '\t$(CC) -c $<',
        'install uninstall:',
        '\ttrue',
      }, '\n'),
    })
    local by = catalog_in(dir)
    eq('make test', by['script:make:test'].title)
    eq({ 'make', 'test' }, by['script:make:test'].cmd)
    eq('none', by['script:make:test'].args)
    matches('Run the unit tests', by['script:make:test'].description)
    matches('compile everything', by['script:make:build'].description)
    ok(by['script:make:install'] and by['script:make:uninstall'], 'several targets on one line')
    for _, bad in ipairs({ 'CC', 'VERSION', '.PHONY', '%.o' }) do
      eq(nil, by['script:make:' .. bad], bad)
    end
  end)

  it('lists justfile recipes, not private ones or settings', function()
    local dir = project({
      justfile = 'set shell := ["bash", "-c"]\nversion := "1"\n# run tests\ntest:\n    cargo test\n_hidden:\n    true\n[private]\nsecret:\n    true\nserve port="8080":\n    echo {{port}}\n',
    })
    local by = catalog_in(dir)
    eq('just test', by['script:just:test'].title)
    eq('none', by['script:just:test'].args)
    eq('optional', by['script:just:serve'].args)
    eq(nil, by['script:just:_hidden'])
    eq(nil, by['script:just:secret'])
    eq(nil, by['script:just:set'])
    eq(nil, by['script:just:version'])
  end)

  it('lists Cargo commands, workspace members and binaries', function()
    local dir = project({
      ['Cargo.toml'] = '[workspace]\nmembers = [\n  "crates/*", # every crate\n]\nresolver = "2"\n',
      ['crates/core/Cargo.toml'] = '[package]\nname = "demo-core"\nversion = "0.1.0"\n\n[[bin]]\nname = "demo-cli"\npath = "src/cli.rs"\n',
      ['crates/core/src/lib.rs'] = '',
      ['crates/server/Cargo.toml'] = '[package]\nname = "demo-server" # the server\n',
      ['crates/server/src/main.rs'] = 'fn main() {}',
      ['crates/server/src/bin/migrate.rs'] = 'fn main() {}',
    })
    local by = catalog_in(dir)
    for _, c in ipairs({ 'build', 'test', 'run', 'clippy', 'fmt' }) do
      local e = by['script:cargo:' .. c]
      ok(e, 'script:cargo:' .. c)
      eq('cargo ' .. c, e.title)
      eq('shell', e.reach)
    end
    eq('cargo test -p demo-core', by['script:cargo:test-demo-core'].title)
    eq('cargo run --bin demo-cli', by['script:cargo:run-demo-cli'].title)
    eq('cargo run --bin demo-server', by['script:cargo:run-demo-server'].title)
    eq({ 'cargo', 'run', '--bin', 'migrate' }, by['script:cargo:run-migrate'].cmd)
  end)

  it('lists pytest, project scripts, tox and nox for a pyproject', function()
    local dir = project({
      ['pyproject.toml'] = '[project]\nname = "demo"\n\n[project.scripts]\ndemo-cli = "demo.cli:main"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      ['uv.lock'] = '',
      ['tests/test_x.py'] = 'def test_x(): pass',
      ['tox.ini'] = '[tox]\nenvlist = py311, lint\n\n[testenv:docs]\ncommands = sphinx-build\n',
      ['noxfile.py'] = 'import nox\n\n@nox.session(python=["3.11"])\ndef tests(session):\n    pass\n\n@nox.session\ndef lint(session):\n    pass\n',
    })
    local by = catalog_in(dir)
    local p = by['script:python:pytest']
    ok(p, 'script:python:pytest')
    eq('uv run pytest', p.title)
    eq('optional', p.args)
    ok(vim.tbl_contains(p.aliases, 'run the tests'), 'pytest means the tests')
    eq('uv run demo-cli', by['script:python:demo-cli'].title)
    eq('uv run tox -e lint', by['script:tox:lint'].title)
    eq('uv run tox -e docs', by['script:tox:docs'].title)
    eq('uv run nox -s tests', by['script:nox:tests'].title)
    eq('uv run nox -s lint', by['script:nox:lint'].title)
  end)

  it('finds pytest from a tests folder without configuration', function()
    local dir = project({ ['pyproject.toml'] = '[project]\nname = "x"\n', ['tests/test_a.py'] = '' })
    eq('pytest', catalog_in(dir)['script:python:pytest'].title)
  end)

  it('lists Go commands and VS Code tasks', function()
    local dir = project({
      ['go.mod'] = 'module example.com/demo\n',
      ['main.go'] = 'package main\nfunc main() {}\n',
      ['cmd/tool/main.go'] = 'package main\nfunc main() {}\n',
      ['.vscode/tasks.json'] = [[{
        // VS Code allows comments
        "version": "2.0.0",
        "tasks": [
          { "label": "lint all", "type": "shell", "command": "golangci-lint run", "args": ["./..."], "group": "test", },
          { "label": "gen", "type": "process", "command": "go", "args": ["generate", "${workspaceFolder}/..."] },
          { "label": "needs input", "type": "shell", "command": "echo ${input:name}" },
          { "label": "npm thing", "type": "npm", "script": "x" },
        ],
      }]],
    })
    local by = catalog_in(dir)
    eq('go test ./...', by['script:go:test'].title)
    eq('go build ./...', by['script:go:build'].title)
    eq('go run .', by['script:go:run'].title)
    eq('go run ./cmd/tool', by['script:go:run-tool'].title)
    local lint = by['script:vscode:lint-all']
    ok(lint, 'shell task')
    eq(
      { 'sh', '-c', 'golangci-lint run ./...' },
      jit.os ~= 'Windows' and lint.cmd or { 'sh', '-c', 'golangci-lint run ./...' }
    )
    eq('shell', lint.reach)
    local real = vim.fs.normalize(vim.uv.cwd())
    eq({ 'go', 'generate', real .. '/...' }, by['script:vscode:gen'].cmd)
    eq(nil, by['script:vscode:needs-input'], 'unresolvable variables are skipped')
    eq(nil, by['script:vscode:npm-thing'])
  end)

  it('caches parsed files by modification time', function()
    -- The core (src/sources/) keeps what it parsed while a file's mtime and size are
    -- unchanged: a same-size edit with the old mtime is not seen, a new mtime is.
    local dir = project({ Makefile = 'one:\n\ttrue\n' })
    local core = require('leash.sources.shared.core_sources')
    core.reset()
    local makefile = dir .. '/Makefile'
    vim.fn.writefile({ 'one:', '\ttrue' }, makefile)
    local t = os.time() - 100
    vim.uv.fs_utime(makefile, t, t)
    local function targets()
      local by = index(core.discover({ cwd = dir }).scripts)
      return by['script:make:one'] ~= nil, by['script:make:two'] ~= nil
    end
    local one, two = targets()
    ok(one and not two, 'first read')
    vim.fn.writefile({ 'two:', '\ttrue' }, makefile)
    vim.uv.fs_utime(makefile, t, t)
    one, two = targets()
    ok(one and not two, 'unchanged mtime and size: the parsed file is reused')
    vim.uv.fs_utime(makefile, t + 5, t + 5)
    one, two = targets()
    ok(two and not one, 'read again after a change')
    vim.fn.writefile({ 'two:', '\ttrue', 'three:', '\ttrue' }, makefile)
    vim.uv.fs_utime(makefile, t + 5, t + 5)
    ok(index(core.discover({ cwd = dir }).scripts)['script:make:three'], 'a new size is a change')
  end)

  it('offers nothing outside a project', function()
    local dir = project({ ['notes.txt'] = 'hi' })
    eq(0, #require('leash.sources.shared.core_sources').discover({ cwd = dir }).scripts)
  end)
end)

describe('git source', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset({ disk = true })
  end)

  it('is offered inside a work tree only, and every item is shell', function()
    if not git_ok then skip('git is not installed') end
    local dir = project({ ['a.txt'] = 'one' })
    git(dir, 'init', '-q')
    git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'add', 'a.txt')
    git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'first')
    vim.fn.mkdir(dir .. '/sub', 'p')
    local by = catalog_in(dir .. '/sub')
    local want = {
      'status',
      'diff',
      'diff_file',
      'log_file',
      'blame_line',
      'stage_file',
      'stage_all',
      'commit',
      'pull',
      'push',
      'switch',
      'branch_create',
      'stash',
      'stash_pop',
    }
    for _, a in ipairs(want) do
      local e = by['git:' .. a]
      ok(e, 'git:' .. a)
      eq('shell', e.reach, 'git:' .. a)
      eq('git', e.kind)
    end
    eq('required', by['git:commit'].args)
    eq('required', by['git:switch'].args)
    eq('required', by['git:branch_create'].args)
    eq('none', by['git:status'].args)
    local outside = catalog_in(project({ ['b.txt'] = '' }))
    eq(nil, outside['git:status'], 'not offered outside a work tree')
  end)
end)

describe('files, terminal, LSP and diagnostics sources', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset({ disk = true })
  end)

  it('lists file items with honest reaches', function()
    local by = catalog_in(project({ ['x.txt'] = '' }))
    eq('safe', by['file:new'].reach)
    eq('required', by['file:new'].args)
    eq('write', by['file:rename'].reach)
    eq('required', by['file:rename'].args)
    eq('write', by['file:delete'].reach)
    eq('safe', by['file:copy_path'].reach)
    eq('shell', by['file:open_folder'].reach)
  end)

  it('offers reveal only with a file explorer', function()
    local saved = package.loaded.oil
    package.loaded.oil = { open = function() end }
    local by = catalog_in(project({}))
    eq('safe', by['file:reveal'].reach)
    matches('oil', by['file:reveal'].title)
    package.loaded.oil = saved
    local files = require('leash.sources.files')
    if vim.fn.exists(':Explore') ~= 2 then eq(nil, files.explorer()) end
  end)

  it('lists the terminal items as shell', function()
    local by = catalog_in(project({}))
    eq('shell', by['term:run'].reach)
    eq('required', by['term:run'].args)
    -- The core's item, the one Helix offers too (`leash helix catalog`).
    eq(require('leash.native').get().terminal_entry().title, by['term:run'].title)
    eq({ 'shell command line', 'execute in shell' }, by['term:run'].aliases)
    matches('split below', by['term:run'].description)
    eq('shell', by['term:below'].reach)
    eq('shell', by['term:tab'].reach)
  end)

  it('lists LSP items only for methods an attached client supports', function()
    local dir = project({ ['a.lua'] = 'local x = 1' })
    vim.fn.chdir(dir)
    vim.cmd.edit(vim.fn.fnameescape(dir .. '/a.lua'))
    eq(nil, index(require('leash.sources.lsp').entries())['lsp:format'], 'nothing without a client')
    local id = helpers.start_server(
      dir,
      {},
      { documentFormattingProvider = true, hoverProvider = true, renameProvider = true }
    )
    local by = catalog_in(dir)
    eq('edit', by['lsp:format'].reach)
    eq('write', by['lsp:rename'].reach)
    eq('required', by['lsp:rename'].args)
    eq('safe', by['lsp:hover'].reach)
    eq(nil, by['lsp:definition'], 'definition not supported')
    eq(nil, by['lsp:code_action'], 'code actions not supported')
    ok(by['diag:next'], 'diagnostics offered with a client')
    eq('safe', by['diag:quickfix'].reach)
    vim.lsp.stop_client(id, true)
    vim.wait(1000, function() return vim.lsp.get_client_by_id(id) == nil end)
    vim.cmd('silent! %bwipeout!')
  end)
end)

describe('catalog breadth config', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset({ disk = true })
  end)

  it('turns each source off', function()
    local dir = project({ Makefile = 'a:\n\ttrue\n' })
    vim.fn.chdir(dir)
    require('leash').setup({ sources = { scripts = false, files = false, terminal = false, git = false } })
    local _, counts = require('leash.catalog').entries()
    eq(0, counts.scripts)
    eq(0, counts.files)
    eq(0, counts.terminal)
    eq(0, counts.git)
    require('leash').setup({})
    local _, again = require('leash.catalog').entries()
    eq(1, again.scripts)
  end)

  it('adds the user’s entries with their declared reach, never lower for programs', function()
    require('leash').setup({
      entries = {
        { id = 'greet', title = 'say hello', run = function() end, reach = 'safe' },
        { id = 'entry:deploy', title = 'deploy to staging', cmd = { 'make', 'deploy' }, reach = 'safe' },
        { id = 'mystery', title = 'something', run = function() end },
      },
    })
    local by = catalog_in(project({}))
    eq('safe', by['entry:greet'].reach)
    eq('shell', by['entry:deploy'].reach, 'a program is shell whatever is declared')
    eq('shell', by['entry:mystery'].reach, 'undeclared is shell')
    eq(nil, by['entry:greet'].run, 'no function goes to the core')
    local plan = validate({ type = 'item', id = 'entry:greet' })
    eq('default', plan.confirm)
    plan = validate({ type = 'item', id = 'entry:deploy' })
    eq('required', plan.confirm)
    require('leash').setup({})
  end)

  it('rejects malformed user entries', function()
    local function err(e)
      return raises(function() require('leash.config').setup({ entries = { e } }) end)
    end
    matches('exactly one of run', err({ id = 'a', title = 'a' }))
    matches('exactly one of run', err({ id = 'a', title = 'a', run = function() end, cmd = { 'x' } }))
    matches('needs a title', err({ id = 'a', run = function() end }))
    matches('needs an id', err({ id = 'a b', title = 'a', run = function() end }))
    matches('reach should be', err({ id = 'a', title = 'a', run = function() end, reach = 'none' }))
    matches('non%-empty list', err({ id = 'a', title = 'a', cmd = {} }))
    matches("unknown field 'bang'", err({ id = 'a', title = 'a', cmd = { 'x' }, bang = true }))
    matches('unknown option', raises(function() require('leash.config').setup({ sources = { gti = false } }) end))
    require('leash').setup({})
  end)
end)

describe('shell and write items need the plan window', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset({ disk = true })
  end)

  it('gives confirm = required for every shell and write item, default for safe ones', function()
    local dir =
      project({ Makefile = 'test:\n\ttrue\n', ['package.json'] = '{"scripts":{"test":"x"}}', ['pnpm-lock.yaml'] = '' })
    if git_ok then git(dir, 'init', '-q') end
    local by = catalog_in(dir)
    local confirm = require('leash.ui.confirm')
    local cfg = vim.tbl_extend('force', require('leash.config').get(), { confirm_before_run = false })
    local checked = 0
    for id, e in pairs(by) do
      local prefix = id:match('^(%a+):')
      if e.reach and ({ script = 1, git = 1, file = 1, term = 1, lsp = 1, diag = 1 })[prefix] then
        local step = { type = 'item', id = id, args = e.args == 'required' and 'x' or nil }
        local plan = validate(step)
        eq(1, #plan.steps, id .. ' kept: ' .. vim.inspect(plan.dropped))
        local strong = e.reach == 'shell' or e.reach == 'write' or e.reach == 'code'
        eq(strong and 'required' or 'default', plan.confirm, id)
        eq(e.reach, plan.steps[1].reach, id .. ' reach kept')
        eq(strong, confirm.needs_window(plan, cfg), id .. ' window with confirm_before_run = false')
        checked = checked + 1
      end
    end
    ok(checked >= 25, 'checked ' .. checked)
  end)
end)

describe('ranking', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset({ disk = true })
  end)

  it('puts cargo test first or second for "run the tests" in a Cargo project', function()
    catalog_in(project({ ['Cargo.toml'] = '[package]\nname = "demo"\n', ['src/main.rs'] = 'fn main() {}' }))
    local ids = rank_ids('run the tests')
    local at = position(ids, 'script:cargo:test')
    ok(at and at <= 2, 'script:cargo:test at ' .. tostring(at) .. ' in ' .. table.concat(ids, ', '))
  end)

  it('puts pnpm run test first or second for "run the tests" in a pnpm project', function()
    catalog_in(project({
      ['package.json'] = '{"scripts":{"test":"vitest","build":"tsc","lint":"eslint .","dev":"vite"}}',
      ['pnpm-lock.yaml'] = '',
    }))
    local ids = rank_ids('run the tests')
    local at = position(ids, 'script:pnpm:test')
    ok(at and at <= 2, 'script:pnpm:test at ' .. tostring(at) .. ' in ' .. table.concat(ids, ', '))
  end)

  it('puts file:rename in the top three for "rename this file"', function()
    catalog_in(project({ ['a.txt'] = '' }))
    local ids = rank_ids('rename this file')
    local at = position(ids, 'file:rename')
    ok(at and at <= 3, 'file:rename at ' .. tostring(at) .. ' in ' .. table.concat(ids, ', '))
  end)

  it('shows the same through :Leash rank', function()
    catalog_in(project({ ['a.txt'] = '' }))
    vim.cmd('Leash rank rename this file')
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    matches('file:rename', text)
    vim.cmd('silent! %bwipeout!')
  end)
end)

vim.fn.chdir(start_cwd)
