-- Every catalog source against the real Neovim, caching, and the export format.

local index = dofile(root .. '/tests/nvim/helpers.lua').index

describe('catalog sources', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset({ disk = false })
  end)

  it('lists every option with type, scope, aliases, values and docs', function()
    local entries, counts = require('leash.catalog').entries()
    -- Every option of this Neovim but the removed, hidden and withheld ones (24 on 0.11
    -- and 0.12).
    local all = vim.tbl_count(vim.api.nvim_get_all_options_info())
    ok(counts.options >= all - 30, ('options: %d of %d'):format(counts.options, all))
    local by = index(entries)
    eq('setting', by.wrap.kind)
    eq('boolean', by.wrap.type)
    eq('window', by.wrap.scope)
    matches('long lines wrap', by.wrap.title)
    matches('lines longer than the width of the window will wrap', by.wrap.description)
    local scl = by.signcolumn
    eq('string', scl.type)
    eq({ 'scl' }, scl.aliases)
    for _, v in ipairs({ 'yes', 'no', 'auto', 'number' }) do
      ok(vim.tbl_contains(scl.values, v), 'signcolumn value ' .. v)
    end
    eq({ 'sw' }, by.shiftwidth.aliases)
    eq('number', by.shiftwidth.type)
    eq('buffer', by.shiftwidth.scope)
    eq('global-local', by.statusline.scope)
    eq('global', by.guifont.scope)
    matches('font', by.guifont.title)
    eq(nil, by.guifont.values, 'guifont is free text')
    eq({ 'unix', 'dos', 'mac' }, by.fileformat.values)
    ok(#by.wrap.description <= require('leash.sources.options').description_max + 20, 'description trimmed')
  end)

  it('lists builtin Ex commands with titles, abbreviations and args', function()
    local entries, counts = require('leash.catalog').entries()
    ok(counts.commands >= 450, 'commands: ' .. counts.commands)
    local by = index(entries)
    local vs = by['cmd:vsplit']
    eq('command', vs.kind)
    eq({ 'vs' }, vs.aliases)
    eq('optional', vs.args)
    eq('split current window vertically', vs.title)
    eq('safe', vs.reach) -- the core's Neovim profile raises it where needed
    eq('none', by['cmd:only'].args)
    eq('required', by['cmd:wincmd'].args)
    eq({ 'N' }, by['cmd:Next'].aliases)
    eq({ 's' }, by['cmd:substitute'].aliases)
    -- `:wincmd {arg}` is CTRL-W {arg}: its description says what those keys do.
    matches('make all windows the same height', by['cmd:wincmd'].description)
    matches('exchange current window with window N', by['cmd:wincmd'].description)
  end)

  it('leaves out withheld commands', function()
    local by = index((require('leash.catalog').entries()))
    for _, name in ipairs({ 'silent', 'vertical', 'set', 'setlocal', 'execute', 'normal', 'noautocmd', 'sandbox' }) do
      eq(nil, by['cmd:' .. name], name)
    end
  end)

  it('lists user commands, global and buffer-local', function()
    vim.api.nvim_create_user_command('LeashSpecCmd', 'echo 1', { nargs = 1, desc = 'a spec command' })
    vim.api.nvim_buf_create_user_command(0, 'LeashSpecBuf', function() end, { desc = 'buffer only' })
    local by = index((require('leash.catalog').entries()))
    local u = by['user:LeashSpecCmd']
    ok(u, 'user:LeashSpecCmd')
    eq('user_command', u.kind)
    eq('required', u.args)
    eq('plugin', u.reach)
    eq('echo 1', u.title)
    eq('buffer only', by['user:LeashSpecBuf'].title)
    eq(nil, by['cmd:LeashSpecCmd'])
    eq(nil, u.description)
    -- A user command the runtime documents carries its help text, for the ranker.
    local help = require('leash.catalog').static().user_help
    matches('HTML', help.TOhtml)
    eq(nil, help.vsplit, 'builtins keep their own entries')
    local described =
      index(require('leash.sources.user_commands').entries({ static = { user_help = { LeashSpecCmd = 'spec help' } } }))
    eq('spec help', described['user:LeashSpecCmd'].description)
    vim.api.nvim_del_user_command('LeashSpecCmd')
    vim.api.nvim_buf_del_user_command(0, 'LeashSpecBuf')
  end)

  it('lists mappings that have a description', function()
    vim.keymap.set('n', '<leader>zz', '<Nop>', { desc = 'leash spec mapping' })
    vim.keymap.set('n', '<leader>zy', '<Nop>')
    vim.keymap.set('x', '<leader>zx', '<Nop>', { desc = 'leash spec visual' })
    local entries, counts = require('leash.catalog').entries()
    local by = index(entries)
    local lhs = vim.api.nvim_replace_termcodes('<leader>zz', true, true, true)
    local found
    for id, e in pairs(by) do
      if e.title == 'leash spec mapping' then found = { id = id, e = e } end
    end
    ok(found, 'described mapping listed')
    matches('^map:n:', found.id)
    eq('keymap', found.e.kind)
    eq('plugin', found.e.reach)
    ok(counts.keymaps >= 1, 'keymaps counted')
    for _, e in pairs(by) do
      ok(not (e.kind == 'keymap' and e.title == ''), 'no undescribed mapping')
      -- Only a normal-mode mapping can run from a plan: no other mode is listed unasked.
      ok(e.title ~= 'leash spec visual', 'a Visual-mode mapping is not listed by default')
    end
    require('leash').setup({ keymap_modes = { 'n', 'x' } })
    local visual
    for _, e in ipairs(require('leash.catalog').entries()) do
      if e.title == 'leash spec visual' then visual = e end
    end
    ok(visual and visual.id:match('^map:x:'), 'listed when keymap_modes asks for x')
    -- Listed, it still cannot run: a plan has no selection.
    local ran, why = require('leash.sources.keymaps').run(visual)
    eq(nil, ran)
    matches('only normal%-mode mappings can run from a plan %(this one is for mode x%)', why)
    require('leash').setup({})
    local _ = lhs
    vim.keymap.del('n', '<leader>zz')
    vim.keymap.del('n', '<leader>zy')
    vim.keymap.del('x', '<leader>zx')
  end)

  it('respects disabled sources', function()
    require('leash').setup({ sources = { commands = false, keymaps = false } })
    local _, counts = require('leash.catalog').entries()
    eq(0, counts.commands)
    eq(0, counts.keymaps)
    ok(counts.options > 0, 'options still on')
  end)
end)

