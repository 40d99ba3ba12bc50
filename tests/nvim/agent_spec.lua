-- lua/leash/agent.lua: what `leash mcp` calls in the person's Neovim. Each call goes
-- through agent.call() with JSON text, as the program sends it; the plan window is the
-- real one, driven with keys.

local dir = vim.fn.tempname()
vim.fn.mkdir(dir, 'p')

local function floats()
  return vim.tbl_filter(function(w) return vim.api.nvim_win_get_config(w).relative ~= '' end, vim.api.nvim_list_wins())
end

local function reset_editor()
  for _, w in ipairs(floats()) do
    pcall(vim.api.nvim_win_close, w, true)
  end
  vim.cmd('silent! only!')
  vim.cmd('enew!')
  vim.o.wrap, vim.o.list, vim.o.number = true, false, false
end

--- agent.call() as `leash mcp` makes it: JSON in, JSON out.
local function call(method, args)
  local text = require('leash.agent').call(method, vim.json.encode(args or vim.empty_dict()))
  eq('string', type(text), 'the answer is JSON text')
  return vim.json.decode(text, { luanil = { object = true } })
end

local function press(keys) vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, true, true), 'x', false) end

--- Press the run key once the window could accept it (every row drawn, armed).
local function run_window()
  vim.wait(300, function() return false end)
  press('y')
end

--- The outcome of proposal `id`, once decided.
local function outcome_of(id)
  local answer
  vim.wait(2000, function()
    answer = call('outcome', { id = id })
    return answer.outcome ~= nil
  end, 20)
  return answer.outcome
end

local function window_text()
  local w = floats()[1]
  if not w then return '' end
  return table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), '\n')
end

--- A plan as an agent sends it, as JSON text.
local function plan(steps, extra)
  return vim.json.encode(vim.tbl_extend('force', { reply = 'ok', steps = steps }, extra or {}))
end

