-- Everyday use of :Do against a local model server: :Leash last reopens the last plan
-- without asking again, `e` in the window refines the request with the plan as context,
-- :Do! only shows the plan, <Plug>(leash-do), and the log's outcome lines.

local model = dofile('tests/nvim/model_server.lua')

local WRAP_PLAN = {
  reply = 'Turning on word wrap.',
  steps = { { type = 'setting', key = 'wrap', value = true, why = 'wrap long lines' } },
}
local LOCAL_WRAP_PLAN = {
  reply = 'Only this window.',
  steps = { { type = 'setting', key = 'wrap', value = true, scope = 'local', why = 'this window only' } },
}

local function press(keys) vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, true, true), 'x', false) end

local function float()
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then return w end
  end
end

--- Wait for the plan window, then past the time its keys are ignored (150 ms).
local function wait_window()
  vim.wait(5000, function() return float() ~= nil end, 5)
  local win = float()
  ok(win, 'the plan window opened')
  vim.wait(250, function() return false end, 10)
  return win
end

local function text_of(win)
  local buf = vim.api.nvim_win_get_buf(win)
  local cfg = vim.api.nvim_win_get_config(win)
  local footer = type(cfg.footer) == 'table' and cfg.footer[1] and cfg.footer[1][1] or cfg.footer or ''
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n' .. footer
end

local function wait_closed()
  vim.wait(2000, function() return float() == nil end, 5)
  eq(nil, float(), 'the window closed')
end

