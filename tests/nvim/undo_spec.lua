-- lua/leash/undo.lua: :Leash undo takes back everything the last plan did, its settings
-- and the text of every buffer it changed, asks before undoing over the user's own
-- later edits, and goes back one plan at a time.

local dir = vim.fn.tempname()
vim.fn.mkdir(dir, 'p')

local function lines(buf) return vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false) end

local function validate(steps)
  local native = require('leash.native').get()
  local state = assert(require('leash.catalog').get())
  return native.validate(state.handle, vim.json.encode({ reply = '', steps = steps }), { profile = 'neovim' })
end

local function cmd(name, ...) return { type = 'item', id = 'cmd:' .. name, args = { ... } } end

local function run(steps)
  local p = validate(steps)
  eq(#steps, #p.steps, vim.inspect(p.dropped))
  local okr, err = require('leash.execute').run(p)
  eq(true, okr, err)
end

--- A buffer named `name` in `dir` holding `text`, as typed by the user (its own undo step).
local function buffer(name, text)
  vim.cmd.edit(dir .. '/' .. name)
  vim.api.nvim_buf_set_lines(0, 0, -1, false, text)
  vim.bo.undolevels = vim.bo.undolevels
  return vim.api.nvim_get_current_buf()
end

local function reset()
  vim.cmd('silent! only!')
  vim.cmd('enew!')
  vim.cmd('silent! %bwipeout!')
  vim.cmd.cd(dir)
  vim.o.tabstop, vim.o.ignorecase = 8, false
  local undo = require('leash.undo')
  while undo.last() do
    undo.undo({ force = true })
  end
end

describe(':Leash undo', function()
  before_each(function()
    fresh()
    reset()
  end)

  it('takes back the text and the settings of the whole plan in one go, and says so', function()
    local buf = buffer('fruit.txt', { 'pear', 'apple', 'fig' })
    vim.cmd('write')
    run({ cmd('sort'), { type = 'setting', key = 'tabstop', value = 4 }, cmd('global', '/^f/s/f/F/') })
    eq({ 'apple', 'Fig', 'pear' }, lines(buf))
    eq(4, vim.o.tabstop)
    eq(true, vim.bo[buf].modified)
    local okr, msg = require('leash.execute').undo()
    eq(true, okr, msg)
    eq('leash: restored the text of fruit.txt; restored tabstop', msg)
    eq({ 'pear', 'apple', 'fig' }, lines(buf))
    eq(8, vim.o.tabstop)
    eq(false, vim.bo[buf].modified, 'the text as it was written')
    eq(false, (require('leash.execute').undo()), 'nothing left')
  end)

  it('names a file by its name alone, and by its path when another buffer has that name', function()
    local buf = buffer('fruit.txt', { 'pear', 'apple' })
    vim.cmd.cd(vim.fn.fnamemodify(dir, ':h')) -- the file is not below the working folder
    run({ cmd('sort') })
    local _, msg = require('leash.execute').undo()
    eq('leash: restored the text of fruit.txt', msg)
    vim.fn.mkdir(dir .. '/sub', 'p')
    vim.cmd.cd(dir)
    buffer('sub/fruit.txt', { 'b', 'a' })
    vim.api.nvim_set_current_buf(buf)
    run({ cmd('sort') })
    _, msg = require('leash.execute').undo()
    eq('leash: restored the text of ' .. vim.fn.fnamemodify(dir .. '/fruit.txt', ':~:.'), msg)
  end)

  it('takes back the text of every buffer the plan changed, not only the current one', function()
    local other = buffer('other.txt', { 'b', 'a' })
    local buf = buffer('fruit.txt', { 'pear', 'apple' })
    local code = ('vim.api.nvim_buf_set_lines(%d, 0, 1, false, { "changed by code" })'):format(other)
    run({ cmd('sort'), cmd('lua', code) })
    eq({ 'changed by code', 'a' }, lines(other))
    local _, msg = require('leash.execute').undo()
    matches('restored the text of ', msg)
    matches('other%.txt', msg)
    matches('fruit%.txt', msg)
    eq({ 'b', 'a' }, lines(other))
    eq({ 'pear', 'apple' }, lines(buf))
  end)

  it('a file the plan opened and changed goes back to its text on disk', function()
    vim.fn.writefile({ 'b', 'a' }, dir .. '/notes.txt')
    buffer('fruit.txt', { 'x' })
    run({ cmd('edit', 'notes.txt'), cmd('sort') })
    eq({ 'a', 'b' }, lines())
    local _, msg = require('leash.execute').undo()
    matches('restored the text of notes%.txt', msg)
    eq({ 'b', 'a' }, lines())
  end)

  it('goes back one plan at a time, newest first', function()
    local buf = buffer('fruit.txt', { 'pear', 'apple' })
    run({ cmd('sort') })
    run({ cmd('substitute', '/a/A/') })
    eq({ 'Apple', 'pear' }, lines(buf))
    local _, msg = require('leash.execute').undo()
    matches('1 earlier plan: :Leash undo again', msg)
    eq({ 'apple', 'pear' }, lines(buf))
    require('leash.execute').undo()
    eq({ 'pear', 'apple' }, lines(buf))
  end)

  it('keeps the plan apart from the user’s last change, even one not yet closed', function()
    local buf = buffer('fruit.txt', { 'pear', 'apple' })
    -- A change from a script that no key press closed: the plan must not join it.
    vim.api.nvim_buf_set_lines(buf, 0, 0, false, { 'zebra' })
    run({ cmd('sort') })
    require('leash.execute').undo()
    eq({ 'zebra', 'pear', 'apple' }, lines(buf), 'the user’s change stays')
  end)

  it('asks before undoing over the user’s later edits; no undoes nothing, yes keeps them reachable', function()
    local buf = buffer('fruit.txt', { 'pear', 'apple' })
    run({ cmd('sort') })
    vim.bo.undolevels = vim.bo.undolevels
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { 'mine' }) -- the user's own edit
    local undo = require('leash.undo')
    local asked
    undo.ask = function(q)
      asked = q
      return false
    end
    local okr, msg = require('leash.execute').undo()
    eq(false, okr)
    matches('you edited fruit%.txt after the plan', asked)
    eq('leash: nothing undone: you edited fruit.txt after the plan', msg)
    eq({ 'apple', 'pear', 'mine' }, lines(buf), 'nothing undone')
    ok(undo.last(), 'the plan can still be undone')
    undo.ask = function() return true end
    okr, msg = require('leash.execute').undo()
    eq(true, okr, msg)
    eq({ 'pear', 'apple' }, lines(buf))
    local back = msg:match('your later edits: :undo (%d+) in fruit%.txt')
    ok(back, msg)
    vim.cmd('undo ' .. back)
    eq({ 'apple', 'pear', 'mine' }, lines(buf), 'the user’s edits are still in the undo tree')
  end)

  it('says which steps it cannot take back', function()
    buffer('fruit.txt', { 'b', 'a' })
    run({ cmd('vsplit'), cmd('sort') })
    local _, msg = require('leash.execute').undo()
    matches('restored the text of fruit%.txt', msg)
    matches('cannot be undone: Run :vsplit', msg)
  end)

  it('a plan that failed before it changed anything leaves no undo entry', function()
    local buf = buffer('fruit.txt', { 'a', 'b' })
    local p = validate({ cmd('substitute', '/zzz/y/') })
    eq(false, (require('leash.execute').run(p)))
    eq(nil, require('leash.undo').last())
    eq({ false, 'leash: nothing to undo' }, { require('leash.execute').undo() })
    eq({ 'a', 'b' }, lines(buf))
  end)

  it(':Leash undo takes back a plan run from the window, text and setting', function()
    local buf = buffer('fruit.txt', { 'pear', 'apple' })
    local done
    require('leash.execute').confirm_and_run(
      validate({ cmd('sort'), { type = 'setting', key = 'ignorecase', value = true } }),
      { config = { confirm_before_run = true }, on_done = function(ran) done = ran end }
    )
    vim.wait(200, function() return false end)
    vim.api.nvim_feedkeys('y', 'x', false)
    vim.wait(300, function() return done ~= nil end)
    eq(true, done)
    eq({ 'apple', 'pear' }, lines(buf))
    local notes, saved = {}, vim.notify
    vim.notify = function(m) notes[#notes + 1] = m end
    vim.cmd('Leash undo')
    vim.notify = saved
    eq({ 'pear', 'apple' }, lines(buf))
    eq(false, vim.o.ignorecase)
    matches('restored the text of fruit%.txt; restored ignorecase', notes[1])
  end)

  it('a report cut to fit the message area points to :Leash log, which keeps it whole', function()
    buffer('a-file-with-a-rather-long-name-for-one-message.txt', { 'b', 'a' })
    local steps = { cmd('sort') }
    for _, k in ipairs({ 'ignorecase', 'smartcase', 'list', 'number', 'relativenumber', 'cursorline' }) do
      steps[#steps + 1] = { type = 'setting', key = k, value = true }
    end
    local done
    require('leash.execute').confirm_and_run(validate(steps), {
      config = { confirm_before_run = false },
      request = 'tidy this file up',
      on_done = function(ran) done = ran end,
    })
    vim.wait(300, function() return done ~= nil end)
    eq(true, done)
    vim.o.columns = 80
    local said, echo, silenced = {}, vim.api.nvim_echo, vim.notify
    vim.api.nvim_echo = function(chunks)
      said[#said + 1] = table.concat(vim.tbl_map(function(c) return c[1] end, chunks))
    end
    vim.notify = package.loaded['spec.builtin_notify']
    vim.cmd('Leash undo')
    vim.wait(200, function() return #said > 0 end)
    vim.notify, vim.api.nvim_echo = silenced, echo
    matches('^leash: restored the text of a%-file', said[#said])
    matches('… %(:Leash log%)$', said[#said])
    ok(vim.fn.strdisplaywidth(said[#said]) < vim.v.echospace, said[#said])
    local last
    for _, line in ipairs(vim.fn.readfile(require('leash.log').path())) do
      local t = vim.json.decode(line)
      if t.outcome then last = t.outcome end
    end
    eq({ 'tidy this file up', 'undone' }, { last.request, last.status })
    matches('restored cursorline, ignorecase, list, number, relativenumber, smartcase$', last.error)
    vim.o.ignorecase, vim.o.smartcase, vim.o.list = false, false, false
    vim.o.number, vim.o.relativenumber, vim.o.cursorline = false, false, false
  end)
end)
