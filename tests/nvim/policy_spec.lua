-- The executor checks every step again just before it runs, with the core's own rules
-- (lua/leash/policy.lua calls the native module; no rule is copied into Lua). One corpus
-- goes through the validator and through those checks: a step the validator passes runs,
-- a step it drops is refused at run time too, and a step the validator raised to [shell]
-- because a handler reads its file is refused when it arrives lower.

local native = require('leash.native').get()
local policy = require('leash.policy')

--- Every combination of these commands, reaches and arguments is one case.
local commands = {
  'edit',
  'vsplit',
  'args',
  'argadd',
  'next',
  'drop',
  'vimgrep',
  'write',
  'saveas',
  'read',
  'find',
  'cfile',
  'colorscheme',
  'packadd',
  'setfiletype',
  'sleep',
  'center',
  'retab',
  'help',
  'hide',
  'lua',
  'substitute',
  'global',
  'NoSuchCommand',
}
local reaches = { 'safe', 'edit', 'write', 'code', 'shell' }
local arguments = {
  {},
  { 'notes.md' },
  { 'notes with spaces.md' },
  { 'src/policy/neovim.rs' },
  { 'x | !touch m' },
  { '`touch m`' },
  { '+!touch m' },
  { '  +call x()' },
  { '++p dir/f' },
  { '!sh' },
  { 'term://sh' },
  { 'a.txt term://sh' },
  { 'a.txt\u{3000}term://sh' }, -- an ideographic space between the names
  { '\u{00A0}+cmd' },
  { 'scp://host/x' },
  { 'C:notes.txt' },
  { '%.bak' },
  { '#' },
  { '*.rs' },
  { '[ab].md' },
  { '{a,b}.md' },
  { '$HOME/.bashrc' },
  { '~/.bashrc' },
  { 'a.txt ~/x' },
  { 'a~b.md' },
  { '<cfile>' },
  { 'a<b.md' },
  { 'notes\n.md' },
  { 'notes\r.md' },
  { 'evil\u{202E}dm.txt' },
  { 'zero\u{200B}width' },
  { 'bom\u{FEFF}' },
  { 'c1\u{0085}' },
  { ('a'):rep(4097) },
  { 'desert' },
  { '../../x' },
  { 'c.doxygen' },
  { '2' },
  { '11' },
  { '500m' },
  { '20000m' },
  { '80' },
  { '99999' },
  { '4,99999' },
  { "'tabstop'" },
  { '/x/d' },
  { 'data.gz' },
  { 'DATA.LZ4' },
  { 'a.txt b.bz3' },
  { 'pkg.zip' },
  { 'zipfile:a.zip::b' },
  { 'gzip.txt' },
  { '/hello/', 'a.txt b.xz' },
}

