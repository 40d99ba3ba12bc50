-- plugin/leash.lua, :Leash subcommands and :Do before the planner lands.

local capture_notify = dofile(root .. '/tests/nvim/helpers.lua').capture_notify

describe('plugin/leash.lua', function()
  before_each(function()
    fresh()
    require('leash.native').reset()
    require('leash.catalog').reset()
  end)

  it('defines :Do and :Leash', function()
    local cmds = vim.api.nvim_get_commands({})
    ok(cmds.Do, ':Do')
    ok(cmds.Leash, ':Leash')
    eq('*', cmds.Do.nargs)
  end)

  it('completes :Leash subcommands', function()
    eq(
      { 'again', 'build', 'cancel', 'catalog', 'last', 'log', 'rank', 'show', 'undo' },
      vim.fn.getcompletion('Leash ', 'cmdline')
    )
    eq({ 'cancel', 'catalog' }, vim.fn.getcompletion('Leash ca', 'cmdline'))
    eq({ 'rank' }, vim.fn.getcompletion('Leash ra', 'cmdline'))
  end)

  it(':Leash rank lists guifont and wrap for a font and wrap request', function()
    vim.o.modeline = true -- on by default except for root
    vim.cmd('Leash rank make the font bigger and turn on word wrap')
    local buf = vim.api.nvim_get_current_buf()
    matches('leash://rank$', vim.api.nvim_buf_get_name(buf))
    eq(false, vim.bo[buf].modeline)
    local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
    matches('%s guifont%s', text)
    matches('%s wrap%s', text)
    vim.cmd('close')
  end)

  it(':Do plans offline and opens the plan window', function()
    vim.o.wrap = false -- a plan that changes nothing opens no window
    vim.cmd('Do turn on word wrap')
    vim.wait(3000, function() return vim.fn.win_gettype() == 'popup' end, 5)
    eq('popup', vim.fn.win_gettype())
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    matches('Set wrap', text)
    vim.api.nvim_feedkeys('q', 'x', false)
    vim.wait(1000, function() return vim.fn.win_gettype() ~= 'popup' end, 5)
  end)

  it('log and cancel answer when there is nothing to show or cancel', function()
    local expected = { log = 'no log yet', cancel = 'nothing to cancel' }
    os.remove(require('leash.log').path())
    for _, sub in ipairs({ 'log', 'cancel' }) do
      local seen, restore = capture_notify()
      vim.cmd('Leash ' .. sub)
      restore()
      matches(expected[sub], seen[1] and seen[1].msg, sub)
    end
  end)

  it(':Leash log applies no modeline from a logged answer', function()
    local log = require('leash.log')
    os.remove(log.path())
    log.append(vim.json.encode({
      time_ms = 0,
      request = 'vim: set ts=3 ch=7 :',
      provider = 'spec',
      raw = '/* vim: set isprint=1-255 ts=5: */',
      exchanges = { { round = 1, raw = '/* vim: set isprint=1-255 ts=5: */' } },
    }))
    vim.o.modeline = true -- on by default except for root
    local ts, ch, isprint = vim.o.tabstop, vim.o.cmdheight, vim.o.isprint
    vim.cmd('Leash log')
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    matches('vim: set ts=3 ch=7 :', text)
    eq(ts, vim.bo.tabstop)
    eq(ts, vim.o.tabstop)
    eq(ch, vim.o.cmdheight)
    eq(isprint, vim.o.isprint)
    eq(false, vim.bo.modeline)
    -- Opening it again (the buffer reused) applies none either, nor does the raw answer.
    vim.cmd('close')
    vim.cmd('Leash log')
    eq(ts, vim.bo.tabstop)
    eq(ch, vim.o.cmdheight)
    vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'x', false)
    matches('isprint=1%-255', table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n'))
    eq(isprint, vim.o.isprint)
    eq(ts, vim.bo.tabstop)
    eq(false, vim.bo.modeline)
    vim.cmd('close')
  end)

  it('other modules can plug a subcommand in', function()
    local called
    require('leash').commands.log = { desc = 'x', run = function(args) called = args end }
    vim.cmd('Leash log today')
    eq({ 'today' }, called)
  end)

  it(':Do <Tab> completes from earlier requests, newest first', function()
    os.remove(require('leash.history').path())
    local leash = require('leash')
    local saved = leash.plan
    leash.plan = function() end -- no planning here: only the history matters
    vim.cmd('Do turn on word wrap')
    vim.cmd('Do show line numbers')
    vim.cmd('Do turn on spell checking')
    leash.plan = saved
    eq({ 'turn on spell checking', 'show line numbers', 'turn on word wrap' }, vim.fn.getcompletion('Do ', 'cmdline'))
    -- The word under the cursor is completed to the end of the request.
    eq({ 'on spell checking', 'on word wrap' }, vim.fn.getcompletion('Do turn on', 'cmdline'))
    eq({ 'spell checking' }, vim.fn.getcompletion('Do turn on s', 'cmdline'))
    eq({}, vim.fn.getcompletion('Do zq', 'cmdline'))
    -- No earlier request fits: a word of two letters or more completes to catalog names.
    local names = vim.fn.getcompletion('Do set wr', 'cmdline')
    ok(vim.tbl_contains(names, 'wrap') and vim.tbl_contains(names, 'wrapscan'), vim.inspect(names))
    eq({ 'vsplit' }, vim.fn.getcompletion('Do vspl', 'cmdline'))
  end)

  it(':Leash alone lists the subcommands, with no error', function()
    local notes = {}
    local saved = vim.notify
    vim.notify = function(msg, level) notes[#notes + 1] = { msg, level } end
    local okc, err = pcall(vim.cmd, 'Leash')
    vim.notify = saved
    ok(okc, err)
    -- A notifier (vim.notify replaced) gets the names in one sentence: its narrow, short
    -- window would cut the listing of every subcommand with its line.
    local subs = { 'again', 'build', 'cancel', 'catalog', 'last', 'log', 'rank', 'show', 'undo' }
    eq(
      'leash: :Leash {subcommand}, one of: ' .. table.concat(subs, ', ') .. ' (:help :Leash says what each does)',
      notes[1][1]
    )
    ok(notes[1][2] == nil or notes[1][2] < vim.log.levels.WARN, 'not an error')
    -- The message area shows the listing whole (as :messages does).
    local listing = require('leash').usage()
    matches('^leash: :Leash {subcommand}, one of:', listing)
    for _, sub in ipairs(subs) do
      matches('\n  ' .. sub .. ' +%S', listing)
    end
  end)

  it('rejects an unknown subcommand', function()
    local seen, restore = capture_notify()
    vim.cmd('Leash frobnicate')
    vim.wait(1000, function() return #seen > 0 end)
    restore()
    matches('unknown subcommand "frobnicate"', seen[1].msg)
    eq(vim.log.levels.ERROR, seen[1].level)
    -- Cut to one line of the message area, it still says where the subcommands are listed.
    matches(
      '^leash: unknown subcommand "frobnicate"; :Leash lists them: ',
      require('leash.ui.notify').one_line(seen[1].msg)
    )
  end)

  it(':Leash catalog without a path shows counts per source', function()
    local seen, restore = capture_notify()
    vim.cmd('Leash catalog')
    restore()
    matches('options%s+%d+', seen[1].msg)
    matches('commands%s+%d+', seen[1].msg)
    matches('total%s+%d+', seen[1].msg)
  end)

  it(':checkhealth leash runs', function()
    vim.cmd('silent checkhealth leash')
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    matches('leash_native', text)
    matches('version 0%.1%.0', text)
    matches("'shell' is .*refuse%-shell %(it runs nothing%)", text)
    ok(not text:find('ERROR'), 'no errors in health:\n' .. text)
  end)

  it(':checkhealth leash says whether the key is set, never the key', function()
    vim.env.LEASH_HEALTH_KEY = 'sk-health-secret-42'
    require('leash').setup({
      provider = 'claude',
      providers = { claude = { kind = 'anthropic', api_key_env = 'LEASH_HEALTH_KEY' } },
    })
    vim.cmd('silent checkhealth leash')
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    matches('provider claude %(anthropic', text)
    matches('%$LEASH_HEALTH_KEY is set', text)
    ok(not text:find('sk-health-secret', 1, true), 'the key is never shown')
    vim.env.LEASH_HEALTH_KEY = nil
    vim.cmd('silent checkhealth leash')
    text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    matches('%$LEASH_HEALTH_KEY is not set', text)
    require('leash').setup({})
  end)

  it(":checkhealth leash asks for a key only where a request sends one (the core's rule)", function()
    vim.env.OPENAI_API_KEY = nil
    -- A local server speaking OpenAI's dialect gets no default key: nothing to warn about.
    require('leash').setup({
      provider = 'local',
      providers = { ['local'] = { kind = 'openai', url = 'http://127.0.0.1:18080/v1', model = 'm' } },
    })
    vim.cmd('silent checkhealth leash')
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    matches('provider local %(openai', text)
    matches('no key is sent to this server', text)
    ok(not text:find('OPENAI_API_KEY', 1, true), 'no default key asked of a local server:\n' .. text)
    -- OpenAI's own service needs its key.
    require('leash').setup({ provider = 'openai' })
    vim.cmd('silent checkhealth leash')
    text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    matches('provider openai %(openai', text)
    matches('WARNING %$OPENAI_API_KEY is not set', text)
    require('leash').setup({})
  end)

  it(':checkhealth leash asks the server whether it answers, within its deadline and without the key', function()
    local servers = dofile(root .. '/tests/nvim/model_server.lua')
    local health = require('leash.health')
    health.endpoint_deadline_s = 1
    local function check()
      local t0 = vim.uv.hrtime()
      vim.cmd('silent checkhealth leash')
      local ms = (vim.uv.hrtime() - t0) / 1e6
      return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n'), ms
    end
    -- A server that answers: any status is an answer; the key configured is not sent.
    local up = servers.server({ reply = 'ok', steps = {} }, 0)
    servers.use(up.port, 'openai')
    local text = check()
    matches(('http://127%%.0%%.0%%.1:%d/v1 answers %%(HTTP %%d+'):format(up.port), text)
    eq(1, #up.requests)
    ok(not up.requests[1].head:find('sk-spec-secret', 1, true), 'no key in ' .. up.requests[1].head)
    ok(not up.requests[1].head:lower():find('authorization', 1, true), up.requests[1].head)
    -- A server that takes the connection and never answers: the wait ends at the deadline.
    local stuck = servers.server({ reply = 'ok', steps = {} }, 60000)
    servers.use(stuck.port, 'openai')
    local slow, ms = check()
    matches(('WARNING http://127%%.0%%.0%%.1:%d/v1 does not answer'):format(stuck.port), slow)
    ok(ms < 2500, ('checkhealth waited %d ms for a 1 s deadline'):format(ms))
    -- Nothing listens: said as such.
    local dead = vim.uv.new_tcp()
    dead:bind('127.0.0.1', 0)
    local port = dead:getsockname().port
    dead:close()
    servers.use(port, 'ollama')
    matches(('WARNING http://127%%.0%%.0%%.1:%d/ does not answer: .*[Cc]onnect'):format(port), (check()))
    up.stop()
    stuck.stop()
    health.endpoint_deadline_s = 2
    require('leash').setup({})
  end)
end)
