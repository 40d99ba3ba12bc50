-- The user's range: `:2,4Do …` and `:'<,'>Do …` run commands that take a range on those
-- lines, say so in the plan window, and nothing the model writes can set or move a range.

local native = require('leash.native').get()

local function floats()
  return vim.tbl_filter(function(w) return vim.api.nvim_win_get_config(w).relative ~= '' end, vim.api.nvim_list_wins())
end

local function press(keys) vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, true, true), 'x', false) end

local function lines() return vim.api.nvim_buf_get_lines(0, 0, -1, false) end

--- A scratch buffer with these lines, cursor on line 1, no window but this one.
local function buffer(text)
  for _, w in ipairs(floats()) do
    pcall(vim.api.nvim_win_close, w, true)
  end
  vim.cmd('silent! only!')
  local buf = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_set_current_buf(buf)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, text)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  return buf
end

--- Validate the model's plan (a Lua table) with the real core, with or without a range.
local function validate(model, range)
  local state = assert(require('leash.catalog').get())
  local opts = { profile = 'neovim', context = range and { range = range } or nil }
  return native.validate(state.handle, vim.json.encode(model), opts)
end

--- Run `:{cmdline}` (a `:Do`), wait for the plan window, and return its text.
local function do_and_show(cmdline)
  require('leash').setup({ provider = 'offline' })
  vim.cmd(cmdline)
  ok(vim.wait(10000, function() return #floats() > 0 end), 'the plan window opens')
  local win = floats()[1]
  return table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), '\n'), win
end

