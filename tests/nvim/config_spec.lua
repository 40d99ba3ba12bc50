-- setup() validation.

local capture_notify = dofile(root .. '/tests/nvim/helpers.lua').capture_notify

describe('config', function()
  before_each(function() fresh() end)

  it('works without setup()', function()
    local cfg = require('leash.config').get()
    eq(nil, cfg.shortlist_limit, 'nil: the core decides (native default_shortlist_limit)')
    eq(true, cfg.confirm_before_run)
    eq(nil, cfg.provider)
  end)

  it('merges valid options', function()
    require('leash').setup({ shortlist_limit = 20, sources = { keymaps = false } })
    local cfg = require('leash.config').get()
    eq(20, cfg.shortlist_limit)
    eq(false, cfg.sources.keymaps)
    eq(true, cfg.sources.options)
  end)

  it('setup() never raises: one notification names every error, nothing applies, nothing is planned', function()
    require('leash').setup({ shortlist_limit = 20 })
    local seen, restore = capture_notify()
    local okc, err = pcall(require('leash').setup, { shortlist_limt = 10, timeout_ms = 5, provider = 'ollama' })
    restore()
    ok(okc, err)
    eq(1, #seen, vim.inspect(seen))
    eq(vim.log.levels.ERROR, seen[1].level)
    matches("^leash: config: shortlist_limt: unknown option %(did you mean 'shortlist_limit'%?%)", seen[1].msg)
    matches('timeout_ms: should be an integer from 1000 to 600000, not 5', seen[1].msg)
    local cfg = require('leash.config').get()
    eq(20, cfg.shortlist_limit, 'the earlier config stays')
    eq(nil, cfg.provider, 'nothing of the bad config applies')
    -- :Do does not plan with what was there before as if nothing had happened.
    local started, perr = require('leash.planner').start('turn on word wrap', function() end)
    eq(false, started)
    matches('^leash: config: shortlist_limt', perr)
    -- A valid config afterwards plans again.
    require('leash').setup({})
    eq(nil, require('leash.config').failed())
  end)

  it('setup() from init.lua with a typo lets the rest of init.lua run', function()
    local init = vim.fn.tempname() .. '.lua'
    local out = vim.fn.tempname()
    vim.fn.writefile({
      ('vim.opt.rtp:prepend(%q)'):format(root),
      "require('leash').setup({ shortlist_limt = 10 })",
      ('vim.fn.writefile({ "after setup" }, %q)'):format(out),
    }, init)
    local r = vim
      .system({ vim.v.progpath, '--headless', '-u', init, '-i', 'NONE', '+qa!' }, { text = true })
      :wait(30000)
    eq(0, r.code, r.stderr)
    eq({ 'after setup' }, vim.fn.readfile(out))
    ok(not r.stderr:find('E5113') and not r.stderr:find('stack traceback'), r.stderr)
    os.remove(init)
    os.remove(out)
  end)

  it('names an unknown key and suggests the closest', function()
    local err = raises(require('leash.config').setup, { shortlist_limt = 10 })
    eq("leash: config: shortlist_limt: unknown option (did you mean 'shortlist_limit'?)", err)
  end)

  it('names unknown nested keys by dotted path', function()
    local err = raises(require('leash.config').setup, { sources = { keymap = false } })
    eq("leash: config: sources.keymap: unknown option (did you mean 'sources.keymaps'?)", err)
  end)

  it('names the wrong type', function()
    eq(
      'leash: config: confirm_before_run: should be a boolean, not string',
      raises(require('leash.config').setup, {
        confirm_before_run = 'no',
      })
    )
    matches(
      'shortlist_limit: should be an integer from 1 to 500, not 0',
      raises(require('leash.config').setup, {
        shortlist_limit = 0,
      })
    )
    matches('sources: should be a table, not boolean', raises(require('leash.config').setup, { sources = true }))
    matches(
      'entries%[2%]: needs a title',
      raises(require('leash.config').setup, { entries = { { id = 'a', title = 'a', cmd = { 'x' } }, { id = 'b' } } })
    )
  end)

  it('checks providers and that the chosen one exists', function()
    matches(
      "providers.x.kind: should be one of 'anthropic', 'openai', 'ollama'",
      raises(require('leash.config').setup, {
        providers = { x = { kind = 'gpt' } },
      })
    )
    require('leash').setup({ provider = 'local', providers = { ['local'] = { kind = 'ollama', model = 'm' } } })
    eq('local', require('leash.config').get().provider)
    require('leash').setup({ provider = 'ollama' })
    eq('ollama', require('leash.config').get().provider, 'a built-in kind needs no providers entry')
  end)

  it('an undefined provider lists the built-in kinds and what is defined', function()
    eq(
      "leash: config: provider: 'nope' is neither a built-in kind (anthropic, openai, ollama, offline)"
        .. ' nor defined in providers (none defined)',
      raises(require('leash.config').setup, { provider = 'nope' })
    )
    eq(
      "leash: config: provider: 'antropic' is neither a built-in kind (anthropic, openai, ollama, offline)"
        .. " nor defined in providers (defined: groq, work) (did you mean 'anthropic'?)",
      raises(require('leash.config').setup, {
        provider = 'antropic',
        providers = { work = { kind = 'openai' }, groq = { kind = 'openai' } },
      })
    )
    matches(
      "^leash: config: providers.mine.kind: needed, since 'mine' is not a built%-in kind %(anthropic, openai, ollama, offline%)$",
      raises(require('leash.config').setup, { provider = 'mine', providers = { mine = { model = 'm' } } })
    )
  end)

  it('reports every error at once, by name, in one message without a position', function()
    local err = raises(require('leash.config').setup, {
      provider = 'mine',
      providers = { mine = { kind = 'gpt', timeout_ms = 2.5 } },
      timeout_ms = 5,
      sources = { gti = false },
    })
    eq(
      table.concat({
        "leash: config: providers.mine.kind: should be one of 'anthropic', 'openai', 'ollama', 'offline', not \"gpt\"",
        'providers.mine.timeout_ms: should be an integer from 1 to 600000, not 2.5',
        "sources.gti: unknown option (did you mean 'sources.git'?)",
        'timeout_ms: should be an integer from 1000 to 600000, not 5',
      }, '; '),
      err
    )
    ok(not err:find('config.lua', 1, true), 'no position in the message')
    eq(err, require('leash.config').message(require('leash.config').errors), 'kept for :checkhealth')
  end)

  it('applies nothing of a config with errors', function()
    require('leash').setup({ shortlist_limit = 20, provider = 'ollama' })
    raises(require('leash.config').setup, { shortlist_limit = 30, sources = { keymaps = false }, provider = 'nope' })
    local cfg = require('leash.config').get()
    eq(20, cfg.shortlist_limit, 'the earlier config stays')
    eq('ollama', cfg.provider)
    eq(true, cfg.sources.keymaps)
    require('leash').setup({})
    eq({}, require('leash.config').errors, 'a valid setup() clears the errors')
  end)

  it('an inline api_key gets where a key may come from, never its value', function()
    local err = raises(require('leash.config').setup, {
      provider = 'groq',
      providers = { groq = { kind = 'openai', api_key = 'sk-inline-secret-7' } },
    })
    ok(not err:find('sk-inline-secret', 1, true), 'the key is not repeated: ' .. err)
    eq(
      'leash: config: providers.groq.api_key: a key does not belong in the config, only where it comes from:'
        .. " api_key_env = 'NAME' (an environment variable), api_key_file = 'path' (a file holding it)"
        .. " or api_key_cmd = { 'pass', 'show', 'llm' } (a command printing it)",
      err
    )
    matches(
      '^leash: config: api_key: a key does not belong in the config, only where it comes from, in a provider %(providers%.NAME%): api_key_env',
      raises(require('leash.config').setup, { api_key = 'sk-inline-secret-7' })
    )
  end)

  it(':checkhealth leash reports the same errors', function()
    raises(require('leash.config').setup, { providers = { mine = { kind = 'gpt' } }, timeout_ms = 5 })
    vim.cmd('silent checkhealth leash')
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    matches('ERROR providers%.mine%.kind: should be one of', text)
    matches('ERROR timeout_ms: should be an integer from 1000 to 600000, not 5', text)
    matches('setup%(%) applied nothing of it', text)
    vim.cmd.bwipeout()
    require('leash').setup({})
    vim.cmd('silent checkhealth leash')
    text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    matches('OK setup%(%) accepted the config', text)
    vim.cmd.bwipeout()
  end)

  it('the core checks its keys: an empty table is an empty list, a function is named', function()
    require('leash').setup({ raise = {}, providers = {}, sources = {} })
    eq({}, require('leash.config').get().raise)
    eq(true, require('leash.config').get().sources.git, 'the core fills in the defaults')
    matches('^leash: config: log: cannot be read', raises(require('leash.config').setup, { log = function() end }))
    eq(
      "leash: config: raise[1]: reach should be 'safe', 'edit', 'write', 'code' or 'shell'",
      raises(require('leash.config').setup, { raise = { { pattern = 'x', reach = 'plugin' } } })
    )
    eq(
      "leash: config: keymap_mode: unknown option (did you mean 'keymap_modes'?)",
      raises(require('leash.config').setup, { keymap_mode = { 'n' } }),
      'a Lua-only key is a candidate too'
    )
  end)

  it('without the native library, setup() checks its own keys and the rest waits', function()
    local _, restore = without_native()
    local config = require('leash.config')
    matches('keymap_modes: should be a list', raises(require('leash.config').setup, { keymap_modes = 'n' }))
    require('leash').setup({ shortlist_limit = 0 })
    restore()
    matches('native library not found', config.unchecked)
    eq(nil, config.options.shortlist_limit, 'not applied while unchecked')
    local started, err = require('leash.planner').start('wrap', function() end)
    eq(false, started)
    matches('native library not found', err, 'nothing runs')
    require('leash.native').reset()
    eq(nil, config.get().shortlist_limit, 'checked once the library loads: nothing of it applied')
    eq({ 'shortlist_limit: should be an integer from 1 to 500, not 0' }, config.errors)
    matches('^leash: config: shortlist_limit', config.failed())
    eq(false, (require('leash.planner').start('wrap', function() end)), 'nothing is planned with it')
  end)

  it('a library that cannot check the config fails it, now or when it loads, and applies nothing', function()
    local native = require('leash.native').get()
    local check = native.check_config
    local config = require('leash.config')
    -- Too old: no check_config at all.
    native.check_config = nil
    local err = raises(require('leash.config').setup, { shortlist_limit = 5 })
    native.check_config = check
    eq('leash: config: the native library is too old to check the configuration (run :Leash build)', err)
    -- The check itself fails once the library loads after setup(): nothing is planned.
    local _, restore = without_native()
    require('leash').setup({ shortlist_limit = 5, raise = { { pattern = 'map:*', reach = 'shell' } } })
    restore()
    require('leash.native').reset()
    native = require('leash.native').get()
    native.check_config = function() error('boom') end
    local failed = config.failed()
    native.check_config = check
    matches('^leash: config: the native library could not check the configuration: .*boom', failed)
    eq(nil, config.get().raise, 'the raise rules were not dropped silently: nothing of the core part applies')
    matches('could not check', (select(2, require('leash.planner').start('wrap', function() end))))
  end)

  it('refuses an entry whose run is not a function, and applies no entry before it is checked', function()
    eq(
      'leash: config: entries[1]: run should be a function',
      raises(require('leash.config').setup, { entries = { { id = 'x', title = 'x', run = true, reach = 'safe' } } })
    )
    local _, restore = without_native()
    local config = require('leash.config')
    require('leash').setup({ entries = { { id = 'x', title = 'x', run = function() end, reach = 'safe' } } })
    restore()
    eq({}, config.options.entries, 'waiting with the core part: only the default (none)')
    require('leash.native').reset()
    eq('x', config.get().entries[1].id, 'applied once checked')
  end)

  it('|leash-config| documents every key of the schema, and nothing else', function()
    local lines = vim.fn.readfile(root .. '/doc/leash.txt')
    local documented, where = {}, nil
    local function add(key) documented[#documented + 1] = key end
    local in_block, in_sources, in_raise, table_of = false, false, false, nil
    for _, line in ipairs(lines) do
      if line:find('*leash-config*', 1, true) then in_block = true end
      if in_block and line:match('^<') then in_block = false end
      if in_block then
        local top = line:match('^      ([%a_]+) =')
        if top then
          add(top)
          in_sources, in_raise = top == 'sources', top == 'raise'
        end
        for key in line:gmatch('([%a_]+) = ') do
          if in_sources and key ~= 'sources' then add('sources.' .. key) end
          if in_raise and key ~= 'raise' then add('raise[].' .. key) end
        end
        if line:find('},', 1, true) then in_sources = false end
      end
      if line:find('Fields of a provider entry:', 1, true) then
        table_of, where = 'providers.NAME.', nil
      elseif line:find('Fields of an entry:', 1, true) then
        table_of, where = 'entries[].', nil
      elseif table_of then
        if line:match('^%S') then
          table_of = nil
        else
          local names = line:match('^  (%a[%w_, ]-)%s%s+%S')
          for name in (names or ''):gmatch('[%w_]+') do
            add(table_of .. name)
            where = true
          end
        end
      end
    end
    ok(where, 'the field tables were found')
    local schema = vim.list_extend(require('leash.native').get().config_keys(), require('leash.config').lua_keys())
    table.sort(schema)
    table.sort(documented)
    eq(schema, documented)
  end)

  it('has a `sources` switch for every source of the registry but the user’s own entries, and no other', function()
    local switches = {}
    for _, key in ipairs(require('leash.native').get().config_keys()) do
      local name = key:match('^sources%.(.+)$')
      if name then switches[#switches + 1] = name end
    end
    -- The user's entries are on when `entries` lists some: no switch of their own.
    local names = vim.tbl_filter(function(n) return n ~= 'entries' end, require('leash.sources').names)
    table.sort(switches)
    table.sort(names)
    eq(names, switches)
  end)
end)
