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

--- vim.ui.select picks the action titled `title` (none: cancels) and records the titles
--- it was offered.
local offered
local function pick(title)
  offered = nil
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(function(item) return opts.format_item(item) end, items)
    for _, item in ipairs(items) do
      if item.action.title == title then return on_choice(item) end
    end
    on_choice(nil)
  end
end

local outside

--- The project of `start()` and a server with code actions: one sent without its edit
--- (resolved on request), one editing a file outside the project, one that is only a
--- command the server runs, one disabled.
local function start_actions()
  fresh()
  vim.cmd('silent! only!')
  vim.cmd('enew!')
  vim.cmd('silent! %bwipeout!')
  dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  vim.fn.writefile({ 'local  x = 1', 'return x' }, dir .. '/m.lua')
  outside = vim.fn.tempname() .. '-outside.lua'
  vim.fn.writefile({ 'safe' }, outside)
  vim.fn.chdir(dir)
  vim.cmd.edit(dir .. '/m.lua')
  uri = vim.uri_from_fname(dir .. '/m.lua')
  asked = { action = 0, resolve = 0, execute = 0 }
  helpers.start_server(dir, {
    ['textDocument/codeAction'] = function()
      asked.action = asked.action + 1
      return {
        { title = 'Use a constant', kind = 'quickfix', data = { n = 1 } },
        {
          title = 'Write elsewhere',
          edit = { changes = { [vim.uri_from_fname(outside)] = { { range = range(0, 0, 0, 4), newText = 'gone' } } } },
        },
        { title = 'Server magic', command = { title = 'Do magic', command = 'spec.magic' } },
        { title = 'Off', disabled = { reason = 'not here' } },
      }
    end,
    ['codeAction/resolve'] = function(action)
      asked.resolve = asked.resolve + 1
      if not action.data then return action end
      action.edit = {
        changes = { [uri] = { { range = range(0, 0, 0, 12), newText = 'local x <const> = ' .. asked.resolve } } },
      }
      return action
    end,
    ['workspace/executeCommand'] = function() asked.execute = asked.execute + 1 end,
  }, { codeActionProvider = { resolveProvider = true }, executeCommandProvider = { commands = { 'spec.magic' } } })
end

describe('a language server’s code action in the plan window', function()
  -- Each test sets vim.ui.select with pick(); the last one stays (a Neovim per file).
  before_each(start_actions)

  it('is picked first, resolved, shown, and y applies exactly that edit without asking again', function()
    pick('Use a constant')
    local text, result = show({ { type = 'item', id = 'lsp:code_action' } })
    eq({ 'Use a constant', 'Write elsewhere', 'Server magic' }, offered, 'a disabled action is not offered')
    matches('the action you picked: Use a constant', text)
    matches('%+1 −1 in m%.lua', text)
    matches('%- 1 local  x = 1', text)
    matches('%+ 1 local x <const> = 1', text)
    matches('%[code%]', text)
    eq({ action = 1, resolve = 1, execute = 0 }, asked)
    press('y')
    vim.wait(1000, function() return result.ran ~= nil end)
    eq(true, result.ran)
    eq({ 'local x <const> = 1', 'return x' }, lines())
    eq({ action = 1, resolve = 1, execute = 0 }, asked, 'the server was not asked a second time')
  end)

  it('an edit of a file outside the project is shown as refused, and y applies nothing', function()
    pick('Write elsewhere')
    local text, result = show({ { type = 'item', id = 'lsp:code_action' } })
    matches('leash refuses its edit, so the step fails when', text)
    matches('outside', text)
    press('y')
    vim.wait(1000, function() return result.ran ~= nil end)
    eq(false, result.ran)
    eq({ 'safe' }, vim.fn.readfile(outside))
    eq({ 'local  x = 1', 'return x' }, lines())
  end)

  it('an action that is only a command is shown as not previewed, and runs in the server on y', function()
    pick('Server magic')
    local text, result = show({ { type = 'item', id = 'lsp:code_action' } })
    matches('effect not previewed: then the language server runs its command “Do', text)
    ok(not text:find(' in m.lua', 1, true), 'no edit is shown')
    matches('%[code%]', text)
    eq(0, asked.execute)
    press('y')
    vim.wait(2000, function() return result.ran ~= nil end)
    eq(true, result.ran)
    eq(1, asked.execute)
    -- Resolved once before the window (it could have brought an edit), not again.
    eq({ action = 1, resolve = 1, execute = 1 }, asked)
  end)

  it('no action picked: the window says so, and nothing is applied on cancel', function()
    pick(nil)
    local text, result = show({ { type = 'item', id = 'lsp:code_action' } })
    matches('no code action was picked', text)
    press('q')
    vim.wait(500, function() return result.ran ~= nil end)
    eq(false, result.ran)
    eq({ 'local  x = 1', 'return x' }, lines())
  end)
end)

