-- One source for the policy lists, and one corpus through both argument filters: the
-- native one (what the validator applied) and lua/leash/filter.lua (what the executor
-- applies again before a step runs). They must give the same answer for every case; a
-- list entry removed from either side, or a rule that drifts, fails here.

local native = require('leash.native').get()

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
    end
  end)
end)

describe('the Lua argument filter', function()
  local filter = require('leash.filter')
  local handlers = require('leash.name_handlers').list()

  it('knows the handled names this Neovim has (gzip, tar, zip, netrw)', function()
    local nh = require('leash.name_handlers')
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
    eq(nil, require('leash.name_handlers').match('x.leashspec'))
    define('BufReadPost', 'call system("x")')
    ok(require('leash.name_handlers').match('x.leashspec'), 'a handler that runs something')
    vim.api.nvim_del_augroup_by_id(group)
  end)

  it('gives the same answer as the native filter for every case of the corpus', function()
    local n, differ = 0, {}
    for _, name in ipairs(commands) do
      for _, reach in ipairs(reaches) do
        for _, args in ipairs(arguments) do
          n = n + 1
          local rust = native.check_command_args(name, reach, args, handlers)
          local lua = filter.check_command_args(name, reach, args, handlers)
          if (rust == nil) ~= (lua == nil) then
            differ[#differ + 1] = (':%s [%s] %s → native %s, Lua %s'):format(
              name,
              reach,
              vim.inspect(args):sub(1, 60),
              rust and 'refuses' or 'accepts',
              lua and 'refuses' or 'accepts'
            )
          end
        end
      end
    end
    ok(n > 5000, n)
    eq({}, differ)
  end)

  it('refuses what the corpus says is dangerous, and accepts plain names', function()
    eq(nil, filter.check_command_args('edit', 'safe', { 'notes.md' }, handlers))
    -- An ideographic space looks like a plain one: refused before the names are split.
    matches('invisible character', filter.check_command_args('edit', 'safe', { 'a.txt\u{3000}term://sh' }, handlers))
    matches('autocommand of “gzip”', filter.check_command_args('edit', 'safe', { 'DATA.LZ4' }, handlers))
    eq(nil, filter.check_command_args('edit', 'shell', { 'DATA.LZ4' }, handlers))
    matches('above the limit', filter.check_command_args('sleep', 'safe', { '20000m' }))
  end)

  it('filters the arguments of user commands and entries whatever reach they declare', function()
    for _, reach in ipairs({ 'safe', 'edit', 'write', 'code' }) do
      matches('URL%-like', filter.check_item_args({ 'term://touch x' }, reach), reach)
      matches('“|”', filter.check_item_args({ 'a | b' }, reach), reach)
    end
    eq(nil, filter.check_item_args({ 'term://sh' }, 'shell'))
    matches('control character', filter.check_item_args({ 'a\nb' }, 'shell'))
    eq(nil, filter.check_item_args({ 'notes.md' }, 'safe'))
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
