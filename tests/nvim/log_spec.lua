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
