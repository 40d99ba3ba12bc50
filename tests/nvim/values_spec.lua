-- Option values as Neovim checks them: the catalog carries what each option takes (from
-- Neovim's completion and runtime files, ranges from the core's tables), the validator
-- refuses the rest with a clear reason, and a value Neovim still refuses fails cleanly.
-- The sweep at the end tries values of every option in a throwaway Neovim
-- (tests/nvim/option_verdicts.lua) and fails wherever leash accepts a value Neovim
-- refuses; where leash is stricter, and how free-text options fare (leash checks only
-- their text; Neovim decides), is printed for information.

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
    eq("'tabstop' = 0 is below the smallest value 1 leash allows", refused('tabstop', 0))
    eq("'shiftwidth' = -1 is below the smallest value 0 leash allows", refused('shiftwidth', -1))
    eq("'textwidth' = -5 is below the smallest value 0 leash allows", refused('textwidth', -5))
    matches('^“mouse” takes flags from .*; "x" is not one of them$', refused('mouse', 'xyz'))
    eq(
      '“clipboard” takes a comma-separated list of unnamed | unnamedplus; "bogus" is not one of them',
      refused('clipboard', 'unnamedplus,bogus')
    )
    matches("'backupcopy' takes exactly one of yes, no, auto", refused('backupcopy', 'yes,no'))
    matches('“signcolumn” takes one of', refused('signcolumn', 'yes:10'))
    matches('“fillchars” takes a comma%-separated list of', refused('fillchars', 'vert:ab'))
    matches('“channel” is not offered: Neovim sets it', refused('channel', 1))
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
    eq('“tabstop” takes a whole number, not "16px"', refused('tabstop', '16px'))
    eq('“tabstop” takes a whole number, not "1e3"', refused('tabstop', '1e3'))
    eq('“tabstop” takes a whole number, not " 16"', refused('tabstop', ' 16'))
    eq('“tabstop” takes a whole number, not 16.5', refused('tabstop', 16.5))
    eq("'tabstop' = 99999999 is above the limit 9999 leash allows", refused('tabstop', 99999999))
    matches('“tabstop” takes a whole number, not ', refused('tabstop', '99999999999999999999'))
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

local nvim = vim.v.progpath

-- Stand-ins for each placeholder of a value pattern: in range and out of it.
local samples = {
  ['{number}'] = { '0', '1', '3', '40', '9999', '10000', '-1', '' },
  ['{char}'] = { 'x', '|', '-', '·', '│', ':', ',', '\t', 'ab', '界', '' },
  ['{name}'] = { 'Normal', 'Search', 'My_Group1', 'a b', '' },
}