--- The outcome lines the log holds, oldest first.
local function outcomes()
  local out = {}
  local path = require('leash.log').path()
  if vim.fn.filereadable(path) == 0 then return out end
  for _, line in ipairs(vim.fn.readfile(path)) do
    local okd, t = pcall(vim.json.decode, line)
    if okd and type(t) == 'table' and t.outcome then out[#out + 1] = t.outcome end
  end
  return out
end

local server

local function start(plans, delay_ms, extra)
  fresh()
  local w = float()
  if w then pcall(vim.api.nvim_win_close, w, true) end
  if server then server.stop() end
  os.remove(require('leash.log').path())
  -- No plan of an earlier test (or spec file) for :Leash last to find.
  os.remove(require('leash.history').plan_path())
  server = model.server(plans, delay_ms or 0)
  model.use(server.port, 'anthropic', extra)
  vim.cmd('silent! only!')
  vim.cmd('enew!')
  vim.o.wrap = false
  vim.wo.wrap = false
end

--- Every string in the request the model got (system prompt and messages), joined.
local function sent_text(request)
  local out = {}
  local function walk(v)
    if type(v) == 'string' then
      out[#out + 1] = v
    elseif type(v) == 'table' then
      for _, x in pairs(v) do
        walk(x)
      end
    end
  end
  walk(vim.json.decode(request.body))
  return table.concat(out, '\n')
end

describe(':Leash last', function()
  it('says there is none before the first plan', function()
    start(WRAP_PLAN)
    local notes, saved = {}, vim.notify
    vim.notify = function(msg) notes[#notes + 1] = msg end
    vim.cmd('Leash last')
    vim.notify = saved
    matches('^leash: no plan yet', notes[1])
  end)

  it('reopens a cancelled plan without asking the model again, and runs it', function()
    start(WRAP_PLAN)
    vim.cmd('Do turn on word wrap')
    local win = wait_window()
    matches('Set wrap', text_of(win))
    press('q')
    wait_closed()
    eq(false, vim.o.wrap, 'cancelled: nothing ran')
    eq(1, #server.requests)

    vim.cmd('Leash last')
    win = wait_window()
    matches('Set wrap', text_of(win))
    press('y')
    wait_closed()
    eq(true, vim.o.wrap, 'the reopened plan ran')
    eq(1, #server.requests, 'the model was not asked again')
    local o = outcomes()
    eq({ 'cancelled', 'ran' }, { o[1].status, o[2].status })
    eq('turn on word wrap', o[2].request)
    eq(1, o[2].steps)
  end)

  it('opens the window even for a plan the rules would run at once', function()
    start(WRAP_PLAN, 0, { confirm_before_run = false })
    vim.cmd('Do turn on word wrap')
    vim.wait(3000, function() return vim.o.wrap end, 5)
    eq(true, vim.o.wrap, 'ran without a window')
    vim.o.wrap = false
    vim.cmd('Leash last')
    wait_window()
    eq(false, vim.o.wrap, 'shown, not run')
    press('q')
    wait_closed()
  end)

  it('shows a plan with nothing to run whole, the reply and what was refused, with no run key', function()
    start({
      reply = 'Making the font bigger.',
      steps = { { type = 'setting', key = 'fontsize', value = 14, why = 'bigger' } },
    })
    vim.cmd('Do make the font bigger')
    vim.wait(3000, function() return #outcomes() > 0 end, 5)
    eq(nil, float(), 'no window for a plan that runs nothing')
    vim.cmd('Leash last')
    local win = wait_window()
    local t = text_of(win)
    matches('Nothing to run%.', t)
    matches('Not run %(refused by the checker%):\n %- unknown setting “fontsize”', t)
    matches('nothing to run · e edit · q/<Esc> close', t)
    press('y')
    press('<CR>')
    vim.wait(200)
    ok(float() ~= nil, 'no key runs it')
    press('q')
    wait_closed()
    -- The log says what it was: nothing to run, not a plan only shown (`:Do!`).
    eq('nothing to run', outcomes()[#outcomes()].status)
  end)
end)

describe(':Leash last after a restart', function()
  it('opens the plan an earlier session kept, without the model, and runs it', function()
    start(WRAP_PLAN)
    vim.cmd('Do! turn on word wrap')
    wait_window()
    press('q')
    wait_closed()
    local path = require('leash.history').plan_path()
    eq(tonumber('600', 8), bit.band(vim.uv.fs_stat(path).mode, tonumber('777', 8)), 'private')
    -- A new session: every leash module starts anew; the plan comes from the file.
    fresh()
    vim.cmd('Leash last')
    local win = wait_window()
    matches('1%. Set wrap: false → true', text_of(win))
    matches('y run', text_of(win))
    press('y')
    wait_closed()
    eq(true, vim.o.wrap, 'the kept plan ran')
    eq(1, #server.requests, 'the model was not asked again')
    eq({ 'shown', 'ran' }, { outcomes()[1].status, outcomes()[2].status })
  end)

  it('checks it against the catalog of now: an item redefined since runs nothing', function()
    vim.api.nvim_create_user_command('LeashSpecKept', function() vim.g.leash_spec_kept = 1 end, { desc = 'mark' })
    start({ reply = 'Marking.', steps = { { type = 'item', id = 'user:LeashSpecKept', why = 'asked' } } })
    vim.cmd('Do! mark it')
    wait_window()
    press('q')
    wait_closed()
    fresh()
    vim.api.nvim_create_user_command('LeashSpecKept', function() vim.g.leash_spec_kept = 2 end, {
      desc = 'something else now',
    })
    local notes, saved = {}, vim.notify
    vim.notify = function(msg) notes[#notes + 1] = msg end
    vim.cmd('Leash last')
    vim.notify = saved
    vim.wait(200)
    eq(nil, float(), 'no window')
    eq(nil, vim.g.leash_spec_kept)
    matches('^leash: nothing runs, the last plan changed: .*LeashSpecKept', notes[1])
    vim.api.nvim_del_user_command('LeashSpecKept')
  end)

  it('an unchanged item of the catalog still matches after the restart', function()
    vim.api.nvim_create_user_command('LeashSpecSame', function() vim.g.leash_spec_same = 1 end, { desc = 'same' })
    start({ reply = 'Marking.', steps = { { type = 'item', id = 'user:LeashSpecSame', why = 'asked' } } })
    vim.cmd('Do! mark it')
    wait_window()
    press('q')
    wait_closed()
    fresh()
    vim.cmd('Leash last')
    wait_window()
    press('y')
    wait_closed()
    eq(1, vim.g.leash_spec_same)
    vim.api.nvim_del_user_command('LeashSpecSame')
  end)

  it('a plan for lines opens only in their file; none is kept for a request that holds a key', function()
    start({ reply = 'Sorting.', steps = { { type = 'item', id = 'cmd:sort', why = 'in order' } } })
    local file = vim.fn.tempname() .. '-kept.txt'
    vim.fn.writefile({ 'c', 'b', 'a' }, file)
    vim.cmd('edit ' .. vim.fn.fnameescape(file))
    vim.cmd('1,2Do! sort these')
    wait_window()
    press('q')
    wait_closed()
    fresh()
    vim.cmd('enew!')
    local notes, saved = {}, vim.notify
    vim.notify = function(msg) notes[#notes + 1] = msg end
    vim.cmd('Leash last')
    vim.wait(100)
    eq(nil, float(), 'not in another buffer')
    matches('^leash: the last plan was for lines 1–2 of .*kept%.txt: open it, then :Leash last', notes[1])
    vim.cmd('edit ' .. vim.fn.fnameescape(file))
    vim.cmd('Leash last')
    matches('Run :sort on lines 1–2', text_of(wait_window()))
    press('y')
    wait_closed()
    vim.notify = saved
    eq({ 'b', 'c', 'a' }, vim.api.nvim_buf_get_lines(0, 0, -1, false))
    vim.cmd('bwipe!')
  end)

  it('keeps no plan for a request that looks like it holds a key, nor the one before it', function()
    start(WRAP_PLAN)
    vim.cmd('Do! turn on word wrap')
    wait_window()
    press('q')
    wait_closed()
    eq(1, vim.fn.filereadable(require('leash.history').plan_path()))
    vim.cmd('Do! wrap, my token is sk-abcdefghijklmnopqrstuvwxyz123456')
    wait_window()
    press('q')
    wait_closed()
    eq(0, vim.fn.filereadable(require('leash.history').plan_path()))
    fresh()
    local notes, saved = {}, vim.notify
    vim.notify = function(msg) notes[#notes + 1] = msg end
    vim.cmd('Leash last')
    vim.notify = saved
    matches('^leash: no plan yet', notes[1])
  end)
end)

describe(':Leash again', function()
  local SORT_PLAN = { reply = 'Sorting.', steps = { { type = 'item', id = 'cmd:sort', why = 'in order' } } }

  it('runs the last plan again on this buffer, checked and previewed anew, without the model', function()
    start(SORT_PLAN)
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'b', 'a' })
    vim.cmd('Do sort the lines')
    wait_window()
    press('y')
    wait_closed()
    eq({ 'a', 'b' }, vim.api.nvim_buf_get_lines(0, 0, -1, false))

    vim.cmd('enew')
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'zebra', 'yak', 'xerus' })
    vim.cmd('Leash again')
    local win = wait_window()
    local text = text_of(win)
    matches('Run :sort', text)
    matches('%- 1 zebra', text, 'the effect on this buffer')
    press('y')
    wait_closed()
    eq({ 'xerus', 'yak', 'zebra' }, vim.api.nvim_buf_get_lines(0, 0, -1, false))
    eq(1, #server.requests, 'the model was asked once')
    eq({ 'ran', 'ran' }, vim.tbl_map(function(o) return o.status end, outcomes()))
  end)

  it('runs on the lines it is given, and says there is no plan before the first', function()
    start(SORT_PLAN)
    local notes, saved = {}, vim.notify
    vim.notify = function(msg) notes[#notes + 1] = msg end
    vim.cmd('Leash again')
    vim.notify = saved
    matches('^leash: no plan yet', notes[1])
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'b', 'a' })
    vim.cmd('Do sort the lines')
    wait_window()
    press('q')
    wait_closed()
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'd', 'c', 'b', 'a' })
    vim.cmd('2,3Leash again')
    matches('Run :sort on lines 2–3', text_of(wait_window()))
    press('y')
    wait_closed()
    eq({ 'd', 'b', 'c', 'a' }, vim.api.nvim_buf_get_lines(0, 0, -1, false))
  end)
end)

describe('refining in the plan window (e)', function()
  it('edits the request, prefilled, and plans again with the earlier plan as context', function()
    start({ WRAP_PLAN, LOCAL_WRAP_PLAN })
    local asked
    local saved = vim.ui.input
    vim.ui.input = function(opts, on_confirm)
      asked = opts
      on_confirm('no, only this window')
    end
    vim.cmd('Do turn on word wrap')
    local win = wait_window()
    matches('e edit', text_of(win), 'the footer names the key')
    press('e')
    vim.wait(5000, function() return #server.requests == 2 end, 5)
    vim.ui.input = saved
    eq('turn on word wrap', asked and asked.default, 'the old request, to edit')
    eq(false, vim.o.wrap, 'nothing of the first plan ran')
    local sent = sent_text(server.requests[2])
    matches('Earlier request: turn on word wrap', sent)
    ok(sent:find('"key":"wrap"', 1, true), sent)
    matches('Request: no, only this window', sent)

    win = wait_window()
    matches('Set wrap', text_of(win))
    press('y')
    wait_closed()
    eq(true, vim.wo.wrap, 'the refined plan ran')
    eq(false, vim.go.wrap, 'locally, as refined')
    local o = outcomes()
    eq({ 'edited', 'ran' }, { o[1].status, o[2].status }, vim.inspect(o))
    eq('no, only this window', o[2].request)
  end)

  it('keeps the lines of a Visual selection the first plan was for', function()
    start(WRAP_PLAN)
    local saved = vim.ui.input
    vim.ui.input = function(_, on_confirm) on_confirm('sort them instead') end
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'a', 'b', 'c', 'd' })
    -- What a Visual-mode mapping to `<Cmd>Do …<CR>` gives: the selection, no range.
    vim.cmd('normal! 2GVj')
    require('leash').run('turn on word wrap')
    press('<Esc>')
    wait_window()
    press('e')
    vim.wait(5000, function() return #server.requests == 2 end, 5)
    vim.ui.input = saved
    matches('lines 2%-3', sent_text(server.requests[1]))
    matches('lines 2%-3', sent_text(server.requests[2]))
  end)

  it('changes a plan for lines only in their own buffer', function()
    start(WRAP_PLAN)
    local saved, saved_notify = vim.ui.input, vim.notify
    local notes = {}
    vim.ui.input = function(_, on_confirm) on_confirm('sort them instead') end
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'a', 'b', 'c', 'd' })
    vim.cmd('2,3Do turn on word wrap')
    wait_window()
    press('q')
    wait_closed()
    vim.cmd('enew')
    vim.cmd('Leash last')
    wait_window()
    vim.notify = function(msg) notes[#notes + 1] = msg end
    press('e')
    vim.wait(300)
    vim.ui.input, vim.notify = saved, saved_notify
    eq(1, #server.requests, 'not planned again in another buffer')
    matches('that plan was for lines 2–3 of buffer %d+; go back to that buffer', table.concat(notes, '\n'))
  end)

  it('an empty or dismissed edit plans nothing, and says so and how to get the plan back', function()
    start(WRAP_PLAN)
    local saved, saved_notify = vim.ui.input, vim.notify
    local notes = {}
    vim.ui.input = function(_, on_confirm) on_confirm(nil) end
    vim.cmd('Do turn on word wrap')
    wait_window()
    vim.notify = function(msg) notes[#notes + 1] = msg end
    press('e')
    wait_closed()
    vim.wait(300, function() return #server.requests > 1 end, 10)
    vim.ui.input, vim.notify = saved, saved_notify
    eq(1, #server.requests)
    eq(false, vim.o.wrap)
    notes = vim.tbl_filter(function(n) return not n:find('planning with') end, notes)
    eq({ 'leash: edit cancelled, nothing ran (:Leash last reopens it)' }, notes)
    vim.cmd('Leash last')
    matches('Set wrap', text_of(wait_window()))
    press('q')
    wait_closed()
  end)
end)

describe(':Do! (plan only)', function()
  it('shows the plan with no run key and says so in the footer', function()
    start(WRAP_PLAN)
    vim.cmd('Do! turn on word wrap')
    local win = wait_window()
    local t = text_of(win)
    matches('Set wrap', t)
    matches('plan only %(:Do!%), nothing runs', t)
    ok(not t:find('run ·', 1, true), t)
    press('<CR>')
    press('y')
    eq(win, float(), 'the run keys do nothing')
    eq(false, vim.o.wrap)
    press('q')
    wait_closed()
    eq(false, vim.o.wrap)
    eq('shown', outcomes()[1].status)

    -- Reviewed, it runs from :Leash last with the run key, without asking the model again.
    vim.cmd('Leash last')
    win = wait_window()
    ok(not text_of(win):find('plan only'), text_of(win))
    press('y')
    wait_closed()
    eq(true, vim.o.wrap)
    eq(1, #server.requests)
    eq('ran', outcomes()[2].status)
  end)
end)

describe(':Leash last checks the plan again against the catalog of now', function()
  local function notes_of(fn)
    local notes, saved = {}, vim.notify
    vim.notify = function(msg, level) notes[#notes + 1] = { msg = msg, level = level } end
    fn()
    vim.notify = saved
    return notes
  end

  it('runs nothing and says what when an item it names is gone', function()
    vim.api.nvim_create_user_command('LeashSpecMark', function() vim.g.leash_spec_mark = 1 end, { desc = 'mark' })
    start({ reply = 'Marking.', steps = { { type = 'item', id = 'user:LeashSpecMark', why = 'asked' } } })
    vim.cmd('Do! mark it')
    wait_window()
    press('q')
    wait_closed()
    vim.api.nvim_del_user_command('LeashSpecMark')
    local notes = notes_of(function() vim.cmd('Leash last') end)
    vim.wait(200)
    eq(nil, float(), 'no window')
    eq(nil, vim.g.leash_spec_mark)
    eq(vim.log.levels.WARN, notes[1].level)
    matches('^leash: nothing runs, the last plan changed: .*LeashSpecMark', notes[1].msg)
    eq('changed', outcomes()[#outcomes()].status)
  end)

  it('runs nothing when an item it names was redefined', function()
    vim.api.nvim_create_user_command('LeashSpecMark', function() vim.g.leash_spec_mark = 1 end, { desc = 'mark' })
    start({ reply = 'Marking.', steps = { { type = 'item', id = 'user:LeashSpecMark', why = 'asked' } } })
    vim.cmd('Do! mark it')
    wait_window()
    press('q')
    wait_closed()
    vim.api.nvim_create_user_command('LeashSpecMark', function() vim.g.leash_spec_mark = 2 end, {
      desc = 'something else now',
      nargs = '?',
    })
    local notes = notes_of(function() vim.cmd('Leash last') end)
    vim.wait(200)
    eq(nil, float(), 'no window')
    matches('user:LeashSpecMark', notes[1].msg)
    vim.api.nvim_del_user_command('LeashSpecMark')
  end)

  it('runs nothing when a step reaches further now (a raise rule of the config)', function()
    start(WRAP_PLAN)
    vim.cmd('Do turn on word wrap')
    wait_window()
    press('q')
    wait_closed()
    require('leash.config').options.raise = { { pattern = 'wrap', reach = 'shell' } }
    local notes = notes_of(function() vim.cmd('Leash last') end)
    require('leash.config').options.raise = nil
    vim.wait(200)
    eq(nil, float(), 'no window')
    matches('Set wrap = true: was %[safe%], is now %[shell%]', notes[1].msg)
    eq(false, vim.o.wrap)
  end)
end)

describe('the log records what became of each request', function()
  it('failed (with the message and how many steps ran) and nothing to run', function()
    start({
      {
        reply = 'two steps',
        steps = {
          { type = 'setting', key = 'wrap', value = true },
          { type = 'item', id = 'cmd:buffer', args = { '98765' } },
        },
      },
      { reply = 'Already done.', steps = {} },
    })
    vim.cmd('Do turn on wrap and go to buffer 98765')
    wait_window()
    press('y')
    wait_closed()
    vim.wait(3000, function() return #outcomes() == 1 end, 10)
    local o = outcomes()[1]
    eq('failed', o.status)
    eq(1, o.steps, 'the first step ran')
    matches('^leash: step 2', o.error)

    vim.cmd('Do nothing at all')
    vim.wait(3000, function() return #outcomes() == 2 end, 10)
    eq('nothing to run', outcomes()[2].status)
  end)

  it('a request whose planning failed, with the message', function()
    start(WRAP_PLAN)
    server.stop() -- nothing listens there now: the connection is refused
    server = nil
    vim.cmd('Do turn on word wrap')
    vim.wait(8000, function() return #outcomes() == 1 end, 10)
    local o = outcomes()[1]
    eq({ 'turn on word wrap', 'failed', 0 }, { o and o.request, o and o.status, o and o.steps })
    matches('connection refused', o.error)
  end)

  it('a request cancelled while planning', function()
    start(WRAP_PLAN, 5000)
    vim.cmd('Do turn on word wrap')
    vim.wait(2000, function() return #server.requests == 1 end, 5)
    vim.cmd('Leash cancel')
    vim.wait(1000, function() return #outcomes() == 1 end, 10)
    local o = outcomes()[1]
    eq({ 'turn on word wrap', 'cancelled while planning', 0 }, { o.request, o.status, o.steps })
    ok(type(o.time_ms) == 'number' and o.time_ms > 1.6e12, 'a time')
  end)
end)

describe('<Plug>(leash-do)', function()
  it('opens the :Do command line, on the selected lines in Visual mode', function()
    fresh()
    vim.cmd('enew!')
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'a', 'b', 'c' })
    vim.keymap.set({ 'n', 'x' }, '<Space>d', '<Plug>(leash-do)')
    local seen
    vim.api.nvim_create_autocmd('CmdlineLeave', { callback = function() seen = vim.fn.getcmdline() end })
    press('<Space>d<C-c>')
    eq('Do ', seen)
    press('ggVj<Space>d<C-c>')
    eq("'<,'>Do ", seen)
  end)

  it('<Plug>(leash-do-line) and <Plug>(leash-do-selection) ask for the request, which runs on those lines', function()
    fresh()
    vim.cmd('enew!')
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'a', 'b', 'c', 'd' })
    vim.keymap.set('n', '<Space>l', '<Plug>(leash-do-line)')
    vim.keymap.set('x', '<Space>s', '<Plug>(leash-do-selection)')
    local leash = require('leash')
    local input, run = vim.ui.input, leash.run
    local prompts, runs = {}, {}
    vim.ui.input = function(opts, on_confirm)
      prompts[#prompts + 1] = opts.prompt
      on_confirm('sort these')
    end
    leash.run = function(request, opts) runs[#runs + 1] = { request, opts.range, opts.line1, opts.line2 } end
    press('3G<Space>l')
    press('ggVj<Space>s')
    vim.ui.input, leash.run = input, run
    eq({ 'leash: what should Neovim do on line 3? ', 'leash: what should Neovim do on lines 1–2? ' }, prompts)
    eq({ { 'sort these', 1, 3, 3 }, { 'sort these', 2, 1, 2 } }, runs)
    eq('n', vim.fn.mode(), 'Visual mode was left')
  end)
end)