describe('a code action of typescript-language-server in the plan window', function()
  it('a quick fix is shown and applied as shown; a refactoring that is a command runs in the server', function()
    if vim.fn.executable('typescript-language-server') ~= 1 then
      skip('typescript-language-server is not on PATH (npm install -g typescript-language-server typescript)')
    end
    fresh()
    vim.cmd('silent! only!')
    vim.cmd('enew!')
    vim.cmd('silent! %bwipeout!')
    dir = vim.fn.tempname()
    vim.fn.mkdir(dir, 'p')
    vim.fn.writefile({ '{"compilerOptions": {"strict": true, "noUnusedLocals": true}}' }, dir .. '/tsconfig.json')
    vim.fn.writefile({
      'const name = "w";',
      'export function greet(): string {',
      '  const unused = 2;',
      '  return "hello " + name;',
      '}',
    }, dir .. '/a.ts')
    vim.fn.chdir(dir)
    vim.cmd.edit(dir .. '/a.ts')
    local buf = vim.api.nvim_get_current_buf()
    -- The server's temporary files go in the project, which goes with this Neovim.
    vim.fn.mkdir(dir .. '/.tmp', 'p')
    local id = vim.lsp.start({
      name = 'ts',
      cmd = { 'typescript-language-server', '--stdio' },
      cmd_env = { TMPDIR = dir .. '/.tmp', TMP = dir .. '/.tmp', TEMP = dir .. '/.tmp' },
      root_dir = dir,
    })
    local client = vim.lsp.get_client_by_id(assert(id))
    vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50)
    eq(1, #vim.diagnostic.get(0), 'the server reported the unused declaration')
    -- Every request the client sends from now on, by method.
    local sent = {}
    local request = client.request
    client.request = function(self, method, ...)
      sent[method] = (sent[method] or 0) + 1
      return request(self, method, ...)
    end

    vim.api.nvim_win_set_cursor(0, { 3, 9 })
    pick("Remove unused declaration for: 'unused'")
    local text, result = show({ { type = 'item', id = 'lsp:code_action' } })
    matches("the action you picked: Remove unused declaration for: 'unused'", text)
    matches('%+0 −1 in a%.ts', text)
    matches('%- 3   const unused = 2;', text)
    eq(1, sent['textDocument/codeAction'])
    local before = vim.deepcopy(sent)
    press('y')
    vim.wait(5000, function() return result.ran ~= nil end)
    eq(true, result.ran)
    eq({ 'const name = "w";', 'export function greet(): string {', '  return "hello " + name;', '}' }, lines())
    eq(before['textDocument/codeAction'], sent['textDocument/codeAction'], 'not asked again')
    eq(before['codeAction/resolve'], sent['codeAction/resolve'], 'not resolved again')

    vim.api.nvim_win_set_cursor(0, { 3, 12 })
    pick('Convert to template string')
    text, result = show({ { type = 'item', id = 'lsp:code_action' } })
    matches('effect not previewed: then the language server runs its command', text)
    ok(not text:find(' in a.ts', 1, true), 'no edit shown for a command')
    eq('  return "hello " + name;', lines(buf)[3])
    press('y')
    vim.wait(5000, function() return result.ran ~= nil end)
    eq(true, result.ran)
    vim.wait(5000, function() return lines()[3] ~= '  return "hello " + name;' end, 20)
    eq('  return `hello ${name}`;', lines()[3], 'the server’s edit, sent while its command ran')
    client:stop(true)
  end)
end)
