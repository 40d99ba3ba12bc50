-- lua/leash/preview.lua: the dry run of every text-changing step in the plan window.
-- Each previewed command: the diff the window shows, applied to the text before, is the
-- buffer after `y`; cancelling leaves the buffer, its undo tree, 'modified', marks, the
-- jumplist, registers and the search state as they were. Hostile plans: an expression
-- replacement, a :global running :normal with a user's mapping, a buffer of 100,000
-- lines, a buffer that changes between the preview and `y`.

local dir = vim.fn.tempname()
vim.fn.mkdir(dir, 'p')
local marker = dir .. '/pwned'

local function exists(path) return vim.uv.fs_stat(path) ~= nil end

local function press(keys) vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, true, true), 'x', false) end

local function float()
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then return w end
  end
end

local function lines(buf) return vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false) end

--- Lines as the window shows them (a tab as ^I).
local function visible(list) return vim.tbl_map(require('leash.text').visible, list) end

--- Scroll through the plan window until every row was seen (the run key waits for it).
local function read_all()
  local handle = require('leash.ui.confirm.state').current
  for _ = 1, 40 do
    if handle.status() ~= 'unread' then return end
    vim.cmd('redraw')
    press('<C-d>')
  end
end

--- Validate `steps` (as a model writes them) with the real core, on the user's lines.
local function validate(steps, range)
  local native = require('leash.native').get()
  local state = assert(require('leash.catalog').get())
  local model = vim.json.encode({ reply = '', steps = steps })
  return native.validate(state.handle, model, { profile = 'neovim', context = { range = range } })
end

local function cmd(name, ...) return { type = 'item', id = 'cmd:' .. name, args = { ... } } end

--- Show `p` in the plan window (the real path of a plan); returns the window's text
--- and a table whose `ran` becomes true or false once the plan has an outcome.
local function show(p, range)
  local result = {}
  require('leash.execute').confirm_and_run(p, {
    config = { confirm_before_run = true },
    range = range,
    on_done = function(ran) result.ran = ran end,
  })
  local win = float()
  assert(win, 'the plan window opened')
  vim.wait(200, function() return false end) -- let the run key arm
  return lines(vim.api.nvim_win_get_buf(win)), result
end

--- The buffer's text after the diffs the window shows, step after step: the removed
--- lines (numbered before the step) go, the added ones (numbered after it) come in.
local function apply_shown(before, window)
  local text = visible(before)
  local removed, added, in_diff = {}, {}, false
  local function flush()
    if not in_diff then return end
    local out, old = {}, 1
    local total = #text - vim.tbl_count(removed) + vim.tbl_count(added)
    for n = 1, total do
      if added[n] then
        out[n] = added[n]
      else
        while removed[old] do
          old = old + 1
        end
        out[n] = text[old]
        old = old + 1
      end
    end
    text, removed, added, in_diff = out, {}, {}, false
  end
  for _, row in ipairs(window) do
    if row:find('^%s*%d+%. ') then flush() end
    -- The window drops a blank line's trailing space.
    local sign, n, line = row:match('^%s+([-+]) +(%d+) ?(.*)$')
    if sign then
      in_diff = true
      if sign == '-' then
        removed[tonumber(n)] = true
      else
        added[tonumber(n)] = line
      end
    end
    ok(not row:find('more changed line', 1, true), 'the whole diff is shown: ' .. row)
  end
  flush()
  return text
end

