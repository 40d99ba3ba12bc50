-- Option values as Neovim checks them: the catalog carries what each option takes (from
-- Neovim's completion and runtime files, ranges from the core's tables), the validator
-- refuses the rest with a clear reason, and a value Neovim still refuses fails cleanly.
-- The sweep over every option is tests/nvim/values_sweep_spec.lua.

local native = require('leash.native').get()

--- The core's catalog entries by key (its JSON carries the number ranges it adds).
local function settings()
  local state = assert(require('leash.catalog').get())
  local out = {}
  for _, e in ipairs(vim.json.decode(state.handle:to_json()).entries) do
    if e.key then out[e.key] = e end
  end
  return out
end

--- The validated plan for one setting step.
local function set(key, value)
  local state = assert(require('leash.catalog').get())
  local plan = { steps = { { type = 'setting', key = key, value = value } } }
  return native.validate(state.handle, vim.json.encode(plan), { profile = 'neovim' })
end

local function refused(key, value)
  local p = set(key, value)
  eq(0, #p.steps, ('%s = %s was accepted'):format(key, vim.inspect(value)))
  return p.dropped[1].reason
end

local function accepted(key, value)
  local p = set(key, value)
  eq(1, #p.steps, ('%s = %s: %s'):format(key, vim.inspect(value), p.dropped[1] and p.dropped[1].reason))
  return p.steps[1].value
end

describe('option values', function()
  it('the catalog carries what list, flag and number options take', function()
    local s = settings()
    eq('comma', s.clipboard.list)
    eq({ 'unnamed', 'unnamedplus' }, s.clipboard.values)
    eq('flags', s.mouse.list)
    for _, f in ipairs({ 'a', 'n', 'v', 'i', 'c', 'h', 'r' }) do
      ok(vim.list_contains(s.mouse.values, f), 'mouse flag ' .. f)
    end
    eq('flags', s.shortmess.list)
    eq('comma', s.whichwrap.list, "'whichwrap' is flags separated by commas")
    ok(vim.list_contains(s.diffopt.values, 'context:{number}'), 'diffopt context:{number}')
    ok(vim.list_contains(s.diffopt.values, 'algorithm:patience'), 'diffopt algorithm:patience')
    ok(vim.list_contains(s.fillchars.values, 'vert:{char}'), 'fillchars vert:{char}')
    eq(nil, s.winborder.list, "'winborder' is one border name")
    ok(vim.list_contains(s.winborder.values, 'rounded'), 'winborder rounded')
    ok(vim.list_contains(s.signcolumn.values, 'yes:2') and s.signcolumn.list == nil, 'signcolumn one of')
    eq({ 1, 9999 }, { s.tabstop.min, s.tabstop.max })
    eq({ 0, 3 }, { s.conceallevel.min, s.conceallevel.max })
    eq(nil, s.statusline.values, 'free text')
    eq(nil, s.compatible, 'options Neovim removed are left out')
    ok(s.paste ~= nil, 'deprecated but working options stay')
  end)

  it('refuses, with a reason, the values Neovim would refuse mid-plan', function()
    eq('“tabstop” takes a number from 1 to 9999, not 0', refused('tabstop', 0))
    eq('“shiftwidth” takes a number from 0 to 10000, not -1', refused('shiftwidth', -1))
    eq('“textwidth” takes a number from 0 to 10000, not -5', refused('textwidth', -5))
    matches('^“mouse” takes flags from .*; "x" is not one of them$', refused('mouse', 'xyz'))
    eq(
      '“clipboard” takes a comma-separated list of unnamed | unnamedplus; "bogus" is not one of them',
      refused('clipboard', 'unnamedplus,bogus')
    )
    matches("'backupcopy' takes exactly one of yes, no, auto", refused('backupcopy', 'yes,no'))
    matches('“signcolumn” takes one of', refused('signcolumn', 'yes:10'))
    matches('“fillchars” takes a comma%-separated list of', refused('fillchars', 'vert:ab'))
    matches("'channel' is read%-only", refused('channel', 1))
    matches('unknown setting “compatible”', refused('compatible', true))
  end)

  it('accepts what Neovim takes', function()
    eq(4, accepted('tabstop', 4))
    eq('a', accepted('mouse', 'a'))
    eq('', accepted('mouse', ''))
    eq('unnamed,unnamedplus', accepted('clipboard', 'unnamed,unnamedplus'))
    eq(
      'filler,context:3,vertical,algorithm:patience',
      accepted('diffopt', 'filler,context:3,vertical,algorithm:patience')
    )
    eq('vert:│,eob: ', accepted('fillchars', 'vert:│,eob: '))
    eq('tab:>-,trail:·', accepted('listchars', 'tab:>-,trail:·'))
    eq('b,s,<,>', accepted('whichwrap', 'b,s,<,>'))
    eq('rounded', accepted('winborder', 'rounded'))
    eq('80,+1', accepted('colorcolumn', '80,+1'))
  end)

  it('keeps clear reasons for control characters, huge numbers and strings for numbers', function()
    eq(16, accepted('tabstop', '16'), 'a lossless "16" is 16')
    eq('“tabstop” takes a number, not "16px"', refused('tabstop', '16px'))
    eq('“tabstop” takes a number, not "1e3"', refused('tabstop', '1e3'))
    eq('“tabstop” takes a number, not " 16"', refused('tabstop', ' 16'))
    eq('“tabstop” takes a number, not 16.5', refused('tabstop', 16.5))
    eq('“tabstop” takes a number from 1 to 9999, not 99999999', refused('tabstop', 99999999))
    matches('“tabstop” takes a number, not ', refused('tabstop', '99999999999999999999'))
    matches('control character', refused('showbreak', 'a\27[31m'))
    matches('control character', refused('statusline', 'x\ny'))
    matches('control character', refused('clipboard', 'unnamed\n'))
  end)

  it('a value Neovim still refuses stops the plan cleanly, naming the step', function()
    local before = vim.o.commentstring
    local p = set('commentstring', 'no percent s') -- free text: Neovim decides
    eq(1, #p.steps)
    table.insert(
      p.steps,
      { index = 1, type = 'setting', key = 'list', value = true, reach = 'safe', label = 'Set list' }
    )
    vim.o.list = false
    local okr, err = require('leash.execute').run(p, {})
    eq(false, okr)
    matches('^leash: step 1 %(Set commentstring = "no percent s"%): E537', err)
    eq(before, vim.o.commentstring, 'unchanged')
    eq(false, vim.o.list, 'the later step did not run')
  end)
end)
