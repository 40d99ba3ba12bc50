-- The planner: offline plans, a real request to a local server speaking Anthropic's wire
-- format, the main loop staying responsive while it is in flight, cancellation, the log.

local uv = vim.uv

-- The local model server (Anthropic, OpenAI and Ollama wire formats) and its config.
local model = dofile('tests/nvim/model_server.lua')
local anthropic_server, use_server = model.server, model.use

local function plan_and_wait(request, timeout)
  local result
  require('leash').plan(request, function(plan, err, status) result = { plan = plan, err = err, status = status } end)
  vim.wait(timeout or 5000, function() return result ~= nil end, 5)
  return result
end

local WRAP_PLAN = {
  reply = 'Turning on word wrap.',
  steps = { { type = 'setting', key = 'wrap', value = true, why = 'wrap long lines' } },
}

describe('planner offline (no provider configured)', function()
  before_each(function()
    fresh()
    require('leash').setup({})
  end)

  it('plans wrap = true for "turn on word wrap"', function()
    local r = plan_and_wait('turn on word wrap')
    eq('done', r.status, r.err)
    eq(1, #r.plan.steps)
    eq('wrap', r.plan.steps[1].key)
    eq(true, r.plan.steps[1].value)
    eq('safe', r.plan.steps[1].reach)
  end)

  it('plans exact command names and everyday plain requests against the real catalog', function()
    local cases = {
      { 'bnext', 'cmd:bnext' },
      { 'tabnext', 'cmd:tabnext' },
      { 'cnext', 'cmd:cnext' },
      { 'split the window vertically', 'cmd:vsplit' },
      { 'go to the next buffer', 'cmd:bnext' },
      { 'sort these lines', 'cmd:sort' },
      { 'show invisible characters', 'list', true },
      { 'highlight the current line', 'cursorline', true },
      { 'disable the mouse', 'mouse', '' },
    }
    for _, c in ipairs(cases) do
      local r = plan_and_wait(c[1])
      eq('done', r.status, r.err)
      eq(1, #r.plan.steps, c[1] .. ': ' .. vim.inspect(r.plan))
      local s = r.plan.steps[1]
      eq(c[2], s.id or s.key, c[1])
      if #c == 3 then eq(c[3], s.value, c[1]) end
      -- The reply is words, not an id.
      ok(not r.plan.reply:find('^Run cmd:'), r.plan.reply)
    end
  end)

  it('explains in one sentence that "make the font bigger" needs a model', function()
    local r = plan_and_wait('make the font bigger')
    eq('done', r.status, r.err)
    eq(0, #r.plan.steps)
    matches("^offline can't plan this: :help leash%-providers", r.plan.reply)
    matches('leash%-providers', r.plan.reply)
  end)

  it(':Do turn on word wrap sets wrap after the window is accepted', function()
    vim.wo.wrap = false
    vim.cmd('Do turn on word wrap')
    vim.wait(3000, function() return vim.fn.win_gettype() == 'popup' end, 5)
    eq('popup', vim.fn.win_gettype(), 'the plan window opens')
    vim.wait(200) -- the window ignores the run key for its first moments
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
    vim.wait(1000, function() return vim.fn.win_gettype() ~= 'popup' end, 5)
    eq(true, vim.wo.wrap)
  end)
end)

--- Progress as a notifier sees it (Neovim 0.11's way; 0.12 has progress messages).
local function capture_progress()
  local notes, events = {}, {}
  local saved_notify, saved_echo = vim.notify, vim.api.nvim_echo
  vim.notify = function(msg, _, opts)
    notes[#notes + 1] = { msg = msg, opts = opts or {} }
    return { record = #notes }
  end
  vim.api.nvim_echo = function(chunks, history, opts)
    if opts and opts.kind == 'progress' then error('no progress messages here') end
    return saved_echo(chunks, history, opts)
  end
  local au = vim.api.nvim_create_autocmd('User', {
    pattern = 'LeashPlanProgress',
    callback = function(ev) events[#events + 1] = ev.data.message end,
  })
  return notes,
    events,
    function()
      vim.notify, vim.api.nvim_echo = saved_notify, saved_echo
      vim.api.nvim_del_autocmd(au)
    end
end

describe('planning progress through a notifier', function()
  it('replaces one notification (id / replace) and ends it, so none stays up beside the plan', function()
    fresh()
    require('leash').setup({})
    local notes, _, restore = capture_progress()
    local r = plan_and_wait('turn on word wrap')
    vim.wait(200)
    restore()
    eq('done', r.status, r.err)
    ok(#notes >= 2, vim.inspect(notes))
    matches('planning with offline', notes[1].msg)
    matches('planned with offline', notes[#notes].msg)
    for i, n in ipairs(notes) do
      eq('leash.progress', n.opts.id, 'notification ' .. i)
      if i > 1 then eq({ record = i - 1 }, n.opts.replace, 'replaces the one before') end
    end
    ok(notes[#notes].opts.timeout, 'the last one goes away on its own')
  end)
end)

describe('require(leash).status()', function()
  it('says what is planned while a request is in flight, nothing otherwise', function()
    fresh()
    require('leash').setup({})
    eq('', require('leash').status())
    local result
    require('leash').plan('turn on word wrap', function(plan) result = plan end)
    matches('^leash: planning with offline %d+s$', require('leash').status())
    vim.wait(5000, function() return result ~= nil end, 5)
    eq('', require('leash').status())
  end)
end)

describe('planner with a provider', function()
  local server
  before_each(function()
    fresh()
    if server then server.stop() end
    server = nil
  end)

  it('keeps the main loop responsive while the request is held open for 2 s', function()
    server = anthropic_server(WRAP_PLAN, 2000)
    use_server(server.port)
    local result
    local t0 = uv.hrtime()
    require('leash').plan(
      'turn on word wrap',
      function(plan, err, status) result = { plan = plan, err = err, status = status } end
    )
    -- Measure from the moment the request is in flight (the catalog was built above).
    local worst, ticks, last = 0, 0, uv.hrtime()
    local timer = uv.new_timer()
    timer:start(10, 10, function()
      local now = uv.hrtime()
      local late = (now - last) / 1e6 - 10
      if late > worst then worst = late end
      ticks = ticks + 1
      last = now
    end)
    vim.wait(8000, function() return result ~= nil end, 5)
    timer:stop()
    timer:close()
    local r = result
    local elapsed = (uv.hrtime() - t0) / 1e6
    io.stdout:write(('     timer: %d ticks in %.0f ms, worst lateness %.1f ms\n'):format(ticks, elapsed, worst))
    eq('done', r.status, r.err)
    eq('wrap', r.plan.steps[1].key)
    ok(elapsed >= 1900, 'the server held the request for 2 s')
    ok(ticks >= 150, ('the 10 ms timer kept firing (%d ticks)'):format(ticks))
    -- Generous bound: a shared CI machine is noisy; a blocked loop would be ~2000 ms late.
    ok(worst < 100, ('worst lateness %.1f ms'):format(worst))
    eq(1, #server.requests)
    matches('POST /v1/messages', server.requests[1].head)
    matches('anthropic%-version: 2023%-06%-01', server.requests[1].head:lower())
  end)

  it("a deadline names the option that set it: the top-level timeout_ms or the provider's", function()
    server = anthropic_server(WRAP_PLAN, 3000)
    use_server(server.port, nil, { timeout_ms = 1000 }, { timeout_ms = vim.NIL })
    local r = plan_and_wait('turn on word wrap', 5000)
    eq('error', r.status)
    matches('did not answer within 1 s %(deadline%); raise timeout_ms$', r.err)
    use_server(server.port, nil, { timeout_ms = 5000 }, { timeout_ms = 1000 })
    r = plan_and_wait('turn on word wrap', 5000)
    matches('did not answer within 1 s %(deadline%); raise providers%.spec%.timeout_ms$', r.err)
  end)

  it('a provider changed in the configuration table itself is the one the next request uses', function()
    server = anthropic_server(WRAP_PLAN, 3000)
    use_server(server.port, nil, { timeout_ms = 5000 }, { timeout_ms = vim.NIL })
    local planner = require('leash.planner')
    -- A first request makes the provider (and keeps it), then is cancelled.
    ok(planner.start('turn on word wrap', function() end))
    planner.cancel({ quiet = true })
    local cfg = require('leash.config').get()
    cfg.timeout_ms = 1000 -- in place, after setup()
    local r = plan_and_wait('turn on word wrap', 5000)
    eq('error', r.status)
    matches('did not answer within 1 s %(deadline%); raise timeout_ms$', r.err)
    cfg.providers.spec.timeout_ms = 2000
    r = plan_and_wait('turn on word wrap', 5000)
    matches('did not answer within 2 s %(deadline%); raise providers%.spec%.timeout_ms$', r.err)
  end)

  it(':Leash cancel ends the request at once and nothing runs', function()
    server = anthropic_server(WRAP_PLAN, 5000)
    use_server(server.port)
    vim.wo.wrap = false
    local events = {}
    vim.api.nvim_create_autocmd('User', {
      pattern = { 'LeashPlanStart', 'LeashPlanCancel', 'LeashPlanDone' },
      callback = function(ev) events[#events + 1] = ev.match end,
    })
    vim.cmd('Do turn on word wrap')
    vim.wait(2000, function() return #server.requests == 1 end, 5)
    eq(1, #server.requests, 'the request reached the server')
    ok(require('leash.planner').busy())
    local t0 = uv.hrtime()
    vim.cmd('Leash cancel')
    local ms = (uv.hrtime() - t0) / 1e6
    ok(not require('leash.planner').busy(), 'nothing is in flight after :Leash cancel')
    ok(ms < 100, ('cancel returned in %.1f ms'):format(ms))
    vim.wait(1000, function() return server.closed_early == 1 end, 5)
    eq(1, server.closed_early, 'the connection was dropped')
    vim.wait(200)
    eq(false, vim.wo.wrap, 'nothing ran')
    ok(vim.fn.win_gettype() ~= 'popup', 'no plan window')
    eq({ 'LeashPlanStart', 'LeashPlanCancel' }, events)
  end)

  it('logs each exchange as one JSON line, mode 0600, without the key', function()
    local log = require('leash.log').path()
    os.remove(log)
    server = anthropic_server(WRAP_PLAN, 0)
    use_server(server.port)
    local r = plan_and_wait('turn on word wrap')
    eq('done', r.status, r.err)
    local stat = uv.fs_stat(log)
    ok(stat, 'the log exists')
    eq(tonumber('600', 8), bit.band(stat.mode, tonumber('777', 8)))
    local text = table.concat(vim.fn.readfile(log), '\n')
    ok(not text:find('sk-spec-secret', 1, true), 'the key is not in the log')
    local rec = vim.json.decode(vim.fn.readfile(log)[1])
    eq('turn on word wrap', rec.request)
    eq('spec', rec.provider)
    ok(rec.raw and rec.raw:find('wrap', 1, true), 'the raw answer is logged')
    ok(rec.plan and rec.plan.steps, 'the validated plan is logged')
    ok(not vim.inspect(server.requests[1].body):find('sk-spec-secret', 1, true), 'the key is not in the body')
    matches('x%-api%-key: sk%-spec%-secret', server.requests[1].head:lower())
  end)

  for _, kind in ipairs({ 'anthropic', 'openai', 'ollama' }) do
    it('takes a second look when the model asks (' .. kind .. ' wire format)', function()
      server = anthropic_server({
        { reply = 'Let me look.', steps = {}, lookup = { 'laststatus' } },
        {
          reply = 'Hiding it.',
          steps = { { type = 'setting', key = 'laststatus', value = 0, why = 'no status line' } },
        },
      }, 0)
      use_server(server.port, kind, { shortlist_limit = 1 })
      local progress = {}
      vim.api.nvim_create_autocmd('User', {
        pattern = 'LeashPlanProgress',
        callback = function(ev) progress[#progress + 1] = ev.data.message end,
      })
      local log = require('leash.log').path()
      os.remove(log)
      local r = plan_and_wait('please tidy up the screen', 8000)
      eq('done', r.status, r.err)
      eq(2, #server.requests, 'one extra round')
      eq('laststatus', r.plan.steps[1].key)
      eq(0, r.plan.steps[1].value)
      ok(not server.requests[1].body:find('- laststatus (', 1, true), 'not in the first shortlist')
      ok(server.requests[2].body:find('- laststatus (number', 1, true), 'shown the second time')
      eq({ 'looking up laststatus' }, progress)
      local rec = vim.json.decode(vim.fn.readfile(log)[1])
      eq(2, #rec.exchanges)
      eq({ 'laststatus' }, rec.exchanges[1].lookup)
    end)
  end

  it('writes out invisible characters in the progress line (the model names what it looks up)', function()
    server = anthropic_server({
      { reply = 'Let me look.', steps = {}, lookup = { 'last\u{202E}status\u{061C}' } },
      { reply = 'Nothing.', steps = {} },
    }, 0)
    use_server(server.port, 'anthropic', { shortlist_limit = 1 })
    local progress, shown = {}, {}
    vim.api.nvim_create_autocmd('User', {
      pattern = 'LeashPlanProgress',
      callback = function(ev) progress[#progress + 1] = ev.data.message end,
    })
    -- Whatever way this Neovim shows progress (a progress message or a notification).
    local echo, notify = vim.api.nvim_echo, vim.notify
    vim.api.nvim_echo = function(chunks, ...)
      for _, c in ipairs(chunks) do
        shown[#shown + 1] = c[1]
      end
      return echo(chunks, ...)
    end
    vim.notify = function(msg) shown[#shown + 1] = msg end
    local r = plan_and_wait('please tidy up the screen', 8000)
    vim.api.nvim_echo, vim.notify = echo, notify
    eq('done', r.status, r.err)
    eq({ 'looking up last<U+202E>status<U+061C>' }, progress)
    local t = table.concat(shown, '\n')
    ok(t:find('looking up last<U+202E>status<U+061C>', 1, true), t)
    ok(not t:find('\u{202E}', 1, true) and not t:find('\u{061C}', 1, true), 'drawn raw: ' .. t)
  end)

  it('sends the current value of the shortlisted settings without waiting on the network', function()
    server = anthropic_server(WRAP_PLAN, 0)
    use_server(server.port)
    vim.wo.wrap = false
    vim.bo.tabstop = 5
    local r = plan_and_wait('turn on word wrap and set the tab width')
    eq('done', r.status, r.err)
    local body = vim.json.decode(server.requests[1].body)
    local user = body.messages[1].content
    matches('%- wrap %(boolean, now false%)', user)
    matches('%- tabstop %(number 1–9999, now 5%)', user)
    -- Every option's value is read in one pass on the main loop: cheap enough to do on
    -- every request (the budget for all of :Do's local work is 20 ms).
    local entries = require('leash.catalog').get().entries
    local t0 = uv.hrtime()
    local values = require('leash.planner').current_values(entries)
    local ms = (uv.hrtime() - t0) / 1e6
    io.stdout:write(('     current values: %d settings in %.2f ms\n'):format(vim.tbl_count(values), ms))
    eq(false, values.wrap)
    eq(5, values.tabstop)
    ok(vim.tbl_count(values) > 300, 'every option')
  end)

  it('plans normally with an option value and a current file name that are not UTF-8', function()
    server = anthropic_server(WRAP_PLAN, 0)
    use_server(server.port)
    -- 'titlestring' and the file name as bytes Neovim accepts but UTF-8 does not.
    vim.o.titlestring = 'x\255y'
    local dir = vim.fn.tempname()
    vim.fn.mkdir(dir, 'p')
    local name = dir .. '/caf\233.txt'
    vim.cmd('silent edit ' .. vim.fn.fnameescape(name))
    local r = plan_and_wait('turn on word wrap and change the window title string')
    eq('done', r.status, r.err)
    eq('wrap', r.plan.steps[1].key)
    local user = vim.json.decode(server.requests[1].body).messages[1].content
    matches('titlestring %(.-now "x<ff>y"%)', user)
    -- The core's sources for this file, and the check of a step before it runs.
    local found = require('leash.sources.shared.core_sources').discover()
    eq('table', type(found.files))
    eq(nil, select(2, require('leash.code_dirs').check({ type = 'item', id = 'cmd:write', args = {} })))
    local okr, err = require('leash.execute').run(r.plan)
    eq(true, okr, err)
    eq(true, vim.wo.wrap)
    vim.cmd('silent bwipeout!')
    vim.o.titlestring = ''
    vim.fn.delete(dir, 'rf')
  end)

  it('counts the seconds while it waits, in one notification replaced in place', function()
    server = anthropic_server(WRAP_PLAN, 2300)
    use_server(server.port)
    local notes, _, restore = capture_progress()
    local r = plan_and_wait('turn on word wrap')
    restore()
    eq('done', r.status, r.err)
    local seconds = {}
    for i, n in ipairs(notes) do
      eq('leash.progress', n.opts.id, 'notification ' .. i)
      if i > 1 then eq({ record = i - 1 }, n.opts.replace, 'replaces the one before') end
      local s = n.msg:match(' · (%d+) s…')
      if s then seconds[#seconds + 1] = tonumber(s) end
    end
    -- the seconds count up while it waits (the answer comes after 2.3 s; a loaded
    -- machine may skip a tick, never go back)
    ok(#seconds >= 2 and seconds[1] >= 1, vim.inspect(notes))
    for i = 2, #seconds do
      ok(seconds[i] > seconds[i - 1], vim.inspect(seconds))
    end
    matches('planned with spec in %d+%.%d s$', notes[#notes].msg)
  end)

  it('keeps each progress line to one line of the message area (no hit-enter prompt)', function()
    server = anthropic_server({ { rate_limited_ms = 300 }, WRAP_PLAN }, 0)
    use_server(server.port)
    local saved_notify, saved_echo = vim.notify, vim.api.nvim_echo
    -- Neovim's own vim.notify, and no progress messages (0.11's way).
    vim.notify = package.loaded['spec.builtin_notify']
    vim.api.nvim_echo = function(chunks, history, opts)
      if opts and opts.kind == 'progress' then error('no progress messages here') end
      return saved_echo(chunks, history, opts)
    end
    vim.cmd('messages clear')
    local r = plan_and_wait('turn on word wrap')
    vim.notify, vim.api.nvim_echo = saved_notify, saved_echo
    eq('done', r.status, r.err)
    local said = vim.split(vim.api.nvim_exec2('messages', { output = true }).output, '\n', { trimempty = true })
    local waited = false
    for _, line in ipairs(said) do
      ok(vim.fn.strdisplaywidth(line) <= vim.v.echospace, line)
      if line:find('rate%-limited') then waited = true end
    end
    ok(waited, vim.inspect(said))
  end)

  it('says when it waits out a rate limit before asking again', function()
    server = anthropic_server({ { rate_limited_ms = 300 }, WRAP_PLAN }, 0)
    use_server(server.port)
    local notes, events, restore = capture_progress()
    local r = plan_and_wait('turn on word wrap')
    restore()
    eq('done', r.status, r.err)
    eq(2, #server.requests)
    eq({ 'rate-limited (429): asking again in 0.3 s', 'asking again (attempt 2)' }, events)
    local said = vim.tbl_filter(
      function(n) return n.msg:find('rate-limited (429): asking again in 0.3 s', 1, true) end,
      notes
    )
    ok(#said >= 1, vim.inspect(notes))
    matches('^leash: %S+ planning with spec · .*rate%-limited %(429%)', said[1].msg)
  end)

  it('reports a dead endpoint clearly and runs nothing', function()
    local probe = uv.new_tcp()
    probe:bind('127.0.0.1', 0)
    local port = probe:getsockname().port
    probe:close()
    use_server(port)
    local r = plan_and_wait('turn on word wrap')
    eq('error', r.status)
    matches('^leash: spec: connection refused', r.err)
    matches('127%.0%.0%.1:' .. port, r.err)
  end)

  it('says an answer that is not a plan is one, and where to read it', function()
    local log = require('leash.log').path()
    os.remove(log)
    server = anthropic_server({ 'Sure! I would set wrap for you.' }, 0)
    use_server(server.port)
    local r = plan_and_wait('turn on word wrap')
    eq('error', r.status)
    matches('^leash: the answer from spec at 127%.0%.0%.1:%d+ is not a plan: ', r.err)
    matches('%(its answer is in :Leash log%)$', r.err)
    local rec = vim.json.decode(vim.fn.readfile(log)[1])
    matches('I would set wrap', rec.raw)
  end)

  it('fails closed without the native library', function()
    require('leash.native').reset({ root = vim.fn.tempname(), runtimepath = false })
    local r = plan_and_wait('turn on word wrap')
    eq('error', r.status)
    matches('Leash build', r.err)
    require('leash.native').reset()
  end)
end)

describe('planner without a completion pipe', function()
  it('takes the result on a timer instead', function()
    fresh()
    require('leash').setup({})
    local registry = debug.getregistry()
    local saved = registry['leash.planner.pipe']
    -- Silence the real pipe so that only the timer can take the result.
    if type(saved) == 'userdata' then saved:read_stop() end
    registry['leash.planner.pipe'] = 'poll'
    local r = plan_and_wait('turn on word wrap')
    registry['leash.planner.pipe'] = saved
    if type(saved) == 'userdata' then
      saved:read_start(function(err, data)
        if err or data == nil then return end
        vim.schedule(function() require('leash.planner')._drain() end)
      end)
    end
    eq('done', r.status, r.err)
    eq('wrap', r.plan.steps[1].key)
  end)
end)
