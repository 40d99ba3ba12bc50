-- lua/leash/log.lua: the log of requests and plans, its own module (what runs a plan
-- does not load what makes one).

local function lines_of(path)
  if vim.fn.filereadable(path) == 0 then return {} end
  return vim.fn.readfile(path)
end

describe('leash.log', function()
  before_each(function()
    require('leash').setup({})
    os.remove(require('leash.log').path())
  end)

  it('appends lines to a file only the user can read', function()
    local log = require('leash.log')
    log.append('{"a":1}')
    log.append('{"b":2}')
    eq({ '{"a":1}', '{"b":2}' }, lines_of(log.path()))
    eq(tonumber('600', 8), bit.band(vim.uv.fs_stat(log.path()).mode, tonumber('777', 8)))
  end)

  it('writes nothing with log = false', function()
    require('leash').setup({ log = false })
    local log = require('leash.log')
    log.append('{"a":1}')
    log.outcome('wrap', 'ran', 1)
    eq({}, lines_of(log.path()))
  end)

  it('says what became of a request in an outcome line, model text made visible', function()
    local log = require('leash.log')
    log.outcome('turn on wrap', 'failed', 1, 'bad\27[31m step')
    local line = vim.json.decode(lines_of(log.path())[1])
    eq('turn on wrap', line.outcome.request)
    eq('failed', line.outcome.status)
    eq(1, line.outcome.steps)
    eq('bad^[[31m step', line.outcome.error)
    local now = vim.uv.gettimeofday() * 1000
    ok(math.abs(line.outcome.time_ms - now) < 60000, 'time_ms is milliseconds since the epoch')
  end)

  it('running a plan logs its outcome without loading the planner', function()
    package.loaded['leash.planner'] = nil
    vim.o.wrap = false
    local done = false
    require('leash.execute').confirm_and_run({
      reply = '',
      confirm = 'default',
      steps = {
        { index = 0, type = 'setting', key = 'wrap', value = true, why = '', reach = 'safe', label = 'Set wrap' },
      },
      dropped = {},
    }, {
      config = { confirm_before_run = false },
      entries = {},
      request = 'wrap please',
      on_done = function() done = true end,
    })
    ok(done, 'the plan ran at once (confirm_before_run = false, a safe step)')
    eq(nil, package.loaded['leash.planner'], 'the planner was not loaded')
    local line = vim.json.decode(lines_of(require('leash.log').path())[1])
    eq('ran', line.outcome.status)
    eq('wrap please', line.outcome.request)
    eq(true, vim.o.wrap)
  end)
end)

