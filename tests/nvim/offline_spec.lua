-- The offline planner in a real Neovim: what :Do sends it (current values, installed
-- color schemes) and the choice it offers when it is not sure (vim.ui.select), which
-- becomes an ordinary plan in the plan window.

local function plan_and_wait(request)
  local result
  require('leash').plan(request, function(plan, err, status) result = { plan = plan, err = err, status = status } end)
  vim.wait(5000, function() return result ~= nil end, 5)
  return result
end

--- Replaces vim.ui.select for one call: records what it was given and answers with the
--- item `pick` chooses (nil: dismissed).
local function stub_select(pick)
  local seen = {}
  local saved = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    seen.items, seen.opts = items, opts
    seen.labels = vim.tbl_map(opts.format_item, items)
    vim.ui.select = saved
    on_choice(pick(items, seen.labels))
  end
  return seen, function() vim.ui.select = saved end
end

local function window_open() return vim.fn.win_gettype() == 'popup' end

local function press(keys) vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'x', false) end

describe('offline planning with the editor state', function()
  before_each(function()
    fresh()
    require('leash').setup({})
  end)

  it('toggles from the current value', function()
    vim.wo.wrap = true
    local r = plan_and_wait('toggle word wrap')
    eq('done', r.status, r.err)
    eq({ 'wrap', false }, { r.plan.steps[1].key, r.plan.steps[1].value })
    vim.wo.wrap = false
    r = plan_and_wait('toggle word wrap')
    eq(true, r.plan.steps[1].value)
  end)

  it('knows the installed color schemes by name', function()
    local r = plan_and_wait('use the desert theme')
    eq('done', r.status, r.err)
    eq(1, #r.plan.steps)
    eq({ 'cmd:colorscheme', { 'desert' } }, { r.plan.steps[1].id, r.plan.steps[1].args })
    r = plan_and_wait('colorscheme nosuchscheme')
    eq(0, #r.plan.steps)
    matches('No color scheme named “nosuchscheme” is installed', r.plan.reply)
    -- The folders are searched for color schemes only for a request that may name one.
    local planner, listed = require('leash.planner'), 0
    local list = planner.colorschemes
    planner.colorschemes = function()
      listed = listed + 1
      return list()
    end
    local ok_, err = pcall(function()
      eq('done', plan_and_wait('turn on word wrap').status)
      eq(0, listed)
      eq('desert', plan_and_wait('switch to the desert color scheme').plan.steps[1].args[1])
      eq(1, listed)
    end)
    planner.colorschemes = list
    assert(ok_, err)
  end)

  it('plans two settings in one request, and German', function()
    local r = plan_and_wait('turn on wrap and line numbers')
    eq({ 'wrap', 'number' }, { r.plan.steps[1].key, r.plan.steps[2].key })
    r = plan_and_wait('Zeilennummern ausblenden')
    eq({ 'number', false }, { r.plan.steps[1].key, r.plan.steps[1].value })
  end)

  it('runs a plan that needs no window and says its outcome after the progress has ended', function()
    require('leash').setup({ confirm_before_run = false })
    -- A vim.notify that echoes at once, as Neovim's own does (a wrapper of it, as many
    -- configs have).
    local saved = vim.notify
    vim.notify = function(msg) vim.api.nvim_echo({ { msg } }, true, {}) end
    vim.cmd('messages clear')
    vim.wo.wrap = false
    require('leash').run('turn on word wrap')
    local said = function() return vim.fn.execute('messages'):find('ran 1 step') ~= nil end
    vim.wait(5000, said, 5)
    vim.wait(200) -- what is queued for the next turns of the main loop
    vim.notify = saved
    eq(true, vim.wo.wrap)
    local lines = vim.tbl_filter(function(l) return l ~= '' end, vim.split(vim.fn.execute('messages'), '\n'))
    matches('^leash: ran 1 step', lines[#lines], 'the last message is the outcome: ' .. vim.inspect(lines))
  end)

  it('needs a model for an edit of text, in one line', function()
    local r = plan_and_wait('rename this variable to count')
    eq(0, #r.plan.steps)
    eq(nil, r.plan.choices)
    matches("^offline can't plan this: :help leash%-providers", r.plan.reply)
    ok(not r.plan.reply:find('\n'), r.plan.reply)
  end)
end)

describe('the choice when the offline planner is not sure', function()
  before_each(function()
    fresh()
    require('leash').setup({})
    vim.o.showmatch = false
  end)

  it('offers candidates with their effect; the chosen one is shown and run as a plan', function()
    local seen, restore = stub_select(function(items, labels)
      for i, l in ipairs(labels) do
        if l:find('^showmatch') then return items[i] end
      end
    end)
    vim.cmd('Do show matching brackets')
    vim.wait(3000, window_open, 5)
    restore()
    ok(seen.items and #seen.items >= 1 and #seen.items <= 5, vim.inspect(seen.labels))
    matches('^leash: Not sure', seen.opts.prompt)
    eq('leash.choice', seen.opts.kind)
    ok(
      vim.tbl_contains(seen.labels, 'showmatch: off → on (briefly jump to matching bracket if insert one)'),
      vim.inspect(seen.labels)
    )
    eq(true, window_open(), 'the chosen plan opens in the plan window')
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    matches('showmatch', text)
    vim.wait(200) -- the window ignores the run key for its first moments
    press('<CR>')
    vim.wait(1000, function() return not window_open() end, 5)
    eq(true, vim.o.showmatch)
  end)

  it('the keys typed in the picker do not hold the chosen plan as typing', function()
    -- Neovim's own vim.ui.select is a list answered with typed keys (`1<CR>`).
    local saved = vim.ui.select
    vim.ui.select = function(items, opts, on_choice)
      vim.ui.select = saved
      vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<Esc>', true, false, true), 'xt', false)
      for i, item in ipairs(items) do
        if opts.format_item(item):find('^showmatch') then return on_choice(item, i) end
      end
    end
    vim.cmd('Do show matching brackets')
    vim.wait(3000, window_open, 5)
    vim.ui.select = saved
    eq(false, require('leash.ui.arrival').holding(), 'the chosen plan was held')
    eq(true, window_open(), 'the chosen plan opens in the plan window')
    press('q')
  end)

  it('dismissing the picker runs nothing and logs it', function()
    local seen, restore = stub_select(function() return nil end)
    local logged
    local log = require('leash.log')
    local saved = log.outcome
    log.outcome = function(request, status) logged = { request, status } end
    vim.cmd('Do show matching brackets')
    vim.wait(2000, function() return logged ~= nil end, 5)
    log.outcome, restore = saved, restore()
    ok(seen.items ~= nil, 'the picker was offered')
    eq({ 'show matching brackets', 'nothing chosen' }, logged)
    eq(false, window_open())
    eq(false, vim.o.showmatch)
  end)
end)
