-- Mappings and user commands as plugin code (design rule 3): shown as `[plugin] NAME: …`
-- with the plugin found from the code's file, counted apart in the window's first line,
-- pinned (a shadowing buffer-local command does not run), lazy.nvim stand-ins named after
-- the plugin they load and still the same entry once it is loaded, which-key's triggers
-- left out.

local root = vim.fn.getcwd()
local tmp = vim.fn.tempname() .. '-plugins'
vim.fn.mkdir(tmp, 'p')

local helpers = dofile(root .. '/tests/nvim/helpers.lua')
local write, index = helpers.write, helpers.index

--- Validate `steps` against the catalog as it is now; run them from that snapshot.
local function plan_and_run(steps, before_run)
  require('leash.catalog').invalidate()
  local state = assert(require('leash.catalog').get())
  local native = assert(require('leash.native').load())
  local plan = native.validate(state.handle, vim.json.encode({ reply = '', steps = steps }))
  eq(0, #plan.dropped, vim.inspect(plan.dropped))
  if before_run then before_run() end
  local okr, err = require('leash.execute').run(plan, { entries = state.entries })
  return okr, err, plan
end

--- Where the shared tools are (../shared/tools from the repository root), or nil.
local function tools() return vim.uv.fs_stat(root .. '/../shared/tools') and (root .. '/../shared/tools') or nil end

local function unpack(tarball, into)
  vim.fn.mkdir(into, 'p')
  local r = vim.system({ 'tar', '-xJf', tarball, '-C', into }):wait()
  eq(0, r.code, r.stderr)
end

describe('where plugin code comes from', function()
  before_each(function() fresh() end)

  it('names the plugin of a file, your config and Neovim', function()
    local origin = require('leash.sources.shared.origin')
    eq('gitsigns.nvim', origin.of_path('/home/u/.local/share/nvim/lazy/gitsigns.nvim/lua/gitsigns/actions.lua'))
    eq('vim-fugitive', origin.of_path('/p/pack/x/start/vim-fugitive/plugin/fugitive.vim'))
    eq('your config', origin.of_path(vim.fn.stdpath('config') .. '/lua/keys.lua'))
    eq('Neovim', origin.of_path(vim.env.VIMRUNTIME .. '/lua/vim/lsp.lua'))
    eq(nil, origin.of_path('/tmp/loose.lua'))
  end)

  it('shows a mapping as [plugin] NAME: its description, counted apart', function()
    local file = tmp .. '/lazy/foo.nvim/lua/foo/init.lua'
    write(file, {
      'vim.keymap.set("n", "<leader>fq", function() vim.g.foo_ran = true end, { desc = "Foo quick thing" })',
    })
    dofile(file)
    local e = index((require('leash.catalog').entries()))
    local id
    for k, v in pairs(e) do
      if v.title == 'Foo quick thing' then id = k end
    end
    ok(id, 'the mapping is in the catalog')
    eq('plugin', e[id].reach)
    eq('foo.nvim', e[id].plugin)
    local okr, err, plan = plan_and_run({ { type = 'item', id = id } })
    eq(true, okr, err)
    eq(true, vim.g.foo_ran)
    eq('plugin', plan.steps[1].reach)
    eq('required', plan.confirm)
    local c = require('leash.ui.confirm')
    local rows = c.render(plan)
    local text = {}
    for _, r in ipairs(rows) do
      local line = {}
      for _, chunk in ipairs(r) do
        line[#line + 1] = chunk[1]
      end
      text[#text + 1] = table.concat(line)
    end
    text = table.concat(text, '\n')
    matches('1 step: 1 runs plugin code%.', text)
    matches('1%. %[plugin%] foo%.nvim: Foo quick thing', text)
    eq(true, c.marked(plan))
  end)

  it("credits a Lua command to the plugin whose setup() defined it, even when the user's config called it", function()
    local plugin = tmp .. '/lazy/bar.nvim/lua/bar/init.lua'
    write(plugin, {
      'return { setup = function()',
      '  vim.api.nvim_create_user_command("BarSync", function() vim.g.bar_ran = true end, { desc = "Sync bar" })',
      'end }',
    })
    -- The user's own command, defined by a callback in their config, stays theirs.
    local config = vim.fn.stdpath('config') .. '/lua/leash_test_setup.lua'
    write(config, {
      ('dofile(%q).setup()'):format(plugin),
      'vim.api.nvim_create_user_command("MyNotes", function() end, { desc = "Open my notes" })',
    })
    -- As at startup: with 'verbose' off (`-l` turns it on) Neovim does not track Lua
    -- definitions to their file.
    local verbose = vim.o.verbose
    vim.o.verbose = 0
    vim.cmd.source(config)
    vim.o.verbose = verbose
    local def = vim.api.nvim_get_commands({}).BarSync
    -- What Neovim records: the config file that was running, not the plugin.
    eq(config, vim.fn.getscriptinfo({ sid = def.script_id })[1].name)
    local e = index((require('leash.catalog').entries()))
    eq('bar.nvim', e['user:BarSync'].plugin)
    eq('your config', e['user:MyNotes'].plugin)
    local okr, err, plan = plan_and_run({ { type = 'item', id = 'user:BarSync' } })
    eq(true, okr, err)
    eq(true, vim.g.bar_ran)
    local text = {}
    for _, r in ipairs(require('leash.ui.confirm').render(plan)) do
      local line = {}
      for _, chunk in ipairs(r) do
        line[#line + 1] = chunk[1]
      end
      text[#text + 1] = table.concat(line)
    end
    matches('1%. %[plugin%] bar%.nvim: Run :BarSync', table.concat(text, '\n'))
  end)

  it('leaves which-key’s trigger mappings out', function()
    local file = tmp .. '/lazy/which-key.nvim/lua/which-key/triggers.lua'
    write(file, { 'vim.keymap.set("n", "<leader>", function() end, { desc = "which-key-trigger" })' })
    dofile(file)
    vim.keymap.set('n', 'gX', function() end, { desc = 'which-key-trigger' })
    for _, e in ipairs((require('leash.catalog').entries())) do
      ok(not (e.kind == 'keymap' and e.title:find('which%-key%-trigger')), e.id)
    end
  end)
end)

describe('user commands are pinned', function()
  before_each(function() fresh() end)

  it('a buffer-local command that shadows the one the plan showed does not run', function()
    vim.api.nvim_create_user_command('LeashNote', function() vim.g.note = 'global' end, { desc = 'take a note' })
    local okr, err = plan_and_run({ { type = 'item', id = 'user:LeashNote' } }, function()
      vim.api.nvim_buf_create_user_command(0, 'LeashNote', function() vim.g.note = 'shadow' end, { desc = 'other' })
    end)
    eq(false, okr)
    matches('is not the command the plan showed', err)
    eq(nil, vim.g.note)
    vim.api.nvim_buf_del_user_command(0, 'LeashNote')
    okr, err = plan_and_run({ { type = 'item', id = 'user:LeashNote' } })
    eq(true, okr, err)
    eq('global', vim.g.note)
  end)

  it('a Lua command redefined with the same description does not run in its place', function()
    -- nvim_get_commands() shows any two Lua callbacks with one description alike.
    vim.api.nvim_create_user_command('LeashTidy', function() vim.g.tidy = 'first' end, { desc = 'tidy up' })
    local okr, err = plan_and_run({ { type = 'item', id = 'user:LeashTidy' } }, function()
      vim.api.nvim_create_user_command('LeashTidy', function() vim.g.tidy = 'second' end, { desc = 'tidy up' })
    end)
    eq(false, okr)
    matches('is not the command the plan showed', err)
    eq(nil, vim.g.tidy)
    -- Shown as it is now, it runs.
    okr, err = plan_and_run({ { type = 'item', id = 'user:LeashTidy' } })
    eq(true, okr, err)
    eq('second', vim.g.tidy)
  end)

  it('a buffer-local command of another buffer does not run in its place', function()
    -- The same buffer-local :LeashTidy (same callback, same description) in two
    -- buffers: the catalog described the first one's; step 1 switches to the second.
    local function tidy() vim.g.tidy_buf = vim.api.nvim_get_current_buf() end
    local first = vim.api.nvim_get_current_buf()
    local second = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_buf_set_name(second, vim.fn.tempname() .. '-second.txt')
    for _, b in ipairs({ first, second }) do
      vim.api.nvim_buf_create_user_command(b, 'LeashTidy', tidy, { desc = 'tidy this buffer' })
    end
    local okr, err = plan_and_run({
      { type = 'item', id = 'cmd:buffer', args = tostring(second) },
      { type = 'item', id = 'user:LeashTidy' },
    })
    eq(false, okr)
    matches('step 2 .*is not the command the plan showed', err)
    eq(nil, vim.g.tidy_buf)
    vim.api.nvim_set_current_buf(first)
    okr, err = plan_and_run({ { type = 'item', id = 'user:LeashTidy' } })
    eq(true, okr, err)
    eq(first, vim.g.tidy_buf)
    vim.api.nvim_buf_del_user_command(first, 'LeashTidy')
    vim.api.nvim_buf_delete(second, { force = true })
  end)
end)

describe('lazy.nvim stand-ins', function()
  it('two mappings of one lazy-loaded plugin both run; the window says it loads the plugin', function()
    local t = tools()
    if not t then return skip('../shared/tools (lazy.nvim) is not there') end
    unpack(t .. '/lazy.nvim-11.17.5.tar.xz', tmp .. '/managers')
    local lazy_dir = vim.fn.glob(tmp .. '/managers/lazy.nvim*', false, true)[1]
    ok(lazy_dir, 'lazy.nvim unpacked')
    local plug = tmp .. '/plugs/foo.nvim'
    write(plug .. '/lua/foo/init.lua', {
      'local M = {}',
      'function M.a() vim.g.foo_a = (vim.g.foo_a or 0) + 1 end',
      'function M.b() vim.g.foo_b = (vim.g.foo_b or 0) + 1 end',
      'return M',
    })
    -- Its help documents one command; the other gets what the plugin says it is.
    write(plug .. '/doc/foo.txt', {
      '*foo.txt*  Frobnicate widgets quickly',
      '',
      '==============================================================================',
      'INTRODUCTION                                                      *foo.nvim*',
      '',
      'Foo.nvim rearranges the widgets of a buffer',
      'into a tidy column.',
      '',
      '                                                            *:FooCmd*',
      ':FooCmd                 Polish every gadget in the current window.',
      '',
    })
    -- (a help file sorted before it does not stand for the plugin)
    write(plug .. '/doc/changelog.txt', { '*changelog.txt*  Old news', '', 'Version 2 broke everything.' })
    local fmt_plug = tmp .. '/plugs/fmt.nvim'
    write(fmt_plug .. '/lua/fmt/init.lua', { 'return {}' })
    vim.opt.rtp:prepend(lazy_dir)
    require('lazy').setup({
      {
        dir = plug,
        name = 'foo.nvim',
        keys = {
          { '<leader>fa', function() require('foo').a() end, desc = 'Foo first action' },
          { '<leader>fb', function() require('foo').b() end, desc = 'Foo second action' },
        },
        cmd = { 'FooCmd', 'FooOther' },
        config = function()
          vim.api.nvim_create_user_command('FooCmd', function() vim.g.foo_cmd = true end, {})
        end,
      },
      {
        dir = fmt_plug,
        name = 'fmt.nvim',
        cmd = { 'Fmt' },
        config = function()
          vim.api.nvim_create_user_command('Fmt', function() vim.g.fmt = 'fmt.nvim' end, { desc = 'format' })
        end,
      },
    }, {
      root = tmp .. '/lazy-root',
      lockfile = tmp .. '/lazy-lock.json',
      install = { missing = false },
      checker = { enabled = false },
      change_detection = { enabled = false },
      rocks = { enabled = false },
      performance = { rtp = { reset = false }, reset_packpath = false },
    })
    local by = index((require('leash.catalog').entries()))
    local a, b
    for id, e in pairs(by) do
      if e.title == 'Foo first action' then a = id end
      if e.title == 'Foo second action' then b = id end
    end
    ok(a and b, 'both stand-ins in the catalog')
    eq('foo.nvim', by[a].plugin)
    eq(true, by[a].loads)
    eq(true, by['user:FooCmd'].loads)
    matches('FooCmd command of foo%.nvim', by['user:FooCmd'].title)
    eq('Polish every gadget in the current window.', by['user:FooCmd'].description)
    eq(
      'Frobnicate widgets quickly Foo.nvim rearranges the widgets of a buffer into a tidy column.',
      by['user:FooOther'].description
    )
    -- and the ranker finds the stand-in by it
    local top = vim.tbl_map(
      function(h) return h.id end,
      assert(require('leash').rank('polish the gadgets', { limit = 5 }))
    )
    ok(vim.tbl_contains(top, 'user:FooCmd'), vim.inspect(top))
    -- The stand-in :FooCmd: leash loads foo.nvim, and the :FooCmd that loading defined
    -- runs; the plugin's mappings then run as the plugin's.
    local okr, err, plan =
      plan_and_run({ { type = 'item', id = 'user:FooCmd' }, { type = 'item', id = a }, { type = 'item', id = b } })
    eq('foo.nvim: Run :FooCmd (loads foo.nvim)', plan.steps[1].label)
    eq('foo.nvim: Foo first action (loads foo.nvim)', plan.steps[2].label)
    eq(true, okr, err)
    eq(true, vim.g.foo_cmd)
    eq(1, vim.g.foo_a)
    eq(1, vim.g.foo_b)
    -- A stand-in whose name another plugin took: fmt.nvim gets loaded, then another
    -- plugin defines its own :Fmt with the same description. That one does not run.
    okr, err = plan_and_run({ { type = 'item', id = 'user:Fmt' } }, function()
      require('lazy').load({ plugins = { 'fmt.nvim' } })
      vim.api.nvim_create_user_command('Fmt', function() vim.g.fmt = 'other' end, { desc = 'format' })
    end)
    eq(false, okr)
    matches('is not the command the plan showed', err)
    eq(nil, vim.g.fmt)
  end)
end)