describe('policy lists', function()
  it('come from the native module, with every list the Lua side uses', function()
    local lists = assert(require('leash.policy').lists())
    eq(lists, native.policy_lists())
    ok(lists.withheld.normal and lists.withheld.execute and lists.withheld.silent, 'withheld commands')
    eq({ 'hide' }, lists.no_args)
    eq(10, lists.number_arg_caps.sleep)
    eq(4096, lists.max_text_bytes)
    eq(3000, lists.max_plan_sleep_ms)
    eq({ 'safe', 'edit', 'write', 'code', 'plugin', 'shell' }, lists.reaches)
    eq({ 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY' }, lists.default_key_envs)
    eq(
      { raw = 'shell', reach = 'safe', xfile = true, cmdarg = true, argopt = true, loads_files = true },
      lists.commands.edit
    )
    ok(vim.tbl_count(lists.commands) > 500)
  end)

  it('no Lua file carries its own copy of them', function()
    for _, file in ipairs(vim.fn.globpath(root .. '/lua', '**/*.lua', false, true)) do
      local text = table.concat(vim.fn.readfile(file), '\n')
      ok(not text:find('0x202E', 1, true), file .. ' lists invisible characters')
      ok(not text:find("'%.lzma'"), file .. ' lists compressed suffixes')
      ok(not text:find("'keeppatterns'", 1, true), file .. ' lists withheld commands')
      ok(not text:find('4096', 1, true), file .. ' writes the text limit')
      ok(not text:find('edit = 2', 1, true), file .. ' lists the reach order')
      ok(not text:find('OPENAI_API_KEY', 1, true), file .. ' names a default key')
    end
  end)

  it('order reaches as the core does: an unknown one counts as shell where it is compared', function()
    eq(
      { 1, 4, 6, nil },
      { policy.rank_of('safe'), policy.rank_of('code'), policy.rank_of('shell'), policy.rank_of('x') }
    )
    eq({ false, true, true, true }, {
      policy.at_least('write', 'code'),
      policy.at_least('code', 'code'),
      policy.at_least('plugin', 'code'),
      policy.at_least('harmless', 'code'),
    })
  end)

  it("hold an item step's arguments to the core's count and text rule before it runs", function()
    eq(nil, policy.check_step_args('cmd:edit', 'required', { 'notes.md' }))
    matches('needs an argument', policy.check_step_args('cmd:edit', 'required', {}))
    matches('takes no arguments', policy.check_step_args('cmd:only', 'none', { 'x' }))
    matches('longer than 4096', policy.check_step_args('cmd:edit', 'optional', { ('x'):rep(4097) }))
    eq(nil, policy.check_step_args('cmd:edit', 'optional', { ('x'):rep(4096) }))
    matches('control character', policy.check_step_args('cmd:edit', 'optional', { 'a\27b' }))
    matches('no argument kind', policy.check_step_args('cmd:edit', nil, {}))
    matches('unknown argument kind', policy.check_step_args('cmd:edit', 'some', {}))
  end)
end)

describe('name handlers', function()
  local nh = require('leash.name_handlers')
  local handlers = nh.list()

  it('knows the handled names this Neovim has (gzip, tar, zip, netrw)', function()
    for _, name in ipairs({ 'a.gz', 'a.lz4', 'a.bz3', 'a.xz', 'A.ZST', 'dir/a.tar', 'a.zip', 'a.jar', 'term://sh' }) do
      ok(nh.match(name, handlers), name)
    end
    for _, name in ipairs({ 'notes.md', 'gzip.txt', 'a.gzip', 'main.rs' }) do
      eq(nil, nh.match(name, handlers), name)
    end
  end)

  it('leaves out filetype detection autocommands', function()
    local group = vim.api.nvim_create_augroup('LeashSpecFt', { clear = true })
    local function define(event, command)
      vim.api.nvim_create_autocmd(event, { group = group, pattern = '*.leashspec', command = command })
    end
    define('BufRead', 'setfiletype text')
    define('BufReadPost', 'set ft=text')
    eq(nil, nh.match('x.leashspec'))
    define('BufReadPost', 'call system("x")')
    ok(nh.match('x.leashspec'), 'a handler that runs something')
    vim.api.nvim_del_augroup_by_id(group)
  end)

  it('say why when the core cannot answer, and a file action then refuses the name (fail closed)', function()
    local mod = require('leash.native')
    local load = mod.load
    mod.load = function() return nil, 'leash: no native module (spec)' end
    local h, err = nh.match('notes.md', handlers)
    local path, perr = require('leash.sources.files').check_path('notes.md', vim.fn.getcwd(), vim.fn.getcwd())
    mod.load = load
    eq({ nil, 'leash: no native module (spec)' }, { h, err })
    eq(nil, path)
    matches('refusing path “notes.md”: leash: no native module %(spec%)', perr)
  end)
end)

describe("the executor's checks", function()
  local handlers = require('leash.name_handlers').list()

  --- The validated step for `:name args` from a catalog that declares `reach`, or the
  --- code it was dropped with.
  local catalogs = {}
  local function validate(name, reach, args)
    local key = name .. ' ' .. reach
    catalogs[key] = catalogs[key]
      or native.catalog_new(
        { { id = 'cmd:' .. name, kind = 'command', title = name, args = 'optional', reach = reach } },
        'neovim',
        { name_handlers = handlers }
      )
    local plan = native.validate(
      catalogs[key],
      vim.json.encode({ reply = '', steps = { { type = 'item', id = 'cmd:' .. name, args = args } } })
    )
    return plan.steps[1], plan.dropped[1]
  end

  -- What the argument filter refuses; other refusals (a plan's sleep budget) are the
  -- validator's alone.
  local filter_codes = {
    unsafe_argument = true,
    control_character = true,
    invisible_character = true,
    too_long = true,
    above_limit = true,
    takes_no_args = true,
  }

  it('pass what the validator passed, and refuse what it dropped or raised to [shell]', function()
    local n, wrong = 0, {}
    local function fail(fmt, ...) wrong[#wrong + 1] = fmt:format(...) end
    for _, name in ipairs(commands) do
      for _, reach in ipairs(reaches) do
        for _, args in ipairs(arguments) do
          n = n + 1
          local case = (':%s [%s] %s'):format(name, reach, vim.inspect(args):sub(1, 60))
          local step, dropped = validate(name, reach, args)
          if step then
            local why = policy.check_command_args(name, step.reach, args, handlers)
            if why then fail('%s: validated as [%s], refused at run: %s', case, step.reach, why) end
            if
              reach ~= 'shell'
              and step.reach == 'shell'
              and step.note
              and step.note:find('read or written by', 1, true)
            then
              if not policy.check_command_args(name, reach, args, handlers) then
                fail('%s: raised to [shell] for a handled name, runs as [%s]', case, reach)
              end
            end
          elseif filter_codes[dropped.code] and not policy.check_command_args(name, reach, args, handlers) then
            fail('%s: dropped (%s), runs at [%s]', case, dropped.code, reach)
          end
        end
      end
    end
    ok(n > 5000, n)
    eq({}, wrong)
  end)

  it('say why, in the words of the validator', function()
    eq(nil, policy.check_command_args('edit', 'safe', { 'notes.md' }, handlers))
    -- An ideographic space looks like a plain one: refused before the names are split.
    matches('invisible character U%+3000', policy.check_command_args('edit', 'safe', { 'a.txt\u{3000}term://sh' }))
    matches('autocommand of “gzip”', policy.check_command_args('edit', 'safe', { 'DATA.LZ4' }, handlers))
    eq(nil, policy.check_command_args('edit', 'shell', { 'DATA.LZ4' }, handlers))
    matches('above the limit', policy.check_command_args('sleep', 'safe', { '20000m' }))
  end)

  it('filter the arguments of user commands and entries whatever reach they declare', function()
    for _, reach in ipairs({ 'safe', 'edit', 'write', 'code', 'plugin' }) do
      matches('URL%-like', policy.check_item_args({ 'term://touch x' }, reach), reach)
      matches('“|”', policy.check_item_args({ 'a | b' }, reach), reach)
    end
    eq(nil, policy.check_item_args({ 'term://sh' }, 'shell'))
    matches('control character', policy.check_item_args({ 'a\nb' }, 'shell'))
    eq(nil, policy.check_item_args({ 'notes.md' }, 'safe'))
  end)

  it('refuse everything when the native module cannot be loaded (fail closed)', function()
    local mod = require('leash.native')
    local load = mod.load
    mod.load = function() return nil, 'leash: no native module (spec)' end
    local a = policy.check_command_args('edit', 'safe', { 'notes.md' })
    local b = policy.check_item_args({ 'notes.md' }, 'safe')
    local c = policy.check_file_name('/src/main.rs')
    local d = policy.check_step_args('cmd:edit', 'required', { 'notes.md' })
    mod.load = load
    eq(
      { 'leash: no native module (spec)', 'leash: no native module (spec)', 'leash: no native module (spec)' },
      { a, b, c }
    )
    eq('leash: no native module (spec)', d)
    matches('unknown reach', policy.check_command_args('edit', 'sideways', {}))
  end)
end)

describe('text.visible()', function()
  local text = require('leash.text')

  it('shows control, C1 and invisible characters, also after a stray byte', function()
    eq('a^[b^J', text.visible('a\27b\n'))
    eq('x<U+0085>', text.visible('x\u{0085}'))
    eq('<U+202E>abc', text.visible('\u{202E}abc'))
    eq('<U+202E>\128', text.visible('\u{202E}\128'))
    eq('<U+FEFF>', text.visible('\u{FEFF}'))
    eq('café ✓', text.visible('café ✓'))
    eq(' contains an invisible character', text.check('a\u{2066}b'))
    eq(' contains an invisible character', text.check('cd junk;\u{061C} rm'))
    eq('cd junk;<U+061C> rm', text.visible('cd junk;\u{061C} rm'))
    eq('one<U+202E>\ntwo', text.visible_lines('one\u{202E}\ntwo'))
  end)

  it('without the native module shows every character outside ASCII as a code point (fail closed)', function()
    local native = require('leash.native')
    local load = native.load
    native.load = function() return nil, 'leash: no native module (spec)' end
    local ok_, out = pcall(text.visible, 'café\u{061C} 中\27')
    native.load = load
    eq(true, ok_, out)
    eq('caf<U+00E9><U+061C> <U+4E2D>^[', out)
    eq(nil, text.check('plain'))
  end)
end)
