-- The plan window's preview of a language server's format and rename: the server is
-- asked for its edit before the window opens, the window shows it file by file, and `y`
-- applies exactly that edit without asking the server again.

local helpers = dofile('tests/nvim/helpers.lua')

local function press(keys) vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, true, true), 'x', false) end

local function float()
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then return w end
  end
end

local function lines(buf) return vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false) end

local function range(l1, c1, l2, c2)
  return { start = { line = l1, character = c1 }, ['end'] = { line = l2, character = c2 } }
end

local function validate(steps)
  local native = require('leash.native').get()
  local state = assert(require('leash.catalog').get())
  return native.validate(state.handle, vim.json.encode({ reply = '', steps = steps }), { profile = 'neovim' })
end

--- Show `steps` through the real path of a plan; returns the window's text (once it is
--- open: the server is asked first) and the outcome.
local function show(steps)
  local p = validate(steps)
  eq(#steps, #p.steps, vim.inspect(p.dropped))
  local result = {}
  require('leash.execute').confirm_and_run(p, {
    config = { confirm_before_run = true },
    on_done = function(ran) result.ran = ran end,
  })
  vim.wait(3000, function() return float() ~= nil end, 5)
  local win = float()
  assert(win, 'the plan window opened')
  vim.wait(200, function() return false end)
  return table.concat(lines(vim.api.nvim_win_get_buf(win)), '\n'), result
end

local dir, other, uri, other_uri, asked

--- A project with m.lua (open) and other.lua (not loaded), and a server that formats
--- and renames; each answer differs from the one before, so a second request would show.
local function start()
  fresh()
  vim.cmd('silent! only!')
  vim.cmd('enew!')
  vim.cmd('silent! %bwipeout!')
  dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  vim.fn.writefile({ 'local  x = 1', 'return x' }, dir .. '/m.lua')
  other = dir .. '/other.lua'
  vim.fn.writefile({ 'print(x)' }, other)
  vim.fn.chdir(dir)
  vim.cmd.edit(dir .. '/m.lua')
  uri, other_uri = vim.uri_from_fname(dir .. '/m.lua'), vim.uri_from_fname(other)
  asked = { format = 0, rename = 0 }
  helpers.start_server(dir, {
    ['textDocument/formatting'] = function()
      asked.format = asked.format + 1
      return { { range = range(0, 5, 0, 7), newText = asked.format == 1 and ' ' or '   ' } }
    end,
    ['textDocument/rename'] = function(p)
      asked.rename = asked.rename + 1
      local new = asked.rename == 1 and p.newName or (p.newName .. asked.rename)
      return {
        changes = {
          [uri] = { { range = range(0, 7, 0, 8), newText = new }, { range = range(1, 7, 1, 8), newText = new } },
          [other_uri] = { { range = range(0, 6, 0, 7), newText = new } },
        },
      }
    end,
  }, { documentFormattingProvider = true, renameProvider = true })
end

describe('a language server’s edit in the plan window', function()
  before_each(start)

  it('format: shows the server’s edit, and y applies exactly it without asking again', function()
    local text, result = show({ { type = 'item', id = 'lsp:format' } })
    matches('%+1 −1 in m%.lua', text)
    matches('%- 1 local  x = 1', text)
    matches('%+ 1 local x = 1', text)
    eq(1, asked.format)
    press('y')
    vim.wait(1000, function() return result.ran ~= nil end)
    eq(true, result.ran)
    eq({ 'local x = 1', 'return x' }, lines())
    eq(1, asked.format, 'the server was not asked a second time')
  end)

  it('rename: shows every file it changes, and y applies the edit shown', function()
    vim.api.nvim_win_set_cursor(0, { 1, 7 })
    local text, result = show({ { type = 'item', id = 'lsp:rename', args = { 'count' } } })
    matches('%+2 −2 in m%.lua', text)
    matches('%+ 2 return count', text)
    matches('%+1 −1 in other%.lua', text)
    matches('%+ 1 print%(count%)', text)
    eq(1, asked.rename)
    press('y')
    vim.wait(1000, function() return result.ran ~= nil end)
    eq(true, result.ran)
    eq({ 'local  count = 1', 'return count' }, lines())
    eq({ 'print(count)' }, lines(vim.fn.bufnr(other)))
    eq(1, asked.rename, 'the server was not asked a second time')
  end)

  it('cancel applies nothing and leaves other files unloaded', function()
    vim.api.nvim_win_set_cursor(0, { 1, 7 })
    local _, result = show({ { type = 'item', id = 'lsp:rename', args = { 'count' } } })
    press('q')
    vim.wait(500, function() return result.ran ~= nil end)
    eq(false, result.ran)
    eq({ 'local  x = 1', 'return x' }, lines())
    eq(false, vim.bo.modified)
    eq(-1, vim.fn.bufnr(other), 'other.lua was read from disk, not loaded')
  end)

  it('a buffer edited after the preview: nothing runs, the server is asked again and the new edit shown', function()
    local notes, saved = {}, vim.notify
    vim.notify = function(msg) notes[#notes + 1] = msg end
    local buf = vim.api.nvim_get_current_buf()
    local _, result = show({ { type = 'item', id = 'lsp:format' } })
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { '-- mine' }) -- as a job or a timer could
    press('y')
    vim.wait(3000, function() return float() ~= nil and asked.format == 2 end, 5)
    vim.notify = saved
    matches('m%.lua changed after the preview, so nothing ran', table.concat(notes, '\n'))
    eq('local  x = 1', lines(buf)[1], 'nothing ran')
    local text = table.concat(lines(vim.api.nvim_win_get_buf(float())), '\n')
    matches('%+ 1 local   x = 1', text, 'the second answer is shown')
    vim.wait(200, function() return false end)
    press('y')
    vim.wait(1000, function() return result.ran ~= nil end)
    eq(true, result.ran)
    eq({ 'local   x = 1', 'return x', '-- mine' }, lines(buf), 'the edit shown the second time')
    eq(2, asked.format)
  end)

  it('a step that changes text first: the server is asked only when the format runs', function()
    local text = show({ { type = 'item', id = 'cmd:sort' }, { type = 'item', id = 'lsp:format' } })
    matches('effect not previewed: a step before it changes the text first', text)
    eq(0, asked.format)
    press('q')
  end)
end)
