-- The catalog is reused until something that can change it happened, and never stale: each
-- source hands back its last list only while what it lists is the same (mappings, user
-- commands, language servers, name handlers, project scripts and Git, plugin help), the
-- core builds every catalog on the runtime data it parsed once, and the entries a plan
-- runs from are those the catalog was built from.

local helpers = dofile(root .. '/tests/nvim/helpers.lua')
local index, write = helpers.index, helpers.write
local start_cwd = vim.uv.cwd()

local function catalog() return assert(require('leash.catalog').get()) end

--- The catalog entry whose title is `title`, or nil.
local function titled(state, title)
  for _, e in ipairs(state.entries) do
    if e.title == title then return e end
  end
end

--- `:Do` with the offline planner, waited for: the entries the plan runs from.
local function plan_entries(request)
  local result
  local planner = require('leash.planner')
  local started, err = planner.start(request, function(r) result = r end)
  ok(started, err)
  ok(vim.wait(10000, function() return result ~= nil end, 10), 'the offline plan came back')
  return index(result.entries)
end

local function project(files)
  local dir = vim.fs.normalize(vim.fn.tempname())
  vim.fn.mkdir(dir, 'p')
  for rel, text in pairs(files) do
    write(dir .. '/' .. rel, vim.split(text, '\n', { plain = true }))
  end
  return dir
end