describe('catalog cache', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset()
  end)

  it('hands the catalog to the core and reuses it', function()
    local catalog = require('leash.catalog')
    local a, err = catalog.get()
    ok(a, err)
    eq(#a.entries, a.handle:len())
    local b = catalog.get()
    ok(rawequal(a, b), 'same state table')
    ok(rawequal(a.handle, b.handle), 'same core catalog')
  end)

  it('rebuilds after a user command or a mapping is added', function()
    local catalog = require('leash.catalog')
    local a = catalog.get()
    vim.api.nvim_create_user_command('LeashSpecNew', 'echo 2', {})
    local b = catalog.get()
    ok(not rawequal(a, b), 'rebuilt after a new user command')
    ok(index(b.entries)['user:LeashSpecNew'], 'new command present')
    eq(a.handle:len() + 1, b.handle:len())
    local c = catalog.get()
    ok(rawequal(b, c), 'reused again')
    vim.keymap.set('n', '<leader>zw', '<Nop>', { desc = 'leash spec new map' })
    local d = catalog.get()
    ok(not rawequal(c, d), 'rebuilt after a new mapping')
    vim.keymap.del('n', '<leader>zw')
    vim.api.nvim_del_user_command('LeashSpecNew')
  end)

  it('caches the parsed runtime files on disk and reads them back', function()
    local catalog = require('leash.catalog')
    catalog.reset()
    local first = catalog.static()
    catalog.reset()
    local second = catalog.static()
    ok(not rawequal(first, second), 'fresh table')
    eq(#first.options, #second.options)
    eq(#first.commands, #second.commands)
    eq(index(first.options).signcolumn, index(second.options).signcolumn)
    ok(#vim.fn.glob(vim.fn.stdpath('cache') .. '/leash/runtime-*.json', false, true) >= 1, 'cache file written')
  end)
end)

describe('catalog cache files', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset()
  end)

  it('keeps the newest few runtime caches of other builds and removes the rest', function()
    local dir = vim.fn.stdpath('cache') .. '/leash'
    vim.fn.mkdir(dir, 'p')
    for _, f in ipairs(vim.fn.glob(dir .. '/runtime-*', false, true)) do
      os.remove(f)
    end
    local now = os.time()
    for i = 1, 5 do
      local key = ('%016x'):format(i)
      for _, suffix in ipairs({ '.json', '-summary.json', '-index-commands+options.bin' }) do
        local path = dir .. '/runtime-' .. key .. suffix
        vim.fn.writefile({ '{}' }, path)
        vim.uv.fs_utime(path, now - 1000 * i, now - 1000 * i)
      end
    end
    require('leash.catalog').static() -- this build's cache, written now
    local left = vim.tbl_map(function(f) return vim.fs.basename(f) end, vim.fn.glob(dir .. '/runtime-*', false, true))
    table.sort(left)
    eq(8, #left, vim.inspect(left))
    for i = 1, 2 do
      ok(vim.tbl_contains(left, ('runtime-%016x.json'):format(i)), 'kept: the newest other builds')
      ok(vim.tbl_contains(left, ('runtime-%016x-summary.json'):format(i)), 'with their summary')
      ok(vim.tbl_contains(left, ('runtime-%016x-index-commands+options.bin'):format(i)), 'and index')
    end
    for i = 3, 5 do
      for _, f in ipairs(left) do
        ok(not f:find(('runtime-%016x'):format(i), 1, true), 'removed: older ones, all their files: ' .. f)
      end
    end
  end)

  it("keeps the ranker's index of the runtime entries beside their cache for the next session", function()
    local dir = vim.fn.stdpath('cache') .. '/leash'
    for _, f in ipairs(vim.fn.glob(dir .. '/runtime-*-index-*', false, true)) do
      os.remove(f)
    end
    -- A session of its own (this one may have read the runtime entries without a cache),
    -- ranking: it writes the index; a second reads it, ranking the same.
    -- Each session also maps keys, the same ones, in the order LEASH_SPEC_ORDER says.
    local script = vim.fn.tempname() .. '.lua'
    vim.fn.writefile({
      'vim.opt.rtp:prepend(' .. vim.inspect(root) .. ')',
      'local keys = {}',
      'for i = 1, 40 do keys[i] = "<leader>k" .. string.char(96 + (i % 26) + 1) .. i end',
      'if vim.env.LEASH_SPEC_ORDER == "reversed" then keys = vim.fn.reverse(keys) end',
      'for _, k in ipairs(keys) do vim.keymap.set("n", k, "<Nop>", { desc = "spec mapping " .. k }) end',
      'local hits = assert(require("leash").rank("turn off line numbers and show invisible characters"))',
      'io.stdout:write(vim.json.encode(vim.tbl_map(function(h) return h.id .. " " .. h.score end, hits)))',
    }, script)
    local function session(order)
      local r = vim
        .system({ vim.v.progpath, '--headless', '--clean', '-l', script }, { text = true, env = { LEASH_SPEC_ORDER = order } })
        :wait(60000)
      eq(0, r.code, r.stderr)
      return vim.json.decode(r.stdout)
    end
    local first = session('defined')
    local files = vim.fn.glob(dir .. '/runtime-*-index-commands+options.bin', false, true)
    eq(1, #files, vim.inspect(files))
    local written = table.concat(vim.fn.readfile(files[1], 'b'), '\n')
    local stamp = vim.uv.fs_stat(files[1]).mtime
    -- The first catalog's own entries (the mappings and the rest) are kept beside it.
    local own = files[1]:gsub('%.bin$', '.own.bin')
    local own_stamp = assert(vim.uv.fs_stat(own), 'the own entries’ part is kept').mtime
    eq(first, session('reversed'))
    eq(stamp, vim.uv.fs_stat(files[1]).mtime, 'read, not written again')
    eq(own_stamp, vim.uv.fs_stat(own).mtime, 'the same entries, whatever order they were mapped in: read')
    -- A damaged index is read again from the entries and written anew.
    vim.fn.writefile({ 'not an index' }, files[1], 'b')
    eq(first, session())
    eq(written, table.concat(vim.fn.readfile(files[1], 'b'), '\n'))
    ok(#first > 10, vim.inspect(first))
    ok(first[1]:find('^number ') or first[1]:find('^list '), vim.inspect(first))
  end)
end)

describe('catalog export', function()
  before_each(function()
    fresh()
    require('leash.catalog').reset()
  end)

  it('writes the catalog file format', function()
    local path = vim.fn.tempname() .. '.json'
    vim.cmd('Leash catalog ' .. vim.fn.fnameescape(path))
    local data = vim.json.decode(table.concat(vim.fn.readfile(path), '\n'))
    eq(1, data.version)
    eq('neovim', data.editor)
    local by = index(data.entries)
    eq('boolean', by.wrap.type)
    eq('optional', by['cmd:vsplit'].args)
    -- The names Neovim reads through autocommands go with it (gzip.vim's *.gz, *.lz4).
    local patterns = {}
    for _, h in ipairs(data.name_handlers or {}) do
      patterns[h.pattern] = h.group
    end
    eq('gzip', patterns['*.gz'])
    eq('gzip', patterns['*.lz4'])
  end)

  it('says why a catalog file cannot be written before the path', function()
    local path = vim.fn.tempname() .. '/no/such/folder/catalog.json'
    local okw, msg = require('leash.catalog').export(path)
    eq(false, okw)
    eq('leash: cannot write the catalog (No such file or directory): ' .. path, msg)
  end)

  it('loads back through the CLI --catalog', function()
    local path = vim.fn.tempname() .. '.json'
    ok(require('leash.catalog').export(path))
    -- scripts/test lua builds a dev CLI and names it; the whole run builds the release one.
    local cli = os.getenv('LEASH_TEST_CLI')
      or (root .. '/target/release/leash' .. (jit.os == 'Windows' and '.exe' or ''))
    ok(vim.fn.executable(cli) == 1, 'CLI not built: ' .. cli .. ' (run cargo build --release)')
    local res = vim.system({ cli, 'rank', '--catalog', path, '--limit', '5', 'wrap' }, { text = true }):wait()
    eq(0, res.code, 'leash rank exit code; stderr: ' .. (res.stderr or ''))
    local hits = vim.json.decode(res.stdout)
    eq('wrap', hits[1].id)
  end)
end)

describe('catalog entries by id', function()
  it('maps each entry with a string id, and nothing for no snapshot', function()
    local catalog = require('leash.catalog')
    local a, b = { id = 'cmd:sort', title = 'sort' }, { id = 'wrap', title = 'wrap' }
    local map = catalog.by_id({ a, 'junk', { id = 7 }, b })
    eq(a, map['cmd:sort'])
    eq(b, map.wrap)
    eq(2, vim.tbl_count(map))
    eq({}, catalog.by_id(nil))
  end)
end)
