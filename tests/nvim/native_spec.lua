-- Loading the native module, the version handshake, failing closed without it, and one
-- check of every export of the native module.

local H = {}

-- One check per export of the native module. `exports only what native_spec checks`
-- fails when the module exports a name that has no entry here.
H.checks = {}

local function small_catalog(mod)
  return mod.catalog_new({
    { id = 'cmd:vsplit', kind = 'command', title = 'split window vertically', args = 'optional', reach = 'safe' },
    { key = 'wrap', kind = 'setting', title = 'long lines wrap', type = 'boolean' },
    { key = 'tabstop', kind = 'setting', title = 'tab width', type = 'number', aliases = { 'ts' } },
  }, 'neovim')
end

function H.checks.version(mod)
  eq(require('leash.native').version, mod.version())
  matches('^%d+%.%d+%.%d+', mod.version())
end

function H.checks.catalog_new(mod)
  local cat = small_catalog(mod)
  eq(3, cat:len())
  eq(true, cat:has('wrap'))
  eq(true, cat:has('cmd:vsplit'))
  eq(false, cat:has('fontsize'))
  local exported = vim.json.decode(cat:to_json())
  eq('neovim', exported.editor)
  eq(3, #exported.entries)
  matches('catalog entries must be a list', raises(mod.catalog_new, 'not a list'))
  -- Bulk data may come as its JSON text (what the catalog sends): the same catalog.
  local entries = {
    { id = 'cmd:vsplit', kind = 'command', title = 'split window vertically', args = 'optional', reach = 'safe' },
    { key = 'tabstop', kind = 'setting', title = 'tab width', type = 'number', aliases = {} },
  }
  local opts =
    { name_handlers = { { pattern = '*.gz', event = 'BufReadPost', group = 'gzip' } }, code_dirs = { '/x/plugin' } }
  local from_text = mod.catalog_new(vim.json.encode(entries), 'neovim', {
    name_handlers = vim.json.encode(opts.name_handlers),
    code_dirs = vim.json.encode(opts.code_dirs),
  })
  eq(vim.json.decode(mod.catalog_new(entries, 'neovim', opts):to_json()), vim.json.decode(from_text:to_json()))
  eq(0, mod.catalog_new(vim.json.encode({}), 'neovim'):len(), 'an empty list')
  matches('catalog entries must be a list', raises(mod.catalog_new, vim.json.encode({ a = 1 })))
  ok(not pcall(mod.catalog_new, { { kind = 'command', title = 'neither id nor key' } }), 'an entry without id or key')
  H.base_option(mod)
end

function H.checks.rank(mod)
  local cat = small_catalog(mod)
  local hits = mod.rank(cat, 'wrap long lines')
  eq('wrap', hits[1].id)
  eq('setting', hits[1].kind)
  eq('long lines wrap', hits[1].title)
  eq('number', type(hits[1].score))
  eq(1, #mod.rank(cat, 'wrap split tab', { limit = 1 }))
  matches('option “mode” is any or all', raises(mod.rank, cat, 'wrap', { mode = 'some' }))
end

function H.checks.default_shortlist_limit(mod)
  local limit = mod.default_shortlist_limit
  eq('number', type(limit))
  -- Without a limit, rank returns exactly that many entries of a larger catalog.
  local entries = {}
  for i = 1, limit + 10 do
    entries[i] = { key = 'opt' .. i, kind = 'setting', title = 'wrap option ' .. i, type = 'boolean' }
  end
  eq(limit, #mod.rank(mod.catalog_new(entries, 'generic'), 'wrap option'))
  eq(nil, require('leash.config').defaults.shortlist_limit, 'the Lua side has no second copy')
end

function H.checks.prompt(mod)
  local p = mod.prompt(small_catalog(mod), 'turn on word wrap', { context = { os = 'linux' } })
  matches('JSON object', p.system)
  matches('OS linux', p.user)
  matches('wrap', p.user)
  eq('object', vim.json.decode(p.schema).type)
  eq('wrap', p.shortlist[1])
  -- The current values as a table or as their JSON text (what the planner sends): the
  -- same prompt; text that is not UTF-8 drawn as `<ff>` either way.
  local current = { wrap = false, titlestring = 'x\255y' }
  local function user(c) return mod.prompt(small_catalog(mod), 'turn on word wrap', { context = { current = c } }).user end
  matches('wrap %(boolean, now false%)', user(current))
  eq(user(current), user(vim.json.encode(current)))
  eq(user({}), user(vim.json.encode(vim.empty_dict())))
  matches('not an object', raises(mod.prompt, small_catalog(mod), 'x', { context = { current = '[1]' } }))
  matches('option “context”: current', raises(mod.prompt, small_catalog(mod), 'x', { context = { current = '{' } }))
end

function H.checks.validate(mod)
  local cat = small_catalog(mod)
  local plan = mod.validate(
    cat,
    vim.json.encode({
      reply = 'ok',
      steps = {
        { type = 'setting', key = 'wrap', value = true },
        { type = 'setting', key = 'fontsize', value = 16 },
        { type = 'item', id = 'cmd:vsplit', args = 'x | !touch y' },
      },
    }),
    { profile = 'neovim' }
  )
  eq('default', plan.confirm)
  eq('wrap', plan.steps[1].key)
  eq('safe', plan.steps[1].reach)
  eq({ index = 1, code = 'unknown_key', reason = 'unknown setting “fontsize”' }, plan.dropped[1])
  eq('unsafe_argument', plan.dropped[2].code)
  matches('the answer contains no JSON object', raises(mod.validate, cat, 'no plan here'))
end

function H.checks.entry_details(mod)
  local cat = small_catalog(mod)
  local rows = mod.entry_details(cat, { 'wrap', 'cmd:vsplit', 'fontsize' }, { profile = 'neovim' })
  eq(3, #rows)
  eq('wrap', rows[1].entry.key)
  eq('boolean', rows[1].entry.type)
  eq('safe', rows[1].reach)
  eq('cmd:vsplit', rows[2].entry.id)
  eq('safe', rows[2].reach)
  eq(false, rows[3], 'a name the catalog lacks')
  -- The user's raise rules raise it, as they raise a step.
  local raised = mod.entry_details(
    cat,
    { 'wrap' },
    { profile = 'neovim', raise = { { pattern = 'wrap', reach = 'shell' } } }
  )
  eq('shell', raised[1].reach)
  matches(
    'option “raise”',
    raises(mod.entry_details, cat, { 'wrap' }, { raise = { { pattern = 'wrap', reach = 'huge' } } })
  )
end

function H.checks.plan_start(mod)
  local job = mod.plan_start(small_catalog(mod), 'turn on word wrap', { profile = 'neovim' })
  eq('number', type(job:id()))
  ok(vim.wait(10000, function() return job:is_finished() end, 10), 'the offline plan finishes')
  local result = job:take()
  eq('done', result.status)
  eq('wrap', result.plan.steps[1].key)
  eq(nil, job:take(), 'a result is taken once')
  job:cancel() -- after the end: no effect, no error
  eq(true, job:is_finished())
  matches('provider.*not JSON text', raises(mod.plan_start, small_catalog(mod), 'x', { provider = 'not a table' }))
  -- The provider as the JSON text provider_config gave: the same checks as the table.
  local _, text = mod.provider_config({ provider = 'ollama', timeout_ms = 5000 })
  job = mod.plan_start(small_catalog(mod), 'turn on word wrap', { profile = 'neovim', provider = text })
  eq('number', type(job:id()))
  job:cancel()
  matches('provider', raises(mod.plan_start, small_catalog(mod), 'x', { provider = '{"kind": "nope"}' }))
  -- The current values as JSON text are read on the planner's thread: they count (wrap
  -- is on, so "toggle" turns it off), and text that does not read ends the job with why.
  local function planned(current)
    local j =
      mod.plan_start(small_catalog(mod), 'toggle word wrap', { profile = 'neovim', context = { current = current } })
    ok(vim.wait(10000, function() return j:is_finished() end, 10), 'the plan finishes')
    return j:take()
  end
  eq(false, planned(vim.json.encode({ wrap = true })).plan.steps[1].value)
  eq(true, planned(vim.json.encode({ wrap = false })).plan.steps[1].value)
  for text, why in pairs({ ['{'] = 'option “context”: current: EOF', ['[1]'] = 'not an object of setting values' }) do
    local r = planned(text)
    eq('error', r.status)
    matches(vim.pesc(why), r.error)
  end
end

function H.checks.wants_colorschemes(mod)
  eq(true, mod.wants_colorschemes('switch to the habamax color scheme'))
  eq(true, mod.wants_colorschemes('cambia el tema a desert'))
  eq(false, mod.wants_colorschemes('make the font bigger and turn on word wrap'))
  eq(false, mod.wants_colorschemes('caf\233 \255'), 'text that is not UTF-8 is read, not refused')
end

function H.checks.notify_fd(mod)
  local fd = mod.notify_fd()
  eq('number', type(fd))
  eq(fd, mod.notify_fd(), 'the same pipe every time')
  local pipe = vim.uv.new_pipe(false)
  assert(pipe:open(fd))
  local bytes = 0
  pipe:read_start(function(_, data) bytes = bytes + (data and #data or 0) end)
  local job = mod.plan_start(small_catalog(mod), 'turn on word wrap', { profile = 'neovim' })
  -- One byte when the request left (here: the offline plan was made), one when it ended.
  ok(vim.wait(10000, function() return bytes >= 2 end, 10), 'a byte when it left and one when it finished')
  ok(job:left_ms(), 'it says when it left')
  eq('done', job:take().status)
  pipe:read_stop()
end

function H.checks.visible(mod)
  eq('cd junk;<U+061C> rm', mod.visible('cd junk;\u{061C} rm'))
  -- Controls as Neovim draws them; bytes that are not UTF-8 kept for Neovim's <xx>.
  eq('a^[b\255<U+E0041>', mod.visible('a\27b\255\u{E0041}'))
  eq('中文 😀 café', mod.visible('中文 😀 café'))
  eq(require('leash.text').visible('x\u{180F}'), mod.visible('x\u{180F}'))
end

function H.checks.is_invisible(mod)
  eq(true, mod.is_invisible(0xE0041))
  eq(true, mod.is_invisible(0x061C))
  eq(false, mod.is_invisible(0x4E2D))
  eq(false, mod.is_invisible(0x110000), 'not a code point')
end

function H.checks.present_plan(mod)
  local plan = {
    reply = 'ok',
    steps = {
      { index = 0, type = 'setting', key = 'tabstop', value = 8, reach = 'safe', why = 'wider' },
      { index = 2, type = 'terminal', command = 'make', reach = 'shell' },
    },
    dropped = { { index = 1, code = 'unknown_key', reason = 'no such option' } },
  }
  -- What the editor knows, by step position (4 is the same value as 4.0).
  local shown = mod.present_plan(plan, { { now = 4, global = 4 }, {} })
  eq('2 steps: 1 runs a shell command.', shown.summary)
  eq({ { '1. ', 'plain' }, { 'Set tabstop: ', 'plain' }, { '4 → 8', 'plain' } }, shown.rows[5])
  eq({ { '2. ', 'plain' }, { '[shell] ', 'shell' }, { 'Run in a terminal:', 'plain' } }, shown.rows[7])
  eq({ { '- ', 'dropped' }, { 'no such option', 'dropped' } }, shown.rows[#shown.rows])
  eq({}, shown.unchanged)
  eq(nil, shown.nothing)
  local same = mod.present_plan({ steps = { plan.steps[1] } }, { { now = 8, global = 8 } })
  eq({ 0 }, same.unchanged)
  eq('leash: nothing to change: tabstop is already 8', same.nothing)
  -- A table inside itself, ten times over, is read once (the spec runner's timeout
  -- catches a walk that follows it): no hang, no error.
  local loop = {}
  for i = 1, 10 do
    loop[i] = loop
  end
  eq('10 steps: 10 have an unknown reach.', mod.present_plan({ steps = loop, dropped = loop }, { loop }).summary)
end

function H.checks.preview_steps(mod)
  local sort = { type = 'item', id = 'cmd:sort', args = {}, reach = 'edit' }
  local answer = mod.preview_steps({
    steps = {
      { type = 'setting', key = 'shiftwidth', value = 2, reach = 'safe' },
      sort,
      { type = 'item', id = 'cmd:substitute', args = { '/a/\\=1/' }, reach = 'code' },
      sort,
    },
  })
  eq({ kind = 'setting', apply = true }, answer.steps[1])
  eq({ kind = 'run' }, answer.steps[2])
  eq('not', answer.steps[3].kind)
  matches('expression', answer.steps[3].why)
  matches('^step 3 comes first', answer.steps[4].why)
  ok(vim.list_contains(answer.options, 'tabstop'), 'the options the copy takes')
  -- A step without a reach is never run on the copy; a table that is no plan has no steps.
  eq('not', mod.preview_steps({ steps = { { type = 'item', id = 'cmd:sort' } } }).steps[1].kind)
  eq(0, #mod.preview_steps('no plan').steps)
  -- The effect of a dry run reaches the presenter's rows.
  local shown = mod.present_plan({ steps = { sort } }, {
    {
      effect = { kind = 'diff', file = 'a.txt', added = 1, removed = 1, lines = { { '-', 1, 'b' }, { '+', 1, 'a' } } },
    },
  })
  eq({ { '   ', 'plain' }, { '+1 −1 in a.txt', 'note' } }, shown.rows[4])
  eq({ { '   ', 'plain' }, { '- 1 b', 'removed' } }, shown.rows[5])
  eq({ { '   ', 'plain' }, { '+ 1 a', 'added' } }, shown.rows[6])
end

function H.checks.check_config(mod)
  local cfg, errs = mod.check_config({ shortlist_limit = 20, keymap_modes = 'ignored here' }, { 'keymap_modes' })
  eq(nil, errs)
  eq(20, cfg.shortlist_limit)
  eq(true, cfg.confirm_before_run, 'the defaults filled in')
  eq(nil, cfg.keymap_modes, 'a key of the Lua side is left to it')
  cfg, errs = mod.check_config({ log = 'yes', gti = 1 })
  eq(nil, cfg)
  eq({ 'gti: unknown option', 'log: should be a boolean, not string' }, errs)
end

function H.checks.provider_config(mod)
  eq(nil, mod.provider_config({}), 'offline')
  local p = mod.provider_config({ provider = 'ollama', timeout_ms = 5000 })
  eq({ name = 'ollama', timeout_ms = 5000, timeout_setting = 'timeout_ms', headers = {} }, p)
  local _, text = mod.provider_config({ provider = 'ollama', timeout_ms = 5000 })
  eq(p, vim.json.decode(text), 'the same provider as JSON text')
  p = mod.provider_config({ provider = 'l', providers = { l = { kind = 'ollama', timeout_ms = 9000 } } })
  eq({ 'l', 'ollama', 9000 }, { p.name, p.kind, p.timeout_ms })
  eq(nil, p.timeout_setting, 'the provider sets its own deadline')
  matches('leash: config: provider:', raises(mod.provider_config, { provider = 'nope' }))
end

function H.checks.config_keys(mod)
  local keys = mod.config_keys()
  ok(vim.tbl_contains(keys, 'providers.NAME.timeout_ms'), 'a provider field')
  ok(vim.tbl_contains(keys, 'raise[].reach'), 'a rule field')
  ok(not vim.tbl_contains(keys, 'providers.NAME.timeout_setting'), "a frontend field is not the user's")
end

function H.checks.policy_lists(mod)
  local lists = mod.policy_lists()
  ok(lists.withheld.normal, ':normal is withheld')
  eq({ 'hide' }, lists.no_args)
  eq(10, lists.number_arg_caps.sleep)
  eq(nil, lists.invisible, 'the ranges stay in the core: text goes through visible()')
  eq(4096, lists.max_text_bytes)
  eq(3000, lists.max_plan_sleep_ms)
  eq('safe', lists.commands.edit.reach)
  eq(true, lists.commands.edit.xfile)
end

function H.checks.check_command_args(mod)
  eq(nil, mod.check_command_args('edit', 'safe', { 'notes.md' }))
  matches('term:', mod.check_command_args('edit', 'safe', { 'term://sh' }))
  local gzip = { { pattern = '*.gz', event = 'BufReadPost', group = 'gzip' } }
  eq(nil, mod.check_command_args('edit', 'safe', { 'x.gz' }), 'without handlers, no list of names')
  matches(
    '“x.gz” is read or written by an autocommand of “gzip” %(BufReadPost %*%.gz%), which can run a program; the plan did not show this step as %[shell%]',
    mod.check_command_args('edit', 'safe', { 'x.gz' }, gzip)
  )
  eq(nil, mod.check_command_args('edit', 'shell', { 'x.gz' }, gzip), 'a shell step may')
  eq(nil, mod.check_command_args('help', 'safe', { 'x.gz' }, gzip), ':help takes no file name')
  matches('unknown reach', raises(mod.check_command_args, 'edit', 'nope', {}))
end

function H.checks.check_item_args(mod)
  eq(nil, mod.check_item_args({ 'notes.md' }, 'safe'))
  matches('argument “term://sh” starts with “term:”', mod.check_item_args({ 'term://sh' }, 'plugin'))
  eq(nil, mod.check_item_args({ 'term://sh' }, 'shell'), 'a shell step may pass a URL')
  matches('control character', mod.check_item_args({ 'a\nb' }, 'shell'), 'but never a hidden line break')
  matches('unknown reach', raises(mod.check_item_args, {}, 'nope'))
end

function H.checks.check_file_name(mod)
  eq(nil, mod.check_file_name('/src/main.rs'))
  matches('the file name “%+cmd” starts with “%+”', mod.check_file_name('+cmd'))
  matches('term:', mod.check_file_name('term://sh'))
end

function H.checks.name_handler(mod)
  local handlers = {
    { pattern = '*.gz', event = 'BufReadPost', group = 'gzip' },
    { pattern = '{zipfile,jarfile}:*', event = 'BufReadCmd', group = 'zip' },
  }
  eq(1, mod.name_handler('dir/NOTES.GZ', handlers), 'case does not matter')
  eq(2, mod.name_handler('zipfile:/a.zip::b', handlers))
  eq(nil, mod.name_handler('gzip.txt', handlers))
  eq(nil, mod.name_handler('x.gz', {}))
end

function H.checks.write_landing(mod)
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. '/config/plugin', 'p')
  vim.fn.mkdir(dir .. '/project', 'p')
  local where = { code_dirs = { dir .. '/config' }, cwd = dir .. '/project' }
  local write = function(args) return { type = 'item', id = 'cmd:write', args = args } end
  eq(nil, mod.write_landing(write({ 'notes.txt' }), where))
  matches('loads code from', mod.write_landing(write({ '../config/plugin/x.lua' }), where))
  eq(nil, mod.write_landing(write({}), where), 'the current file, none given')
  matches(
    'loads code from',
    mod.write_landing(write({}), vim.tbl_extend('force', where, { file = dir .. '/config/x.lua' }))
  )
  local modified = vim.tbl_extend('force', where, { modified = { dir .. '/project/a', dir .. '/config/b.vim' } })
  matches('config/b%.vim', mod.write_landing({ type = 'item', id = 'cmd:wall', args = {} }, modified))
  matches(
    "'verbosefile'",
    mod.write_landing({ type = 'setting', key = 'verbosefile', value = '../config/v.vim' }, where)
  )
  eq(nil, mod.write_landing({ type = 'setting', key = 'wrap', value = true }, where))
  -- The plan's earlier settings count, resolved from the directory of now.
  local later = { code_dirs = where.code_dirs, cwd = dir, settings = { backupdir = 'config/plugin//' } }
  matches("'backupdir'", mod.write_landing(write({ 'notes.txt' }), later))
  eq(nil, mod.write_landing(write({ 'notes.txt' }), vim.tbl_extend('force', later, { settings = {} })))
  eq(nil, mod.write_landing(write({ '/x/plugin/a.lua' }), {}), 'no folders known: nothing to find')
  matches('code_dirs', raises(mod.write_landing, write({}), { code_dirs = { '' } }))
  vim.fn.delete(dir, 'rf')
end

function H.checks.plan_needs_window(mod)
  local step = { index = 0, type = 'setting', key = 'wrap', value = true, reach = 'safe' }
  local plan = { reply = '', confirm = 'default', steps = { step }, dropped = {} }
  eq(false, mod.plan_needs_window(plan, false))
  eq(true, mod.plan_needs_window(plan, true), 'confirm_before_run on')
  eq(true, mod.plan_needs_window(vim.tbl_extend('force', plan, { confirm = 'required' }), false))
  eq(true, mod.plan_needs_window({ confirm = 'default', steps = { 'not a step' } }, false))
  eq(false, mod.plan_needs_window({ confirm = 'default', steps = {} }, false), 'an empty plan')
end

function H.checks.plan_marked(mod)
  local function plan(step) return { confirm = 'default', steps = { step } } end
  eq(false, mod.plan_marked(plan({ type = 'setting', key = 'wrap', reach = 'edit' })))
  eq(true, mod.plan_marked(plan({ type = 'setting', key = 'wrap', reach = 'write' })))
  eq(true, mod.plan_marked(plan({ type = 'terminal', command = 'ls', reach = 'safe' })), 'a terminal step')
  eq(true, mod.plan_marked(plan({ type = 'item', id = 'term:tab', reach = 'safe' })), 'a term: item')
  eq(true, mod.plan_marked(plan({ type = 'setting', key = 'wrap', reach = 'sideways' })), 'unknown reach')
end

function H.checks.check_step_args(mod)
  eq(nil, mod.check_step_args('cmd:edit', 'optional', {}))
  matches('needs an argument', mod.check_step_args('cmd:edit', 'required', {}))
  matches('takes no arguments', mod.check_step_args('cmd:only', 'none', { 'x' }))
  matches('longer than 4096 bytes', mod.check_step_args('cmd:edit', 'optional', { ('x'):rep(4097) }))
  matches('unknown argument kind', raises(mod.check_step_args, 'cmd:edit', 'many', {}))
end

function H.checks.terminal_entry(mod)
  local e = mod.terminal_entry()
  eq({ 'term:run', 'terminal', 'required', 'shell' }, { e.id, e.kind, e.args, e.reach })
  matches('split below', e.description)
end

function H.checks.provider_key(mod)
  eq(nil, mod.provider_key({}), 'offline: no provider')
  local key = mod.provider_key({ provider = 'anthropic' })
  eq({ 'anthropic', true, 'env', 'ANTHROPIC_API_KEY' }, { key.kind, key.required, key.key.from, key.key.name })
  local here = mod.provider_key({
    provider = 'here',
    providers = { here = { kind = 'openai', url = 'http://127.0.0.1:9/v1', model = 'm' } },
  })
  eq({ 'openai', false, nil }, { here.kind, here.required, here.key })
  matches('provider', raises(mod.provider_key, { provider = 'nowhere' }))
end

function H.checks.path_landing(mod)
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. '/config/plugin', 'p')
  vim.fn.mkdir(dir .. '/project/.git', 'p')
  vim.fn.mkdir(dir .. '/project/vendor/lib/.git', 'p')
  local where = { code_dirs = { dir .. '/config' }, cwd = dir .. '/project' }
  eq(nil, mod.path_landing(dir .. '/project/src/a b.lua', where))
  matches('loads code from', mod.path_landing(dir .. '/config/plugin/x.lua', where))
  matches(
    'outside this project',
    mod.path_landing(dir .. '/config/plugin/x.lua', vim.tbl_extend('force', where, { code_folders = false }))
  )
  matches('in another project %(vendor/lib', mod.path_landing(dir .. '/project/vendor/lib/x.lua', where))
  eq(nil, mod.path_landing(dir .. '/elsewhere/x.lua', {}), 'no folders known: nothing to find')
  vim.fn.delete(dir, 'rf')
end

--- catalog_new's `base`: the runtime entries, parsed once per key from their text or
--- file and kept for the session's later catalogs.
function H.base_option(mod)
  local text = vim.json.encode({
    commands = { { id = 'cmd:vsplit', kind = 'command', title = 'split', args = 'optional', reach = 'safe' } },
    options = { { key = 'wrap', kind = 'setting', title = 'long lines wrap', type = 'boolean' } },
    user_help = { Tutor = 'a frontend’s own data, skipped' },
  })
  local cat = mod.catalog_new({}, 'neovim', { base = { key = 'spec-base-text', text = text, lists = { 'commands' } } })
  eq(1, cat:len())
  eq(true, cat:has('cmd:vsplit'))
  -- Kept under its key: the next catalog needs only the key.
  cat = mod.catalog_new({}, 'neovim', { base = { key = 'spec-base-text', lists = { 'options' } } })
  eq(true, cat:has('wrap'))
  local file = vim.fn.tempname() .. '.json'
  vim.fn.writefile({ text }, file)
  cat = mod.catalog_new(
    { { id = 'user:Git', kind = 'user_command', title = 'git', reach = 'plugin' } },
    'neovim',
    { base = { key = 'spec-base-path', path = file, lists = { 'options', 'commands' } } }
  )
  eq(3, cat:len())
  eq(
    { 'wrap', 'cmd:vsplit', 'user:Git' },
    vim.tbl_map(function(e) return e.key or e.id end, vim.json.decode(cat:to_json()).entries)
  )
  os.remove(file)
  matches(
    'must be an object of entry lists',
    raises(mod.catalog_new, {}, 'neovim', { base = { key = 'spec-base-bad', text = '[]', lists = {} } })
  )
  -- An entry of the wrong type is named, with its list and place.
  local bad = vim.json.encode({ options = { { key = 'wrap', type = 'boolean' }, { key = 'list', type = 5 } } })
  matches(
    '“options” entry 1: “list”: “type” must be a string',
    raises(mod.catalog_new, {}, 'neovim', { base = { key = 'spec-base-type', text = bad, lists = {} } })
  )
  matches('are not loaded', raises(mod.catalog_new, {}, 'neovim', { base = { key = 'spec-never', lists = {} } }))
  matches(
    'cannot read',
    raises(mod.catalog_new, {}, 'neovim', { base = { key = 'spec-gone', path = file, lists = {} } })
  )
end

-- A project folder with a Makefile (and, with `git`, a `.git` folder), removed by the caller.
local function project(git)
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. (git and '/.git' or ''), 'p')
  vim.fn.writefile({ 'build:', '\techo building' }, dir .. '/Makefile')
  return vim.fs.normalize(vim.uv.fs_realpath(dir))
end

function H.checks.sources(mod)
  local dir = project(false)
  local found = mod.sources({ cwd = dir, editor = 'neovim' })
  -- Asked again with the generation it answered: nothing new, so nothing to convert.
  eq('number', type(found.generation))
  eq(nil, mod.sources({ cwd = dir, editor = 'neovim', unless = found.generation }))
  vim.fn.writefile({ 'build:', '\techo building', 'test:', '\techo testing' }, dir .. '/Makefile')
  local changed = mod.sources({ cwd = dir, editor = 'neovim', unless = found.generation })
  ok(changed and changed.generation ~= found.generation, 'a new target: new items, a new generation')
  ok(vim.tbl_filter(function(e) return e.id == 'script:make:test' end, changed.scripts)[1], 'the new target')
  vim.fn.delete(dir, 'rf')
  local build = vim.tbl_filter(function(e) return e.id == 'script:make:build' end, found.scripts)[1]
  ok(build, 'the Makefile target is a script item')
  eq({ 'make', 'build' }, build.cmd)
  eq(dir, build.root)
  eq('shell', build.reach)
  eq({}, found.git, 'no Git items outside a work tree')
  ok(#found.files > 0, 'file actions')
  matches('neovim or helix', raises(mod.sources, { cwd = dir, editor = 'emacs' }))
end

function H.checks.sources_reset(mod)
  local dir = project(false)
  eq(1, #vim.tbl_filter(function(e) return e.id == 'script:make:build' end, mod.sources({ cwd = dir }).scripts))
  -- A same-size edit keeps its cached parse until the cache is dropped.
  local st = vim.uv.fs_stat(dir .. '/Makefile')
  vim.fn.writefile({ 'bild:', '\techo building' }, dir .. '/Makefile')
  vim.uv.fs_utime(dir .. '/Makefile', st.atime.sec, st.mtime.sec)
  mod.sources_reset()
  local ids = vim.tbl_map(function(e) return e.id end, mod.sources({ cwd = dir }).scripts)
  vim.fn.delete(dir, 'rf')
  ok(vim.tbl_contains(ids, 'script:make:bild'), 'read again after the reset')
end

function H.checks.script_files(mod)
  local files = mod.script_files()
  ok(vim.tbl_contains(files, 'Makefile'), 'Makefile is a definition file')
  ok(vim.tbl_contains(files, 'package.json'), 'package.json is a definition file')
  ok(vim.tbl_contains(files, '.vscode/tasks.json'), 'the task file, not the folder')
end

function H.checks.git_root(mod)
  local plain, repo = project(false), project(true)
  vim.fn.mkdir(repo .. '/src', 'p')
  local found, none = mod.git_root(repo .. '/src'), mod.git_root(plain)
  vim.fn.delete(plain, 'rf')
  vim.fn.delete(repo, 'rf')
  eq(repo, found)
  eq(nil, none)
end

function H.checks.git_argv(mod)
  eq({ 'status' }, mod.git_argv('status', { root = '/p' }))
  eq({ 'add', '--', '/p/a.txt' }, mod.git_argv('stage_file', { root = '/p', file = '/p/a.txt' }))
  local argv, why = mod.git_argv('stage_file', { root = '/p', file = '/elsewhere/a.txt' })
  eq(nil, argv)
  matches('outside the Git work tree', why)
  matches('unknown Git action', select(2, mod.git_argv('rebase', { root = '/p' })))
  matches('branch name', select(2, mod.git_argv('switch', { root = '/p', args = { '--orphan' } })))
end

function H.checks.git_quiet(mod)
  local argv = mod.git_quiet({ 'status' })
  eq('git', argv[1])
  eq('status', argv[#argv])
  ok(vim.tbl_contains(argv, 'core.pager=cat'), 'no pager from the repository config')
  ok(vim.tbl_contains(argv, 'diff.external='), 'no external diff')
end

function H.checks.git_check(mod)
  eq(nil, mod.git_check('branch', 'feature/x'))
  matches('branch name', mod.git_check('branch', 'a..b'))
  eq(nil, mod.git_check('message', 'fix the parser'))
  matches('control character', mod.git_check('message', 'x\27[2J'))
end

local capture_notify = dofile(root .. '/tests/nvim/helpers.lua').capture_notify

describe('native.load()', function()
  before_each(function()
    fresh()
    require('leash.native').reset()
  end)

  it('loads the library and passes the handshake', function()
    local native = require('leash.native')
    local mod, err = native.load()
    ok(mod, err)
    eq('0.1.0', mod.version())
    eq(native.version, mod.version())
    eq(native.version, require('leash').version)
    local s = native.status()
    eq(true, s.loaded)
    eq('0.1.0', s.version)
  end)

  it('finds the installed lua/leash_native through runtimepath', function()
    local installed = root .. '/lua/' .. require('leash.native').installed_name()
    ok(vim.uv.fs_stat(installed), 'scripts/test installs ' .. installed)
    eq('runtimepath', require('leash.native').status().how)
  end)

  it('exports only what native_spec checks (a new export needs a check here)', function()
    local mod = require('leash.native').get()
    local missing = {}
    for name in pairs(mod) do
      if not H.checks[name] then missing[#missing + 1] = name end
    end
    table.sort(missing)
    eq({}, missing, 'exports without a check in native_spec')
    for name in pairs(H.checks) do
      ok(mod[name] ~= nil, 'native_spec checks ' .. name .. ', which is not exported')
    end
  end)

  it('reports a missing library with what to run', function()
    local native = require('leash.native')
    local empty, restore = without_native()
    local mod, err = native.load()
    restore()
    eq(nil, mod)
    matches('native library not found', err)
    matches(':Leash build', err)
    matches('cargo build %-%-release', err)
    matches(vim.pesc(empty), err)
    eq(false, native.status().loaded)
    local msg = raises(native.get)
    matches('native library not found', msg)
  end)

  it('refuses a Neovim older than the minimum', function()
    local native = require('leash.native')
    native.min_nvim = '99.0'
    native.reset()
    local mod, err = native.load()
    eq(nil, mod)
    matches('leash: needs Neovim 99%.0 or newer; this is %d+%.%d+%.%d+', err)
  end)

  it('after a build, asks for a restart when a library is loaded', function()
    local native = require('leash.native')
    ok(native.load())
    local status, msg = native.activate()
    eq('restart', status)
    matches('restart Neovim to use it %(this session keeps the library it loaded from .*, version 0%.1%.0%)', msg)
  end)

  it('lists every function the library exports, and refuses a library without one', function()
    local native = require('leash.native')
    local functions = {}
    for name, v in pairs(native.get()) do
      if type(v) == 'function' then functions[#functions + 1] = name end
    end
    table.sort(functions)
    eq(functions, native.exports)
    -- A library older than this side, though it says the same version.
    local exports = native.exports
    native.exports = vim.list_extend({ 'leash_spec_newer' }, exports)
    native.reset()
    local mod, err = native.load()
    native.exports = exports
    eq(nil, mod)
    matches('is older than the Lua side %(it has no leash_spec_newer%)', err)
    matches(':Leash build', err)
  end)

  it('reports a version mismatch with what to run', function()
    local native = require('leash.native')
    native.version = '9.9.9'
    native.reset()
    local mod, err = native.load()
    eq(nil, mod)
    matches('is version 0%.1%.0 but the Lua side is 9%.9%.9', err)
    matches(':Leash build', err)
  end)
end)

describe('native.call()', function()
  before_each(function()
    fresh()
    require('leash.native').reset()
  end)

  it('gives the results, or fails closed saying why: too old, the call raised, no library', function()
    local native = require('leash.native')
    local mod = native.get()
    eq({ true, 'x<U+202E>' }, { native.call('visible', 'show text', 'x\u{202E}') })
    eq(
      { false, 'the native library is too old to do magic (run :Leash build)' },
      { native.call('no_such_export', 'do magic') }
    )
    mod.leash_spec_boom = function() error('boom') end
    local ok_, why = native.call('leash_spec_boom', 'explode')
    mod.leash_spec_boom = nil
    eq(false, ok_)
    matches('^the native library could not explode: .*boom', why)
    local load = native.load
    native.load = function() return nil, 'leash: no native module (spec)' end
    local r = { native.call('visible', 'show text', 'x') }
    native.load = load
    eq({ false, 'leash: no native module (spec)' }, r)
  end)
end)

describe('native.copy()', function()
  before_each(function()
    fresh()
    require('leash.native').reset()
  end)

  it('copies a plan the library returned, which vim.deepcopy() cannot, into plain tables', function()
    local native = require('leash.native')
    local mod = native.get()
    local cat =
      mod.catalog_new({ { key = 'wrap', kind = 'setting', title = 'long lines wrap', type = 'boolean' } }, 'neovim')
    local plan = mod.validate(cat, '{"reply": "ok", "steps": [{"type": "setting", "key": "wrap", "value": true}]}', {
      profile = 'neovim',
    })
    ok(not pcall(vim.deepcopy, plan), "vim.deepcopy() copies the library's tables now: use it")
    local copy = native.copy(plan)
    eq(vim.json.decode(vim.json.encode(plan)), vim.json.decode(vim.json.encode(copy)))
    eq(nil, getmetatable(copy.steps))
    copy.steps[1].note = 'shown'
    eq(nil, plan.steps[1].note, 'a copy, not the same tables')
    eq(3, native.copy(3))
  end)
end)

describe(':Do without the native library', function()
  before_each(function()
    fresh()
    local empty = vim.fn.tempname()
    vim.fn.mkdir(empty, 'p')
    require('leash.native').reset({ root = empty, runtimepath = false })
  end)

  it('refuses to plan and says why', function()
    local leash = require('leash')
    local planned = false
    leash.plan = function() planned = true end
    local seen, restore = capture_notify()
    local saved = vim.env.CARGO_TARGET_DIR
    vim.env.CARGO_TARGET_DIR = nil
    vim.cmd('Do turn on word wrap')
    vim.env.CARGO_TARGET_DIR = saved
    vim.wait(1000, function() return #seen > 0 end)
    restore()
    eq(false, planned, 'plan() must not be called')
    eq(1, #seen)
    eq(vim.log.levels.ERROR, seen[1].level)
    matches('native library not found', seen[1].msg)
  end)

  it('cannot rank either', function()
    local hits, err = require('leash').rank('wrap')
    eq(nil, hits)
    matches(':Leash build', err)
  end)
end)

describe('build.install()', function()
  before_each(function() fresh() end)

  it('installs atomically by rename, leaving no temp file', function()
    local native = require('leash.native')
    local dir = vim.fn.tempname()
    vim.fn.mkdir(dir .. '/lua', 'p')
    vim.fn.mkdir(dir .. '/target/release', 'p')
    local saved = vim.env.CARGO_TARGET_DIR
    vim.env.CARGO_TARGET_DIR = nil
    local art = native.artifact(dir)
    vim.fn.writefile({ 'new' }, art)
    local dest = dir .. '/lua/' .. native.installed_name()
    vim.fn.writefile({ 'old' }, dest)
    local old_inode = vim.uv.fs_stat(dest).ino
    local ok_, msg = require('leash.build').install(dir)
    vim.env.CARGO_TARGET_DIR = saved
    ok(ok_, msg)
    eq({ 'new' }, vim.fn.readfile(dest))
    ok(vim.uv.fs_stat(dest).ino ~= old_inode, 'a new inode, not an overwrite')
    eq({}, vim.fn.glob(dir .. '/lua/*.tmp', false, true))
  end)
end)

describe('every export of the native module', function()
  before_each(function()
    fresh()
    require('leash.native').reset()
  end)

  local names = vim.tbl_keys(H.checks)
  table.sort(names)
  for _, name in ipairs(names) do
    it(name, function() H.checks[name](require('leash.native').get()) end)
  end
end)