describe('the user range', function()
  before_each(function() require('leash.config').setup({}) end)

  it('the catalog knows which commands take a line range, from Neovim', function()
    local by_id = {}
    for _, e in ipairs(require('leash.catalog').entries()) do
      if e.id then by_id[e.id] = e end
    end
    for _, name in ipairs({ 'sort', 'substitute', 'write', 'delete', 'retab', '!', 'lua' }) do
      eq(true, by_id['cmd:' .. name].range, name)
    end
    -- Buffers, windows and counts are not lines; :edit takes no range at all.
    for _, name in ipairs({ 'bdelete', 'resize', 'wincmd', 'edit', 'make', 'nohlsearch' }) do
      eq(nil, by_id['cmd:' .. name].range, name)
    end
  end)

  it(':2,4Do sorts lines 2 to 4 and the plan window says so', function()
    buffer({ 'e', 'd', 'c', 'b', 'a' })
    local text = do_and_show('2,4Do sort')
    matches('Run :sort on lines 2–4', text)
    vim.wait(200, function() return false end) -- let the run key arm
    press('<CR>')
    eq({ 'e', 'b', 'c', 'd', 'a' }, lines())
  end)

  it(":'<,'>Do after a Visual selection runs on the selected lines", function()
    buffer({ 'e', 'd', 'c', 'b', 'a' })
    vim.api.nvim_win_set_cursor(0, { 3, 0 })
    vim.cmd('normal! Vj\27')
    local text = do_and_show("'<,'>Do sort")
    matches('Run :sort on lines 3–4', text)
    vim.wait(200, function() return false end)
    press('<CR>')
    eq({ 'e', 'd', 'b', 'c', 'a' }, lines())
  end)

  it(':Do without a range runs as before: the command chooses its own lines', function()
    buffer({ 'e', 'd', 'c', 'b', 'a' })
    local text = do_and_show('Do sort')
    ok(not text:find(' on line', 1, true), text)
    vim.wait(200, function() return false end)
    press('<CR>')
    eq({ 'a', 'b', 'c', 'd', 'e' }, lines())
  end)

  it('the model is told a selection exists and how many lines it has', function()
    buffer({ 'a', 'b', 'c', 'd' })
    local context = require('leash.context')
    eq({ 2, 4, buf = vim.api.nvim_get_current_buf() }, context.range({ range = 2, line1 = 2, line2 = 4 }))
    eq({ 3, 3, buf = vim.api.nvim_get_current_buf() }, context.range({ range = 1, line1 = 3, line2 = 3 }))
    eq(nil, context.range({ range = 0, line1 = 1, line2 = 1 }))
    -- A <Cmd> mapping from Visual mode: still in Visual mode, no range given.
    vim.api.nvim_win_set_cursor(0, { 4, 0 })
    vim.cmd('normal! Vk')
    local live = context.range({ range = 0 })
    vim.cmd('normal! \27')
    eq({ 3, 4, buf = vim.api.nvim_get_current_buf() }, live)
    -- What the prompt's context line says, for both forms.
    local state = assert(require('leash.catalog').get())
    for _, opts in ipairs({ { range = 2, line1 = 2, line2 = 4 }, { range = 2, line1 = 1, line2 = 3 } }) do
      local c = require('leash.planner')._prompt_context(context.get(opts))
      local p = native.prompt(state.handle, 'sort these lines', { context = c })
      matches(
        ('selection: 3 lines %%(lines %d%%-%d; commands that take a range run on them%%)'):format(
          opts.line1,
          opts.line2
        ),
        p.user
      )
    end
    local c = require('leash.planner')._prompt_context(context.get({ range = 1, line1 = 2, line2 = 2 }))
    matches('selection: 1 line %(lines 2%-2', native.prompt(state.handle, 'x', { context = c }).user)
    c = require('leash.planner')._prompt_context(context.get({ range = 0 }))
    matches('selection: none', native.prompt(state.handle, 'x', { context = c }).user)
  end)

  it('a range in the model text is never read', function()
    local model = {
      steps = {
        { type = 'item', id = 'cmd:sort', range = { 1, 99 } },
        { type = 'item', id = 'cmd:delete', line1 = 1, line2 = 99 },
        { type = 'item', id = 'cmd:nohlsearch', range = { 1, 2 } },
      },
    }
    local p = validate(model)
    eq(3, #p.steps)
    for _, s in ipairs(p.steps) do
      eq(nil, s.range, s.id)
    end
    p = validate(model, { 5, 6 })
    eq({ 5, 6 }, p.steps[1].range)
    eq('Run :sort on lines 5–6', p.steps[1].label)
    eq({ 5, 6 }, p.steps[2].range)
    eq(nil, p.steps[3].range, ':nohlsearch takes no range')
  end)

  it('the executor runs a step on the user range only as the window showed it', function()
    local buf = buffer({ 'e', 'd', 'c', 'b', 'a' })
    local execute = require('leash.execute')
    local user = { 2, 3, buf = buf }
    local shown = validate({ steps = { { type = 'item', id = 'cmd:sort' } } }, { 2, 3 })
    local unshown = validate({ steps = { { type = 'item', id = 'cmd:sort' } } })

    local okr, err = execute.run(shown, {})
    eq(false, okr)
    matches('you gave none', err)
    okr, err = execute.run(shown, { range = { 1, 5, buf = buf } })
    eq(false, okr)
    matches('not the lines you gave', err)
    okr, err = execute.run(unshown, { range = user })
    eq(false, okr)
    matches('did not show this step with your lines', err)
    local other = vim.api.nvim_create_buf(true, true)
    okr, err = execute.run(shown, { range = { 2, 3, buf = other } })
    eq(false, okr)
    matches('not in the current one', err)
    eq({ 'e', 'd', 'c', 'b', 'a' }, lines(), 'nothing ran')

    okr, err = execute.run(shown, { range = user })
    eq(true, okr, err)
    eq({ 'e', 'c', 'd', 'b', 'a' }, lines())
  end)

  it('a command that takes no range runs as before when the user gave one', function()
    buffer({ 'a', 'b' })
    vim.o.hlsearch = true
    vim.fn.setreg('/', 'a')
    local p = validate({ steps = { { type = 'item', id = 'cmd:nohlsearch' } } }, { 1, 2 })
    eq(nil, p.steps[1].range)
    local okr, err = require('leash.execute').run(p, { range = { 1, 2, buf = vim.api.nvim_get_current_buf() } })
    eq(true, okr, err)
  end)

  it('a command that would run the selected lines as code is dropped, with the reason', function()
    buffer({ 'print(1)', 'vim.g.leash_ran_lines = true', 'print(3)' })
    local p = validate({
      steps = {
        { type = 'item', id = 'cmd:lua' },
        { type = 'item', id = 'cmd:source' },
        { type = 'item', id = 'cmd:luado', args = 'return line:upper()' },
      },
    }, { 2, 3 })
    eq({ 'Run :luado return line:upper() on lines 2–3' }, vim.tbl_map(function(s) return s.label end, p.steps))
    eq({ 'code_on_range', 'code_on_range' }, vim.tbl_map(function(d) return d.code end, p.dropped))
    matches('would run lines 2–3 as code, and the plan window does not show them', p.dropped[1].reason)
    -- Without a range :lua runs only its argument, which the window shows.
    p = validate({ steps = { { type = 'item', id = 'cmd:lua', args = 'vim.g.leash_arg = 1' } } })
    eq(1, #p.steps)
    eq(nil, vim.g.leash_ran_lines)
  end)

  it('a user command defined with -range gets the lines too', function()
    local buf = buffer({ 'a', 'b', 'c' })
    vim.api.nvim_create_user_command('LeashUpper', function(o)
      local l = vim.api.nvim_buf_get_lines(0, o.line1 - 1, o.line2, false)
      vim.api.nvim_buf_set_lines(0, o.line1 - 1, o.line2, false, vim.tbl_map(string.upper, l))
    end, { range = true, desc = 'upper-case lines' })
    vim.api.nvim_create_user_command('LeashNoRange', function() end, {})
    local by_id = {}
    for _, e in ipairs(require('leash.catalog').entries()) do
      if e.id then by_id[e.id] = e end
    end
    eq(true, by_id['user:LeashUpper'].range)
    eq(nil, by_id['user:LeashNoRange'].range)
    local p = validate({ steps = { { type = 'item', id = 'user:LeashUpper' } } }, { 2, 3 })
    eq('Run :LeashUpper on lines 2–3', p.steps[1].label)
    local okr, err = require('leash.execute').run(p, { range = { 2, 3, buf = buf } })
    eq(true, okr, err)
    eq({ 'a', 'B', 'C' }, lines())
    vim.api.nvim_del_user_command('LeashUpper')
    vim.api.nvim_del_user_command('LeashNoRange')
  end)
end)