--- Instances of a value pattern: the i-th sample in every placeholder, for every i.
local function instances(pattern)
  if not pattern:find('{', 1, true) then return { pattern } end
  local out, i = {}, 1
  while true do
    local any = false
    local s = pattern:gsub('{%a+}', function(p)
      local list = samples[p]
      if not list then return p end
      any = true
      return list[((i - 1) % #list) + 1]
    end)
    out[#out + 1] = s
    i = i + 1
    if not any or i > 11 then break end
  end
  return out
end

--- Values to try for one option, from its catalog entry and its Neovim info.
local function candidates(e, info)
  local t = info.type
  if t == 'boolean' then return { true, false } end
  if t == 'number' then
    local lo, hi = e.min or 0, e.max or 10000
    local list = { lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, -1, 0, 1, 2, 3, 10, 100, 1000, 10000, 2147483647 }
    list[#list + 1] = info.default
    return list
  end
  local default = info.default
  if not e.values then return { '', default, 'xyz', 'a,b', default .. ',xyz' } end
  local singles = {}
  for _, v in ipairs(e.values) do
    vim.list_extend(singles, instances(v))
  end
  local list = { '', 'bogus', default }
  vim.list_extend(list, singles)
  local sep = e.list == 'flags' and '' or ','
  if e.list then
    local firsts = vim.tbl_map(function(v) return instances(v)[1] end, e.values)
    local n = #firsts
    for a = 1, n do
      for b = a + 1, n do
        if n <= 50 or a == 1 then list[#list + 1] = firsts[a] .. sep .. firsts[b] end
      end
      list[#list + 1] = firsts[a] .. sep .. firsts[a]
    end
    if n >= 3 then list[#list + 1] = table.concat(firsts, sep, 1, 3) end
    list[#list + 1] = table.concat(firsts, sep)
    list[#list + 1] = firsts[1] .. sep .. 'bogus'
    list[#list + 1] = firsts[1] .. ','
    list[#list + 1] = ',' .. firsts[1]
    list[#list + 1] = ' ' .. firsts[1]
    if e.list == 'flags' then
      for _, c in ipairs({ 'x', 'y', 'z', 'Q', '#', '0', ',', '*', '9', 'é' }) do
        list[#list + 1] = c
        list[#list + 1] = firsts[1] .. c
      end
    end
  else
    list[#list + 1] = singles[1] .. ',' .. singles[#singles]
    list[#list + 1] = singles[1]:upper()
  end
  return list
end

--- leash's verdict: whether the validator keeps a one-step plan setting `key` to `value`.
local function leash_accepts(key, value)
  local p = set(key, value)
  return #p.steps == 1, p.dropped[1] and p.dropped[1].reason
end

--- Neovim's verdicts, from a throwaway Neovim in a temporary directory.
local function neovim_verdicts(tries)
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local input, output = dir .. '/in.json', dir .. '/out.json'
  local f = assert(io.open(input, 'w'))
  f:write(vim.json.encode(tries))
  f:close()
  local script = vim.fn.getcwd() .. '/tests/nvim/option_verdicts.lua'
  local r = vim.system({ nvim, '--headless', '--clean', '-l', script, input, output }, { cwd = dir }):wait(120000)
  assert(r.code == 0, 'the throwaway Neovim failed: ' .. tostring(r.stderr))
  f = assert(io.open(output, 'r'))
  local out = vim.json.decode(f:read('*a'))
  f:close()
  vim.fn.delete(dir, 'rf')
  return out
end

describe('values sweep', function()
  it('every value leash accepts for a checked option, Neovim accepts too', function()
    local entries = settings()
    local infos = vim.api.nvim_get_all_options_info()
    local names = vim.tbl_keys(infos)
    table.sort(names)
    local tries, checked = {}, {}
    for _, name in ipairs(names) do
      -- An option the catalog leaves out (Neovim refuses to change it) is refused whole.
      local e = entries[name] or {}
      local info = vim.api.nvim_get_option_info2(name, {})
      checked[name] = info.type ~= 'string' or e.values ~= nil or not entries[name]
      local seen = {}
      for _, v in ipairs(candidates(e, info)) do
        local k = vim.inspect(v)
        if not seen[k] then
          seen[k] = true
          tries[#tries + 1] = { name, v }
        end
      end
    end
    local verdicts = neovim_verdicts(tries)
    eq(#tries, #verdicts, 'one verdict per value')

    local n = { values = #tries, agree = 0, stricter = 0, free_values = 0, free_refused = 0, clamped = 0 }
    local wrong, stricter_by_option, free_options, checked_options = {}, {}, 0, 0
    for _, name in ipairs(names) do
      if checked[name] then
        checked_options = checked_options + 1
      else
        free_options = free_options + 1
      end
    end
    for i, t in ipairs(tries) do
      local name, value = t[1], t[2]
      local v = verdicts[i]
      local mine, why = leash_accepts(name, value)
      if v.changed then
        n.clamped = n.clamped + 1
        if os.getenv('LEASH_SWEEP_VERBOSE') and mine then
          io.stdout:write(('     stored differently: %s = %s\n'):format(name, vim.inspect(value)))
        end
      end
      if not checked[name] then
        n.free_values = n.free_values + 1
        if mine and not v.ok then
          n.free_refused = n.free_refused + 1
          if os.getenv('LEASH_SWEEP_VERBOSE') then
            io.stdout:write(('     free text refused: %s = %s (%s)\n'):format(name, vim.inspect(value), v.err))
          end
        end
      elseif mine == v.ok then
        n.agree = n.agree + 1
      elseif mine then
        wrong[#wrong + 1] = ('%s = %s: leash accepts, Neovim refuses (%s)'):format(name, vim.inspect(value), v.err)
      else
        n.stricter = n.stricter + 1
        stricter_by_option[name] = (stricter_by_option[name] or 0) + 1
        if os.getenv('LEASH_SWEEP_VERBOSE') then
          io.stdout:write(('     stricter: %s = %s (%s)\n'):format(name, vim.inspect(value), why))
        end
      end
    end
    local top = vim.tbl_keys(stricter_by_option)
    table.sort(top, function(a, b) return stricter_by_option[a] > stricter_by_option[b] end)
    local most = vim.tbl_map(
      function(k) return ('%s %d'):format(k, stricter_by_option[k]) end,
      vim.list_slice(top, 1, 8)
    )
    io.stdout:write(
      (
        '     sweep: %d options (%d checked, %d free text), %d values tried; checked: %d agree, %d leash-stricter'
        .. ' (most: %s), %d leash-accepts-Neovim-refuses; free text: Neovim refused %d of %d values leash passed on; %d values'
        .. ' Neovim took but stored differently\n'
      ):format(
        #names,
        checked_options,
        free_options,
        n.values,
        n.agree,
        n.stricter,
        table.concat(most, ', '),
        #wrong,
        n.free_refused,
        n.free_values,
        n.clamped
      )
    )
    eq({}, wrong, 'values leash accepts and Neovim refuses')
  end)
end)
