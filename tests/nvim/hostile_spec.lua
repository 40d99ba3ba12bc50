-- The hostile-plans corpus (tests/data/hostile-plans.jsonl; tests/hostile_plans.rs says
-- what each `expect` means) through the real core and the real executor: every plan is
-- validated natively with the live catalog, and every plan that may run without the
-- window is run with everything approved. No marker file may appear and no forbidden
-- state may change (no terminal job, no URL-named buffer, quickfix entry or argument,
-- 'eventignore' and 'shell' as they were). Plans that must show the window are checked
-- for that and not run: running them is what the user approves.

local root = vim.fn.getcwd()
local dir = vim.fn.tempname() .. '-hostile'
vim.fn.mkdir(dir, 'p')

local function corpus()
  local out = {}
  for n, line in ipairs(vim.fn.readfile(root .. '/tests/data/hostile-plans.jsonl')) do
    if vim.trim(line) ~= '' then
      local case = vim.json.decode(line)
      case.line = n
      out[#out + 1] = case
    end
  end
  return out
end

local function url_name(name) return type(name) == 'string' and name:find('^%a[%w+.-]+:') ~= nil end

--- What must not change, as a table to compare.
local function forbidden_state()
  local s = { eventignore = vim.o.eventignore, shell = vim.o.shell, makeprg = vim.o.makeprg, urls = {}, terminals = 0 }
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if url_name(vim.api.nvim_buf_get_name(b)) then s.urls[#s.urls + 1] = vim.api.nvim_buf_get_name(b) end
    if vim.bo[b].buftype == 'terminal' then s.terminals = s.terminals + 1 end
  end
  for _, a in ipairs(vim.fn.argv()) do
    if url_name(a) then s.urls[#s.urls + 1] = 'arg ' .. a end
  end
  for _, e in ipairs(vim.fn.getqflist()) do
    local name = e.bufnr > 0 and vim.fn.bufname(e.bufnr) or ''
    if url_name(name) then s.urls[#s.urls + 1] = 'qf ' .. name end
  end
  for _, c in ipairs(vim.api.nvim_list_chans()) do
    if c.mode == 'terminal' then s.terminals = s.terminals + 1 end
  end
  return s
end

local function fresh(marker)
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then pcall(vim.api.nvim_win_close, w, true) end
  end
  vim.cmd('silent! tabonly!')
  vim.cmd('silent! only!')
  vim.cmd('enew!')
  vim.cmd('silent! %bwipeout!')
  vim.fn.setqflist({}, 'f')
  vim.fn.setloclist(0, {}, 'f')
  pcall(vim.cmd, 'silent! %argdelete')
  vim.cmd.cd(dir)
  vim.fn.writefile({ 'hello world', 'second line' }, dir .. '/buf.txt')
  -- Text a hostile checkout could hold: an error file and a tags file naming term://.
  vim.fn.writefile({ 'term://touch ' .. marker .. ':1:x' }, dir .. '/evil.txt')
  vim.fn.writefile({ 'foo\tterm://touch ' .. marker .. '\t1' }, dir .. '/tags')
  vim.cmd('silent edit! ' .. vim.fn.fnameescape(dir .. '/buf.txt'))
end

local function text_of(case, marker)
  local text = case.raw or vim.json.encode(case.plan)
  return (text:gsub('{{M}}', marker):gsub('{{D}}', dir))
end

describe('hostile plans', function()
  local cases = corpus()
  local native = require('leash.native').get()

  it('the corpus is there', function() ok(#cases > 100, #cases) end)

  for _, case in ipairs(cases) do
    it(('line %d: %s'):format(case.line, case.name), function()
      local marker = ('%s/m%d'):format(dir, case.line)
      vim.fn.delete(marker)
      fresh(marker)
      local state = assert(require('leash.catalog').get())
      local vok, plan = pcall(native.validate, state.handle, text_of(case, marker), { profile = 'neovim' })
      if not vok then
        eq(case.expect, 'dropped', 'only a dropped plan may fail to parse: ' .. tostring(plan))
        return
      end
      local confirm = require('leash.ui.confirm')
      if case.expect == 'required' then
        ok(plan.confirm == 'required' or #plan.steps == 0, vim.inspect(plan))
        if #plan.steps > 0 then ok(confirm.needs_window(plan, { confirm_before_run = false })) end
        return
      end
      if case.expect == 'dropped' then eq(#plan.steps, 0, vim.inspect(plan.steps)) end
      for _, s in ipairs(plan.steps) do
        if s.reach ~= 'safe' and s.reach ~= 'edit' then
          ok(confirm.needs_window(plan, { confirm_before_run = false }))
        end
      end
      local before = forbidden_state()
      -- Everything approved: run whatever survived.
      pcall(require('leash.execute').run, plan)
      vim.wait(150, function() return vim.uv.fs_stat(marker) ~= nil end)
      eq(vim.uv.fs_stat(marker), nil, 'the marker appeared')
      eq(forbidden_state(), before)
    end)
  end

  it('no marker appeared later either', function()
    vim.wait(500)
    eq(vim.fn.glob(dir .. '/m*', false, true), {})
    vim.cmd.cd(root)
  end)
end)