--- Everything a dry run must leave alone, for buffer `buf` and the editor around it.
local function snapshot(buf)
  local tree = vim.fn.undotree(buf)
  local regs = {}
  for _, r in ipairs({ '"', '-', '0', '1', '2', 'a', 'z' }) do
    regs[r] = vim.fn.getreginfo(r)
  end
  return {
    text = lines(buf),
    tick = vim.api.nvim_buf_get_changedtick(buf),
    seq = { tree.seq_cur, tree.seq_last, #tree.entries },
    modified = vim.bo[buf].modified,
    marks = {
      vim.api.nvim_buf_get_mark(buf, 'a'),
      vim.api.nvim_buf_get_mark(buf, '['),
      vim.api.nvim_buf_get_mark(buf, ']'),
    },
    jumps = vim.fn.getjumplist(),
    cursor = vim.api.nvim_win_get_cursor(0),
    regs = regs,
    search = { vim.fn.getreg('/'), vim.fn.histget('/', -1), vim.fn.histget('/', -2), vim.v.hlsearch },
    bufs = #vim.api.nvim_list_bufs(),
    wins = #vim.api.nvim_list_wins(),
    options = { vim.bo[buf].tabstop, vim.bo[buf].shiftwidth, vim.o.ignorecase, vim.o.clipboard, vim.o.eventignore },
  }
end

local function reset()
  vim.cmd.cd(dir) -- the window names the file relative to it: fruit.txt
  local w = float()
  if w then pcall(vim.api.nvim_win_close, w, true) end
  vim.cmd('silent! only!')
  vim.cmd('enew!')
  vim.cmd('silent! %bwipeout!')
  -- Neovim (0.11.4 and 0.12) crashes in `nvim -l` when the screen is taller than 24 rows
  -- and line-count reports ("17 fewer lines") pile up before a :redraw; the reports say
  -- nothing these specs check, so they are switched off.
  vim.o.report = 100000
  vim.o.lines, vim.o.columns = 60, 120
  vim.bo.tabstop, vim.bo.shiftwidth, vim.bo.expandtab, vim.bo.textwidth = 8, 8, false, 0
  vim.fn.delete(marker)
end

--- A buffer holding `text`, its own file name, the cursor on `line`, a fresh undo step.
local function buffer(text, line)
  vim.api.nvim_buf_set_name(0, dir .. '/fruit.txt')
  vim.api.nvim_buf_set_lines(0, 0, -1, false, text)
  vim.bo.undolevels = vim.bo.undolevels
  vim.api.nvim_win_set_cursor(0, { line or 1, 0 })
  return vim.api.nvim_get_current_buf()
end

local fruit = { 'pear', 'apple 3', '', 'fig x', 'apple 10', '', 'banana x' }

-- Each previewed command: { name, steps, cursor line, range?, text? }.
local commands = {
  { ':sort', { cmd('sort') } },
  { ':sort n', { cmd('sort', 'n') } },
  { ':sort with a pattern', { cmd('sort', '/\\a\\+ /') } },
  { ':substitute on the current line', { cmd('substitute', '/a/A/g') }, 2 },
  { ':substitute on the lines given', { cmd('substitute', '#p#P#') }, 1, { 1, 5 } },
  { ':global with :delete', { cmd('global', '/^$/d') } },
  { ':vglobal with :delete', { cmd('vglobal', '/apple/d') } },
  { ':global with :substitute', { cmd('global', '/x$/s/x/X/') } },
  { ':global with :move', { cmd('global', '/apple/m0') } },
  { ':global with :join', { cmd('global', '/^fig/j') } },
  { ':retab', { cmd('retab', '4') }, 1, nil, { '\tpear', '\t\tapple', '  fig' } },
  { ':left', { cmd('left', '2') }, 1, { 1, 3 }, { '   pear', '  apple', 'fig' } },
  { ':center', { cmd('center', '20') }, 2 },
  { ':right', { cmd('right', '20') }, 1, { 1, 7 } },
  { ':move', { cmd('move', '0') }, 5 },
  { ':copy', { cmd('copy', '$') }, 2 },
  { ':t', { cmd('t', '0') }, 4 },
  { ':delete', { cmd('delete') }, 2 },
  { ':join', { cmd('join') }, 1 },
  { ':join on the lines given', { cmd('join') }, 1, { 2, 4 } },
  { ':> on the current line', { cmd('>') }, 2 },
  { ':> on the lines given', { cmd('>') }, 1, { 1, 3 }, { 'pear', '\tapple', '', 'fig' } },
  { ':< on the lines given', { cmd('<') }, 1, { 1, 4 }, { '\t\tpear', '    apple', '', '\tfig' } },
  { ':>> on the lines given', { cmd('>', '>') }, 1, { 1, 2 } },
  { ':< with a count', { cmd('<', '2') }, 2, nil, { '\t\tpear', '\tapple', '\tfig' } },
  { ':move on the lines given', { cmd('move', '$') }, 1, { 1, 2 } },
  { ':copy on the lines given', { cmd('copy', '0') }, 1, { 4, 5 } },
  {
    ':sort, then :global with :substitute, then :global with :delete',
    { cmd('sort'), cmd('global', '/^a/s/a/A/'), cmd('global', '/^$/d') },
  },
  { 'a setting the next step reads', { { type = 'setting', key = 'ignorecase', value = true }, cmd('sort', 'u') } },
}

describe('the dry run of each previewed command', function()
  before_each(function()
    fresh()
    reset()
    -- Whole diffs of these small buffers in the window (the fold has a test of its own).
    require('leash.preview').fold = 50
  end)

  for _, c in ipairs(commands) do
    it(c[1] .. ': the diff shown is the buffer after y', function()
      local buf = buffer(c[5] or fruit, c[3])
      local range = c[4] and { c[4][1], c[4][2], buf = buf } or nil
      local p = validate(c[2], c[4])
      eq(#c[2], #p.steps, vim.inspect(p.dropped))
      local before = lines(buf)
      local window, result = show(p, range)
      local shown = apply_shown(before, window)
      ok(table.concat(window, '\n'):find(' in fruit.txt', 1, true), table.concat(window, '\n'))
      press('y')
      vim.wait(500, function() return result.ran ~= nil end)
      eq(true, result.ran)
      eq(shown, visible(lines(buf)), c[1] .. ' / ' .. table.concat(window, ' / '))
      ok(not vim.deep_equal(before, lines(buf)), 'the step changed the text')
    end)
  end

  it(":> and :< shift by one 'shiftwidth', in the preview and when run", function()
    local buf = buffer({ 'pear', '  apple', '', '        fig' })
    vim.bo.shiftwidth, vim.bo.expandtab = 4, true
    local range = { 1, 4, buf = buf }
    local p = validate({ cmd('>') }, { 1, 4 })
    local window, result = show(p, range)
    local all = table.concat(window, '\n')
    matches('%+ +1     pear', all)
    matches('%+ +2       apple', all)
    press('y')
    vim.wait(500, function() return result.ran ~= nil end)
    -- An empty line gets no indent, as when typed.
    eq({ '    pear', '      apple', '', '            fig' }, lines(buf))
    p = validate({ cmd('<') }, { 1, 4 })
    window, result = show(p, range)
    matches('%+ +4         fig', table.concat(window, '\n'))
    press('y')
    vim.wait(500, function() return result.ran ~= nil end)
    eq({ 'pear', '  apple', '', '        fig' }, lines(buf))
    -- Two more signs, a count of two lines from the cursor's: three 'shiftwidth's.
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    p = validate({ cmd('>', '>> 2') })
    window, result = show(p)
    matches('%+ +2               apple', table.concat(window, '\n'))
    press('y')
    vim.wait(500, function() return result.ran ~= nil end)
    eq({ '            pear', '              apple', '', '        fig' }, lines(buf))
    -- Anything else is refused by the core before a window opens.
    for _, bad in ipairs({ '<', '>x', '2 3', '0' }) do
      p = validate({ cmd('>', bad) })
      eq(0, #p.steps, bad)
    end
  end)

  it('cancelling leaves the buffer, its undo tree, marks, registers and search as they were', function()
    local buf = buffer(fruit, 2)
    vim.bo.modified = false
    vim.api.nvim_buf_set_mark(buf, 'a', 4, 0, {})
    vim.fn.histadd('/', 'older')
    vim.fn.setreg('/', 'kept')
    vim.fn.histadd('/', 'kept')
    vim.fn.setreg('"', 'mine')
    vim.fn.setreg('a', 'named')
    vim.o.clipboard = ''
    vim.cmd('normal! m`')
    local p = validate({
      { type = 'setting', key = 'ignorecase', value = true },
      { type = 'setting', key = 'shiftwidth', value = 2 },
      cmd('sort'),
      cmd('move', "'a"),
      cmd('global', '/a/s/a/A/g'),
      cmd('global', '/^$/d'),
      cmd('global', '/fig/d a'),
      cmd('retab', '4'),
      cmd('join'),
    })
    eq(9, #p.steps, vim.inspect(p.dropped))
    local before = snapshot(buf)
    local window, result = show(p)
    for n = 3, 9 do
      local row = table.concat(window, '\n'):match('\n%s*' .. n .. '%. [^\n]*\n[^\n]*')
      ok(row and (row:find('in fruit.txt', 1, true) or row:find('no change', 1, true)), tostring(row))
    end
    press('q')
    vim.wait(500, function() return result.ran ~= nil end)
    eq(false, result.ran)
    local after = snapshot(buf)
    for k, v in pairs(before) do
      eq(v, after[k], k)
    end
  end)

  it('lines beyond the fold are shown with =, and must be read again', function()
    require('leash.preview').fold = 12
    local text = {}
    for i = 1, 40 do
      text[i] = ('line %02d'):format(41 - i)
    end
    local buf = buffer(text)
    require('leash.execute').confirm_and_run(validate({ cmd('sort') }), { config = { confirm_before_run = true } })
    vim.wait(200, function() return false end)
    local window = lines(vim.api.nvim_win_get_buf(float()))
    local all = table.concat(window, '\n')
    matches('more changed lines: = shows them', all)
    ok(#window < 30, 'folded: ' .. #window .. ' rows')
    press('=')
    local win = float()
    local unfolded = lines(vim.api.nvim_win_get_buf(win))
    ok(#unfolded > 40, 'unfolded: ' .. #unfolded .. ' rows')
    local status = require('leash.ui.confirm.state').current.status()
    ok(status == 'unread' or status == 'ready', status)
    read_all()
    press('y')
    vim.wait(300, function() return float() == nil end)
    eq(apply_shown(text, unfolded), lines(buf))
  end)
end)

describe('the text the dry run reads back', function()
  before_each(function()
    fresh()
    reset()
  end)

  -- Only the part of the copy a step changed is read back: for each plan, the copy's
  -- text at the end is the buffer's after its steps ran for real, each through the
  -- commands source as the executor runs it (the executor's own path, the process guard
  -- included, is what the tests above check after y).
  local plans = {
    { 'one line of many', { cmd('substitute', '/apple/APPLE/') }, 50 },
    { 'lines given', { cmd('sort') }, 1, { 20, 40 } },
    { 'scattered deletes', { cmd('global', '/fig/d') } },
    { 'moves to the top', { cmd('global', '/pear/m0') } },
    { 'joins', { cmd('global', '/kiwi/j') } },
    { 'copies to the end', { cmd('copy', '$') }, 10, { 5, 9 } },
    { 'everything deleted', { cmd('delete') }, 1, { 1, 120 } },
    { 'a step that changes nothing, then one that does', { cmd('global', '/nothing/d'), cmd('delete') }, 120 },
    { 'several steps', { cmd('sort'), cmd('global', '/^$/d'), cmd('global', '/a/s/a/A/g'), cmd('join') }, 3 },
  }
  for _, c in ipairs(plans) do
    it(c[1], function()
      local words = { 'apple', 'pear', 'fig', 'kiwi', '' }
      local text = {}
      for i = 1, 120 do
        text[i] = i % 7 == 0 and '' or ('%s %d'):format(words[i % 5 + 1], i)
      end
      local buf = buffer(text, c[3])
      local range = c[4] and { c[4][1], c[4][2], buf = buf } or nil
      local p = validate(c[2], c[4])
      eq(#c[2], #p.steps, vim.inspect(p.dropped))
      local pv = require('leash.preview').compute(p, { range = range })
      ok(pv.whole and pv.final, vim.inspect(pv.effects))
      eq(text, lines(buf), 'the preview left the buffer alone')
      local entries = require('leash.catalog').by_id(require('leash.catalog').get().entries)
      for _, step in ipairs(p.steps) do
        local ran, err = require('leash.sources.commands').run(entries[step.id], step, { range = range })
        ok(ran, err)
      end
      eq(lines(buf), pv.final)
      eq(nil, require('leash.preview').differs(pv))
    end)
  end
end)

describe('a folded diff', function()
  before_each(function()
    fresh()
    reset()
  end)

  it('shows each line a sort moved beside what it became, not only the removed ones', function()
    local text = {}
    for i = 1, 40 do
      text[i] = ('line %02d'):format(41 - i)
    end
    buffer(text, 1)
    local pv = require('leash.preview').compute(validate({ cmd('sort') }))
    local shown = require('leash.preview').effects(pv)[1].lines
    eq(require('leash.preview').fold, #shown)
    eq({ '-', 1, 'line 40' }, shown[1])
    eq({ '+', 1, 'line 01' }, shown[2])
    eq({ '-', 2, 'line 39' }, shown[3])
    eq({ '+', 2, 'line 02' }, shown[4])
  end)
end)

describe('what the dry run does not run', function()
  before_each(function()
    fresh()
    reset()
    require('leash.preview').fold = 50
  end)

  it('an expression replacement is [code] ([shell] when it names system()), not previewed, and runs nothing', function()
    buffer(fruit, 2)
    for _, c in ipairs({
      { ("/a/\\=system('touch %s')/"):format(marker), 'shell', 'it runs a program' },
      { ("#a#\\=writefile([], '%s')#"):format(marker), 'code', 'its replacement is an expression' },
      { ("/[/]/\\=writefile([], '%s')/"):format(marker), 'code', 'its replacement is an expression' },
    }) do
      local arg, reach, why = c[1], c[2], c[3]
      local p = validate({ cmd('substitute', arg) })
      eq(reach, p.steps[1].reach, arg)
      local window, result = show(p)
      local all = table.concat(window, '\n')
      matches('%[' .. reach .. '%] Run :substitute', all)
      matches('effect not previewed: ' .. why, all)
      press('q')
      vim.wait(300, function() return result.ran ~= nil end)
      eq(false, exists(marker), 'the dry run evaluated nothing: ' .. arg)
    end
  end)

  it('a substitute without an expression is [edit] and marked as nothing', function()
    buffer(fruit, 2)
    local p = validate({ cmd('substitute', '/apple/APPLE/g') })
    eq('edit', p.steps[1].reach)
    local window = show(p)
    ok(not table.concat(window, '\n'):find('[code]', 1, true))
    press('q')
  end)

  it('a :global running :normal is not dry-run, so a mapping of yours does not run', function()
    buffer(fruit, 1)
    vim.keymap.set('n', 'Q', function() vim.fn.writefile({}, marker) end)
    for _, arg in ipairs({ '/x/normal Q', '/x/norm! Q', '/x/normal! Q' }) do
      local p = validate({ cmd('global', arg) })
      eq(1, #p.steps, vim.inspect(p.dropped))
      local window, result = show(p)
      matches('effect not previewed: it runs keys %(:normal%)', table.concat(window, '\n'))
      press('q')
      vim.wait(300, function() return result.ran ~= nil end)
      eq(false, exists(marker), arg)
    end
  end)

  it('a step after one that is not previewed is not previewed either', function()
    buffer(fruit, 1)
    local window = show(validate({ cmd('vsplit'), cmd('sort') }))
    matches(
      'effect not previewed: step 1 runs first and may switch to another buffer or line',
      table.concat(window, '\n')
    )
    press('q')
  end)

  it('a step that fails on the copy says so, and the plan stops there when it runs', function()
    local buf = buffer(fruit, 1)
    local window, result = show(validate({ cmd('substitute', '/zzz/y/'), cmd('sort') }))
    local all = table.concat(window, '\n')
    matches('fails on fruit.txt, so the plan stops here: E486', all)
    matches('effect not previewed: step 1 fails first', all)
    press('y')
    vim.wait(300, function() return result.ran ~= nil end)
    eq(false, result.ran)
    eq(fruit, lines(buf))
  end)

  it('a buffer of 100,000 lines is previewed, and one larger is not', function()
    local text = {}
    for i = 1, 100000 do
      text[i] = ('%06d apple'):format((i * 7919) % 100000)
    end
    local buf = buffer(text)
    local window, result = show(validate({ cmd('substitute', '/apple/pear/') }))
    local all = table.concat(window, '\n')
    matches('%+1 −1 in fruit.txt', all)
    press('y')
    vim.wait(2000, function() return result.ran ~= nil end)
    eq(apply_shown(text, window), lines(buf))
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { 'one more' })
    window = show(validate({ cmd('sort') }))
    matches('effect not previewed: the buffer has more than 100000 lines', table.concat(window, '\n'))
    press('q')
  end)

  it('a buffer that changed between the preview and y: nothing runs, the plan is shown again', function()
    local buf = buffer(fruit, 1)
    local notes, saved = {}, vim.notify
    vim.notify = function(msg) notes[#notes + 1] = msg end
    local _, result = show(validate({ cmd('sort') }))
    vim.api.nvim_buf_set_lines(buf, 0, 0, false, { 'zebra' }) -- as a job or a timer could
    press('y')
    vim.wait(300, function() return float() ~= nil end)
    vim.notify = saved
    matches('fruit.txt changed after the preview, so nothing ran', table.concat(notes, '\n'))
    eq('zebra', lines(buf)[1], 'not sorted')
    local win = float()
    ok(win, 'shown again')
    local window = lines(vim.api.nvim_win_get_buf(win))
    matches('%- 1 zebra', table.concat(window, '\n'))
    vim.wait(200, function() return false end)
    press('y')
    vim.wait(300, function() return result.ran ~= nil end)
    eq(true, result.ran)
    eq(apply_shown(vim.list_extend({ 'zebra' }, fruit), window), lines(buf))
  end)
end)