describe(':Leash log, the view', function()
  local view = require('leash.ui.log_view')

  local function record(t, request, steps, extra)
    return vim.json.encode(vim.tbl_extend('force', {
      time_ms = t,
      request = request,
      provider = 'claude',
      model = 'claude-x',
      timings = { total_ms = 8060 },
      raw = '{"steps":[]}',
      exchanges = { { round = 1, structured = 'json_schema', attempts = 1, model_ms = 8000, raw = 'first\nanswer' } },
      plan = { reply = 'Wrap on.', steps = steps or {}, dropped = {} },
    }, extra or {}))
  end
  local function outcome(request, status, steps, err)
    return vim.json.encode({ outcome = { request = request, status = status, steps = steps, error = err, time_ms = 1 } })
  end

  it('groups each request with what became of it, and a refusal before planning on its own', function()
    local entries, bad = view.parse({
      record(1000, 'wrap', { { label = 'Set wrap = true' } }),
      outcome('wrap', 'ran', 1),
      'not json',
      vim.json.encode({ guard = { step = 1, label = 'x', starts = {} } }),
      outcome('font', 'failed', 0, 'leash: config: x'),
    })
    eq(1, bad)
    eq(2, #entries)
    eq('wrap', entries[1].request)
    eq('ran', entries[1].outcome.status)
    eq(1, #entries[1].guard)
    eq(nil, entries[2].record)
    eq('failed', entries[2].outcome.status)
  end)

  it('keeps a plan shown with :Do!, then run from :Leash last, as one entry with both outcomes', function()
    local t = os.time({ year = 2026, month = 3, day = 4, hour = 5, min = 6, sec = 7 }) * 1000
    local entries, bad = view.parse({
      record(t, 'wrap', { { label = 'Set wrap = true' } }),
      outcome('wrap', 'shown', 0),
      vim.json.encode({ outcome = { request = 'wrap', status = 'ran', steps = 1, time_ms = t + 65000 } }),
    })
    eq(1, #entries)
    local text = table.concat(view.render(entries, bad, 'x'), '\n')
    matches('\n  ran     1%. Set wrap = true\n', text)
    matches('\n  outcome: only shown %(:Do!%), nothing ran\n  outcome %(05:07:12%): ran 1 step$', text)
  end)

  it('says when, what, who, how long, each step with its outcome, newest first', function()
    local t = os.time({ year = 2026, month = 3, day = 4, hour = 5, min = 6, sec = 7 }) * 1000
    local steps = {
      { label = 'Set wrap = true' },
      { label = 'Run :vsplit' },
      { label = 'Set number = true' },
    }
    local lines = view.render(
      view.parse({
        record(t, 'older', { { label = 'Set list = true' } }),
        outcome('older', 'ran', 1),
        record(t + 60000, 'three steps\27[31m', steps, {
          plan = { reply = 'ok', steps = steps, dropped = { { reason = 'unknown setting “fontsize”' } } },
        }),
        outcome('three steps\27[31m', 'failed', 1, 'leash: step 2 (Run :vsplit): E37'),
      }),
      0,
      '/x/leash.log'
    )
    local text = table.concat(lines, '\n')
    matches('^leash log: 2 requests, newest first', lines[1])
    local newer, older = text:find('2026%-03%-04 05:07:07  three steps%^%[%[31m'), text:find('05:06:07  older')
    ok(newer and older and newer < older, text)
    matches('\n  claude %(claude%-x%) · 8%.1 s\n', text)
    matches('\n  ran     1%. Set wrap = true\n', text)
    matches('\n  FAILED  2%. Run :vsplit\n', text)
    matches('\n  not run 3%. Set number = true\n', text)
    matches('\n  refused  unknown setting “fontsize”\n', text)
    matches('\n  outcome: failed at step 2 after 1 ran: leash: step 2 %(Run :vsplit%): E37', text)
    matches('\n  ran     1%. Set list = true\n  outcome: ran 1 step', text)
  end)

  it('opens as leash-log, <CR> shows the raw exchange, q goes back, then closes', function()
    local log = require('leash.log')
    log.append(record(os.time() * 1000, 'turn on wrap', { { label = 'Set wrap = true' } }))
    log.outcome('turn on wrap', 'ran', 1)
    vim.cmd('silent! only!')
    local before = vim.api.nvim_get_current_win()
    vim.cmd('Leash log')
    eq('leash-log', vim.bo.filetype)
    eq(2, #vim.api.nvim_tabpage_list_wins(0), 'a split')
    matches('turn on wrap$', vim.api.nvim_get_current_line())
    vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'x', false)
    eq('leash-log-raw', vim.bo.filetype)
    local raw = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    matches('%-%-%- answer 1 %(structured output: json_schema, 1 attempt, 8%.0 s%)\nfirst\nanswer\n', raw)
    matches('"request":"turn on wrap"', raw)
    vim.api.nvim_feedkeys('q', 'x', false)
    eq('leash-log', vim.bo.filetype, 'q in the raw view goes back to the log')
    vim.api.nvim_feedkeys('q', 'x', false)
    eq(1, #vim.api.nvim_tabpage_list_wins(0), 'q closed it')
    eq(before, vim.api.nvim_get_current_win())
  end)

  it('shows no line numbers, signs or list characters of the window it split from', function()
    require('leash.log').append(record(1000, 'x', {}))
    vim.cmd('silent! only!')
    vim.cmd('enew')
    vim.o.number, vim.o.relativenumber, vim.o.signcolumn, vim.o.list = true, true, 'yes', true
    vim.cmd('Leash log')
    eq('leash-log', vim.bo.filetype)
    eq({ false, false, 'no', false }, { vim.wo.number, vim.wo.relativenumber, vim.wo.signcolumn, vim.wo.list })
    vim.api.nvim_feedkeys('q', 'x', false)
    eq({ true, true, 'yes', true }, { vim.wo.number, vim.wo.relativenumber, vim.wo.signcolumn, vim.wo.list })
    vim.o.number, vim.o.relativenumber, vim.o.signcolumn, vim.o.list = false, false, 'auto', false
  end)

  it(':Leash rank opens the same way, in the window of the log', function()
    require('leash.log').append(record(1000, 'x', {}))
    vim.cmd('silent! only!')
    vim.cmd('Leash log')
    local win = vim.api.nvim_get_current_win()
    vim.cmd('Leash rank turn on word wrap')
    eq(win, vim.api.nvim_get_current_win(), 'the same window')
    eq(2, #vim.api.nvim_tabpage_list_wins(0))
    eq('leash-rank', vim.bo.filetype)
    eq(false, vim.bo.modeline)
    vim.api.nvim_feedkeys('q', 'x', false)
    eq(1, #vim.api.nvim_tabpage_list_wins(0))
  end)

  it('q in the last window shows the buffer before it instead of quitting', function()
    vim.cmd('silent! only!')
    vim.cmd('enew')
    local buf = vim.api.nvim_get_current_buf()
    require('leash.log').append(record(1000, 'x', {}))
    vim.cmd('Leash log')
    vim.cmd('only')
    vim.api.nvim_feedkeys('q', 'x', false)
    eq(buf, vim.api.nvim_get_current_buf())
  end)
end)