describe('catalog reuse', function()
  before_each(function()
    fresh()
    vim.fn.chdir(start_cwd)
    require('leash.catalog').reset()
  end)

  it('hands back the same catalog and the same source lists while nothing changes', function()
    local a = catalog()
    ok(rawequal(a, catalog()), 'the same catalog')
    local keymaps, commands = require('leash.sources.keymaps'), require('leash.sources.user_commands')
    ok(rawequal(keymaps.entries(), keymaps.entries()), 'the same mapping list')
    ok(rawequal(commands.entries(), commands.entries()), 'the same user command list')
    local handlers = require('leash.name_handlers')
    ok(rawequal(handlers.list(), handlers.list()), 'the same name handlers')
    local core = require('leash.sources.shared.core_sources')
    ok(rawequal(core.discover(), core.discover()), 'the same scripts, Git and files')
    -- A plugin loaded: its stand-ins are replaced, which the sources see by themselves.
    local list = keymaps.entries()
    vim.api.nvim_exec_autocmds('User', { pattern = 'LazyLoad', modeline = false })
    ok(rawequal(list, keymaps.entries()), 'nothing to make again after a load')
    -- A plugin installed or updated since: every entry is made again (what its help says,
    -- and whose code a callback is, may have changed), to the same catalog.
    vim.api.nvim_exec_autocmds('User', { pattern = 'LazyUpdate', modeline = false })
    ok(not rawequal(list, keymaps.entries()), 'made again after an update')
    ok(rawequal(a, catalog()), 'and the catalog is still the same')
  end)

  it('a mapping defined, changed or removed after the first :Do is in the next one as it is then', function()
    plan_entries('turn on word wrap')
    vim.keymap.set('n', '<leader>zq', '<Cmd>echo 1<CR>', { desc = 'leash reuse map' })
    local by = plan_entries('turn on word wrap')
    local id = 'map:n:' .. vim.fn.maparg('<leader>zq', 'n', false, true).lhs
    ok(by[id], 'the new mapping is in the next catalog')
    eq('leash reuse map', by[id].title)
    local keymaps = require('leash.sources.keymaps')
    local function pin_now() return keymaps.pin(vim.fn.maparg('<leader>zq', 'n', false, true), 0) end
    eq(pin_now(), by[id].pin)
    -- The same keys, another rhs: a new pin, which the run-time check compares.
    vim.keymap.set('n', '<leader>zq', '<Cmd>echo 2<CR>', { desc = 'leash reuse map' })
    local changed = plan_entries('turn on word wrap')[id]
    ok(changed.pin ~= by[id].pin, 'the pin follows the rhs')
    eq(pin_now(), changed.pin)
    -- Another callback that looks the same: a new pin too.
    vim.keymap.set('n', '<leader>zq', function() end, { desc = 'leash reuse map' })
    local first_fn = plan_entries('turn on word wrap')[id]
    vim.keymap.set('n', '<leader>zq', function() end, { desc = 'leash reuse map' })
    local second_fn = plan_entries('turn on word wrap')[id]
    ok(first_fn.pin ~= second_fn.pin, 'a new callback is a new pin')
    eq(pin_now(), second_fn.pin)
    -- A new description is a new title.
    vim.keymap.set('n', '<leader>zq', '<Cmd>echo 2<CR>', { desc = 'leash reuse map, renamed' })
    eq('leash reuse map, renamed', plan_entries('turn on word wrap')[id].title)
    vim.keymap.del('n', '<leader>zq')
    eq(nil, plan_entries('turn on word wrap')[id], 'a removed mapping is gone')
  end)

  it('buffer-local mappings and commands count in their own buffer only', function()
    local a = vim.api.nvim_get_current_buf()
    vim.keymap.set('n', '<leader>zl', '<Nop>', { buffer = a, desc = 'leash reuse local map' })
    vim.api.nvim_buf_create_user_command(a, 'LeashReuseLocal', 'echo 1', { desc = 'local command' })
    ok(titled(catalog(), 'leash reuse local map'), 'listed in its buffer')
    ok(index(catalog().entries)['user:LeashReuseLocal'], 'its command too')
    vim.api.nvim_set_current_buf(vim.api.nvim_create_buf(true, false))
    ok(not titled(catalog(), 'leash reuse local map'), 'not in another buffer')
    eq(nil, index(catalog().entries)['user:LeashReuseLocal'])
    vim.api.nvim_set_current_buf(a)
    local e = titled(catalog(), 'leash reuse local map')
    ok(e, 'back in its buffer')
    matches('^' .. a .. '\31', e.pin)
    -- The command is pinned to its buffer; another buffer's command of the same name,
    -- defined the same way, is another command.
    local pin = index(catalog().entries)['user:LeashReuseLocal'].pin
    matches('^buffer ' .. a .. '\31', pin)
    local b = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_buf_create_user_command(b, 'LeashReuseLocal', 'echo 1', { desc = 'local command' })
    vim.api.nvim_set_current_buf(b)
    local there = index(catalog().entries)['user:LeashReuseLocal']
    matches('^buffer ' .. b .. '\31', there.pin)
    eq(require('leash.sources.user_commands').current_pin('LeashReuseLocal'), there.pin)
    vim.api.nvim_set_current_buf(a)
    eq(pin, index(catalog().entries)['user:LeashReuseLocal'].pin, 'its own again')
  end)

  it('a user command defined, redefined or deleted after the first :Do is in the next one as it is then', function()
    plan_entries('turn on word wrap')
    vim.api.nvim_create_user_command('LeashReuse', 'echo 1', { nargs = 0, desc = 'reuse one' })
    local commands = require('leash.sources.user_commands')
    local e = plan_entries('turn on word wrap')['user:LeashReuse']
    ok(e, 'the new command is in the next catalog')
    eq('none', e.args)
    eq(commands.current_pin('LeashReuse'), e.pin)
    vim.api.nvim_create_user_command('LeashReuse', 'echo 2', { nargs = 1, desc = 'reuse one' })
    local again = plan_entries('turn on word wrap')['user:LeashReuse']
    eq('required', again.args, 'redefined with an argument')
    ok(again.pin ~= e.pin, 'a new pin')
    eq(commands.current_pin('LeashReuse'), again.pin)
    -- Redefined with another Lua callback and nothing else changed: only the callback's
    -- reference tells them apart, and the pin (and so the catalog) follows it.
    local function define()
      vim.api.nvim_create_user_command('LeashReuse', function() end, { desc = 'reuse lua' })
    end
    define()
    local lua_first = plan_entries('turn on word wrap')['user:LeashReuse']
    matches('\31lua:%d+$', lua_first.pin)
    define()
    local state = catalog()
    local lua_second = index(state.entries)['user:LeashReuse']
    ok(lua_second.pin ~= lua_first.pin, 'a new callback is a new pin')
    eq(commands.current_pin('LeashReuse'), lua_second.pin)
    ok(rawequal(state, catalog()), 'and then reused while it stays')
    vim.api.nvim_del_user_command('LeashReuse')
    eq(nil, plan_entries('turn on word wrap')['user:LeashReuse'], 'a deleted command is gone')
  end)

  it('a change in any field of an entry reaches the core, not only in its id or title', function()
    local function entry(alias)
      return { id = 'reuse', title = 'reuse entry', aliases = { alias }, reach = 'safe', run = function() end }
    end
    local run = entry('quokkaword').run
    local function setup(alias)
      local e = entry(alias)
      e.run = run -- the same function: the same pin
      require('leash').setup({ entries = { e } })
    end
    local native = assert(require('leash.native').load())
    local function ranked(state, word)
      for _, row in ipairs(native.rank(state.handle, word, { limit = 5 })) do
        if row.id == 'entry:reuse' then return true end
      end
      return false
    end
    setup('quokkaword')
    local a = catalog()
    ok(ranked(a, 'quokkaword'), 'found by its alias')
    -- Only the alias changes: the ranker must find it by the new one.
    setup('zebracornword')
    local b = catalog()
    ok(not rawequal(a, b), 'rebuilt')
    ok(ranked(b, 'zebracornword'), 'found by the new alias')
    eq({ 'zebracornword' }, index(b.entries)['entry:reuse'].aliases)
    require('leash').setup({})
  end)

  it('language server items follow the clients attached to the buffer', function()
    local dir = project({ ['m.lua'] = 'return 1' })
    vim.cmd.edit(vim.fn.fnameescape(dir .. '/m.lua'))
    eq(nil, index(catalog().entries)['lsp:definition'])
    local client = helpers.start_server(dir, {}, { definitionProvider = true })
    ok(index(catalog().entries)['lsp:definition'], 'listed once a server supports it')
    ok(index(catalog().entries)['diag:next'], 'and the diagnostics with it')
    vim.lsp.stop_client(client, true)
    ok(vim.wait(5000, function() return #vim.lsp.get_clients({ bufnr = 0 }) == 0 end, 10), 'the client stopped')
    eq(nil, index(catalog().entries)['lsp:definition'], 'gone with the client')
  end)

  it('a name handler defined after the first :Do reaches the core', function()
    local a = catalog()
    vim.api.nvim_create_autocmd('BufReadCmd', { pattern = '*.leashreuse', command = 'echo 1' })
    local b = catalog()
    ok(not rawequal(a, b), 'rebuilt')
    local native = assert(require('leash.native').load())
    local plan = native.validate(
      b.handle,
      vim.json.encode({ reply = '', steps = { { type = 'item', id = 'cmd:edit', args = 'x.leashreuse' } } })
    )
    eq(1, #plan.steps, vim.inspect(plan.dropped))
    eq('shell', plan.steps[1].reach, 'a name an autocommand reads in its place')
  end)

  it('a project script whose file changes gets a new pin; a new one appears', function()
    local dir = project({ Makefile = 'build:\n\ttrue\n' })
    vim.fn.chdir(dir)
    local first = index(catalog().entries)['script:make:build']
    ok(first and first.pin, 'the script, pinned')
    write(dir .. '/Makefile', { 'build:', '\tfalse && echo changed', '' })
    local second = index(catalog().entries)['script:make:build']
    ok(second.pin ~= first.pin, 'the recipe changed: so did the pin')
    write(dir .. '/Makefile', { 'build:', '\tfalse && echo changed', 'test:', '\ttrue', '' })
    ok(index(catalog().entries)['script:make:test'], 'a new target is listed')
    vim.fn.chdir(start_cwd)
    eq(nil, index(catalog().entries)['script:make:test'], 'another folder, other scripts')
  end)

  it('the core builds the runtime part once: the same catalog as from every entry', function()
    local state = catalog()
    local entries, _, _, handlers, where = require('leash.catalog').entries()
    local native = assert(require('leash.native').load())
    local whole =
      native.catalog_new(entries, 'neovim', { name_handlers = handlers, code_dirs = where.code_dirs, cwd = where.cwd })
    eq(vim.json.decode(whole:to_json()), vim.json.decode(state.handle:to_json()))
    -- Only the runtime sources turned on go to it.
    require('leash').setup({ sources = { options = false } })
    local no_options = catalog()
    eq(0, #no_options.settings)
    eq(nil, index(no_options.entries).wrap)
    ok(index(no_options.entries)['cmd:vsplit'], 'the commands stay')
    eq(#no_options.entries, no_options.handle:len())
    require('leash').setup({})
  end)

  it('makes a catalog’s entries once the request left, the ones it was built from', function()
    -- A model that answers after half a second: the entries are made while it answers.
    local model = dofile(root .. '/tests/nvim/model_server.lua')
    local server = model.server({ reply = 'Turning on word wrap.', steps = {} }, 500)
    model.use(server.port, 'anthropic')
    local state, result = catalog(), nil
    local before = vim.uv.hrtime()
    local started, err = require('leash.planner').start('turn on word wrap', function(r) result = r end)
    ok(started, err)
    eq(nil, rawget(state, 'entries'), 'not made before the request leaves')
    ok(vim.wait(3000, function() return rawget(state, 'entries') ~= nil end, 1), 'made once it left')
    ok(vim.wait(3000, function() return #server.requests == 1 end, 1), 'the request reached the model')
    eq(nil, result, 'while the model answers')
    ok(vim.wait(5000, function() return result ~= nil end, 10), 'the answer came')
    eq('done', result.status, result.error)
    ok(rawequal(state.entries, result.entries), 'the plan runs from them')
    -- When it left: after the start, before the answer (half a second later).
    ok(result.left_at > before and vim.uv.hrtime() - result.left_at >= 450e6, 'left_at is when it left')
    server.stop()
    require('leash').setup({})
    eq(state.handle:len(), #state.entries)
    local settings = vim.tbl_filter(function(e) return e.kind == 'setting' end, state.entries)
    eq(#settings, #state.settings)
    eq(index(settings).wrap.key, index(state.settings).wrap.key)
    -- A catalog built later does not change the entries of this one.
    vim.keymap.set('n', '<leader>zr', '<Nop>', { desc = 'leash reuse later' })
    local later = catalog()
    ok(not titled(state, 'leash reuse later'), 'the old catalog keeps its entries')
    ok(titled(later, 'leash reuse later'), 'the new one has it')
    vim.keymap.del('n', '<leader>zr')
  end)

  it('reads a plugin’s help once, keeps it on disk, and again when the plugin changes', function()
    local dir = vim.fs.normalize(vim.fn.tempname()) .. '/specplug.nvim'
    local doc = dir .. '/doc/specplug.txt'
    local function help(text)
      write(doc, { '*specplug.txt*  Spec plugin', '', '*:SpecPlug*', ':SpecPlug', '  ' .. text })
    end
    -- Whole seconds: a time stamp put back through a double keeps them exactly.
    local stamp = os.time() - 60
    help('Opens the spec plugin first.')
    vim.uv.fs_utime(doc, stamp, stamp)
    write(dir .. '/plugin/specplug.vim', { 'command! SpecPlug echo 1' })
    vim.opt.rtp:append(dir)
    vim.cmd.source(vim.fn.fnameescape(dir .. '/plugin/specplug.vim'))
    local function described() return index(catalog().entries)['user:SpecPlug'].description end
    matches('Opens the spec plugin first', described())
    local cache = vim.fn.stdpath('cache') .. '/leash/plugin-help.json'
    local function on_disk()
      return (require('leash.file').read(cache) or ''):find('Opens the spec plugin first', 1, true)
    end
    ok(vim.wait(1000, on_disk, 5), 'kept on disk')
    -- A new session reads the disk, not the help file: the same size and time stamp
    -- stand for the same text.
    help('Opens the spec plugin again.')
    vim.uv.fs_utime(doc, stamp, stamp)
    require('leash.catalog').reset()
    matches('Opens the spec plugin first', described())
    -- An update (another text, another stamp) read after the plugin manager says so.
    help('Opens the spec plugin, updated.')
    matches('Opens the spec plugin first', described(), 'until a plugin changed, the help read stays')
    vim.api.nvim_exec_autocmds('User', { pattern = 'LazyUpdate', modeline = false })
    matches('Opens the spec plugin, updated', described())
    vim.api.nvim_del_user_command('SpecPlug')
  end)
end)