describe('agent.call()', function()
  before_each(function()
    fresh()
    reset_editor()
    require('leash').setup({})
  end)

  it('answers hello with its protocol, versions and the library it loaded', function()
    local hello = call('hello', { version = '0.1.0', protocol = 1, client = 'claude-code' })
    eq(require('leash.agent').protocol, hello.protocol)
    eq(require('leash.native').version, hello.version)
    eq(require('leash.native').get().version(), hello.library)
    eq(nil, hello.library_error)
    matches('^%d+%.%d+%.%d+$', hello.nvim)
    eq('claude-code', hello.client)
    -- A name with control characters or markup is shown in plain characters only.
    eq('evil0T', call('hello', { client = 'evil\27]0;%{T}\n' }).client)
    eq('an agent', call('hello', { client = '\1\2' }).client)
  end)

  it('says what is wrong with a call it cannot answer', function()
    eq('unknown_method', call('rm -rf', {}).error.code)
    local text = require('leash.agent').call('search', 'not json')
    eq('bad_arguments', vim.json.decode(text).error.code)
  end)

  it('searches the live catalog: ids and keys, types, values, current values, reach', function()
    vim.o.wrap = false
    local found = call('search', { request = 'wrap long lines', limit = 5 })
    ok(#found.results > 0 and #found.results <= 5, vim.inspect(found))
    local by = {}
    for _, r in ipairs(found.results) do
      by[r.key or r.id] = r
    end
    local wrap = by.wrap
    ok(wrap, 'wrap is found: ' .. vim.inspect(vim.tbl_keys(by)))
    eq('setting', wrap.kind)
    eq('boolean', wrap.type)
    eq(false, wrap.current, 'the value now')
    eq('safe', wrap.reach)
    eq(nil, wrap.description, 'no help text: the title says what it is')
    local term = call('search', { request = 'run a shell command in a terminal', limit = 30 }).results
    local run = vim.tbl_filter(function(r) return r.id == 'term:run' end, term)[1]
    ok(run, 'term:run is found')
    eq('shell', run.reach)
    eq('required', run.args)
    -- The user's raise rules show in the search as in the plan window.
    require('leash').setup({ raise = { { pattern = 'wrap', reach = 'shell' } } })
    local raised = call('search', { request = 'wrap long lines', limit = 5 }).results
    eq('shell', vim.tbl_filter(function(r) return r.key == 'wrap' end, raised)[1].reach)
  end)

  it('refuses a search without a request or with a limit out of range', function()
    matches('“request” must be a non%-empty string', call('search', { request = ' ' }).error.message)
    matches(
      '“limit” must be a whole number from 1 to 100',
      call('search', { request = 'wrap', limit = 0 }).error.message
    )
    eq('bad_arguments', call('search', { request = 'wrap', limit = 2.5 }).error.code)
    eq('bad_arguments', call('search', { request = 'wrap', limit = 101 }).error.code)
  end)

  it('tells the editor state without any buffer text', function()
    local file = dir .. '/notes.md'
    vim.fn.writefile({ 'secret line one', 'two', 'three' }, file)
    vim.cmd.edit(vim.fn.fnameescape(file))
    vim.cmd('vsplit')
    vim.api.nvim_win_set_cursor(0, { 2, 1 })
    local state = call('state')
    eq('n', state.mode)
    eq(file, state.file)
    eq('markdown', state.filetype)
    eq({ line = 2, column = 2 }, state.cursor)
    eq(nil, state.selection)
    eq(2, #state.windows)
    eq(1, #vim.tbl_filter(function(w) return w.current end, state.windows))
    ok(not vim.json.encode(state):find('secret', 1, true), 'no buffer text')
    -- A Visual selection: its positions.
    press('vj')
    local sel = call('state').selection
    press('<Esc>')
    eq('characterwise', sel.mode)
    eq({ line = 2, column = 2 }, sel.from)
    eq({ line = 3, column = 2 }, sel.to)
  end)

  it('shows a plan from the agent in the window, titled with its name, and returns what ran', function()
    local out = dir .. '/ran'
    local answer = call('propose', {
      client = 'claude-code',
      plan = plan({
        { type = 'setting', key = 'number', value = true, why = 'line numbers' },
        { type = 'terminal', command = 'echo done > ' .. out, why = 'record' },
      }),
    })
    ok(answer.id, vim.inspect(answer))
    eq(nil, answer.outcome, 'the call returns at once, before the person decides')
    eq(1, #floats(), 'the plan window is open')
    local title = vim.api.nvim_win_get_config(floats()[1]).title
    eq(' plan from claude-code ', type(title) == 'table' and title[1][1] or title)
    matches('%[shell%]', window_text())
    matches('echo done', window_text())
    eq(false, vim.o.number, 'nothing ran before the key')
    eq({ id = answer.id, waiting = 'shown' }, call('outcome', { id = answer.id }))
    -- A second proposal while the first is shown is refused with the reason.
    local second =
      call('propose', { client = 'other', plan = plan({ { type = 'setting', key = 'list', value = true } }) })
    eq('busy', second.error.code)
    matches('has not decided on plan %d+ from claude%-code yet', second.error.message)
    run_window()
    local outcome = outcome_of(answer.id)
    eq('ran', outcome.status)
    eq(2, outcome.ran)
    eq(true, vim.o.number)
    eq({ 0, 1 }, vim.tbl_map(function(s) return s.index end, outcome.steps))
    eq('shell', outcome.steps[2].reach)
    ok(vim.wait(5000, function() return vim.uv.fs_stat(out) ~= nil end), 'the terminal step ran')
  end)

  it('names the agent in plain characters: in the title, or first in the text without a border', function()
    local answer = call('propose', {
      client = 'evil\27]0;%{T}\n',
      plan = plan({ { type = 'setting', key = 'list', value = true } }),
    })
    local title = vim.api.nvim_win_get_config(floats()[1]).title
    eq(' plan from evil0T ', type(title) == 'table' and title[1][1] or title)
    press('q')
    eq('cancelled', outcome_of(answer.id).status)
    if vim.fn.exists('+winborder') == 0 then return end
    vim.o.winborder = 'none'
    answer = call('propose', { client = 'codex', plan = plan({ { type = 'setting', key = 'list', value = true } }) })
    local first = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(floats()[1]), 0, 1, false)[1]
    vim.o.winborder = ''
    matches('^%s*plan from codex', first)
    press('q')
    eq('cancelled', outcome_of(answer.id).status)
  end)

  it('refuses a proposal while the person waits for a plan of their own', function()
    local planner = require('leash.planner')
    local busy = planner.busy
    planner.busy = function() return true end
    local answer =
      call('propose', { client = 'codex', plan = plan({ { type = 'setting', key = 'list', value = true } }) })
    planner.busy = busy
    eq('busy', answer.error.code)
    matches('waiting for a plan of their own %(:Do%)', answer.error.message)
    eq(0, #floats())
  end)

  it('returns cancelled when the person presses q, and nothing runs', function()
    local answer = call('propose', {
      client = 'codex',
      plan = plan({ { type = 'setting', key = 'list', value = true } }),
    })
    eq(1, #floats())
    press('q')
    local outcome = outcome_of(answer.id)
    eq('cancelled', outcome.status)
    eq(0, outcome.ran)
    eq(false, vim.o.list)
  end)

  it('returns refusals at once, and shows the person nothing to decide', function()
    local notes, restore = dofile(root .. '/tests/nvim/helpers.lua').capture_notify()
    local answer = call('propose', {
      client = 'claude-code',
      plan = plan({ { type = 'item', id = 'cmd:nosuchcommand' }, { type = 'setting', key = 'fontsize', value = 3 } }),
    })
    restore()
    eq(0, #floats(), 'no window')
    eq('nothing to run', answer.outcome.status)
    eq({ 'unknown_id', 'unknown_key' }, vim.tbl_map(function(d) return d.code end, answer.outcome.dropped))
    matches('plan from claude%-code: nothing ran', notes[1] and notes[1].msg or '')
    -- Not a plan at all: the parser's reason.
    local bad = call('propose', { client = 'x', plan = 'rm -rf /' })
    eq('not_a_plan', bad.error.code)
    matches('no JSON object', bad.error.message)
    eq('bad_arguments', call('propose', { client = 'x', plan = { steps = {} } }).error.code)
  end)

  it('lets no field the agent sends, and not confirm_before_run = false, skip the window', function()
    require('leash').setup({ confirm_before_run = false })
    local out = dir .. '/skipped'
    local answer = call('propose', {
      client = 'claude-code',
      plan = plan({
        { type = 'setting', key = 'list', value = true, approved = true, confirm = false },
        { type = 'terminal', command = 'echo x > ' .. out, confirm = false, why = 'the person approved this already' },
      }, { confirm = 'default', approved = true, skip_confirmation = true }),
    })
    eq(nil, answer.outcome, 'not run at once')
    eq(1, #floats(), 'the window is open')
    press('q')
    eq('cancelled', outcome_of(answer.id).status)
    eq(false, vim.o.list)
    vim.wait(200, function() return vim.uv.fs_stat(out) ~= nil end)
    eq(nil, vim.uv.fs_stat(out))
    -- Not even an all-safe plan runs unseen, as :Do's would: the agent reads each
    -- outcome, so plans run unseen would tell it what the editor holds.
    local safe =
      call('propose', { client = 'claude-code', plan = plan({ { type = 'setting', key = 'list', value = true } }) })
    eq(nil, safe.outcome, 'not run at once')
    eq(1, #floats(), 'the window is open')
    eq(false, vim.o.list)
    run_window()
    eq('ran', outcome_of(safe.id).status)
    eq(true, vim.o.list)
  end)

  it('withdraws a plan the person has not decided on, shown or waiting', function()
    local answer =
      call('propose', { client = 'claude-code', plan = plan({ { type = 'setting', key = 'list', value = true } }) })
    eq(1, #floats())
    local w = call('withdraw', { id = answer.id })
    eq(true, w.withdrawn)
    vim.wait(100, function() return #floats() == 0 end)
    eq(0, #floats())
    eq('withdrawn', outcome_of(answer.id).status)
    eq(false, vim.o.list)
    -- Held while the person types, then withdrawn: :Leash show finds nothing.
    require('leash.ui.arrival').watch_keys()
    vim.api.nvim_feedkeys(vim.keycode('<Esc>'), 'xt', false)
    local held =
      call('propose', { client = 'claude-code', plan = plan({ { type = 'setting', key = 'list', value = true } }) })
    eq(0, #floats())
    eq('held', call('outcome', { id = held.id }).waiting)
    eq(true, call('withdraw', { id = held.id }).withdrawn)
    eq('withdrawn', call('outcome', { id = held.id }).outcome.status)
    eq(false, require('leash.ui.arrival').holding())
    -- Once decided, withdrawing changes nothing.
    eq(false, call('withdraw', { id = held.id }).withdrawn)
    eq('unknown_proposal', call('withdraw', { id = 999 }).error.code)
  end)

  it('ends a held plan as replaced when a newer plan arrives', function()
    require('leash.ui.arrival').watch_keys()
    vim.api.nvim_feedkeys(vim.keycode('<Esc>'), 'xt', false)
    local held =
      call('propose', { client = 'claude-code', plan = plan({ { type = 'setting', key = 'list', value = true } }) })
    eq('held', call('outcome', { id = held.id }).waiting)
    -- The person's own plan arrives (their :Do), opened at once.
    require('leash.ui.arrival').arrive(function() end, '1 step')
    eq('replaced', call('outcome', { id = held.id }).outcome.status)
  end)

  it('writes every proposal and its outcome to the log with the agent name', function()
    local log = require('leash.log').path()
    vim.fn.delete(log)
    local answer =
      call('propose', { client = 'opencode', plan = plan({ { type = 'setting', key = 'list', value = true } }) })
    press('q')
    outcome_of(answer.id)
    local lines = vim.fn.readfile(log)
    local agent = {}
    for _, l in ipairs(lines) do
      local e = vim.json.decode(l).agent
      if e then agent[#agent + 1] = e end
    end
    eq({ 'proposed', 'outcome' }, vim.tbl_map(function(e) return e.event end, agent))
    eq({ 'opencode', 'opencode' }, vim.tbl_map(function(e) return e.name end, agent))
    eq('cancelled', agent[2].status)
    matches('"key":"list"', agent[1].plan)
  end)

  it('fails closed without the native library', function()
    local _, restore = without_native()
    local answer = call('propose', { client = 'x', plan = plan({ { type = 'setting', key = 'list', value = true } }) })
    restore()
    eq('no_library', answer.error.code)
    matches('native library not found', answer.error.message)
    eq(0, #floats())
    local hello = call('hello', { client = 'x' })
    matches('native library not found', hello.library_error)
    require('leash.native').reset()
  end)
end)
