-- lua/leash/history.lua: the requests of :Do kept across restarts, bounded, private, never
-- a key; :Do <Tab> and the :Do prompt complete from them, newest first.

local function reload()
  package.loaded['leash.history'] = nil
  return require('leash.history')
end

local function lines_of(path)
  if vim.fn.filereadable(path) == 0 then return {} end
  return vim.fn.readfile(path)
end

describe('the history of requests', function()
  before_each(function()
    fresh()
    os.remove(require('leash.history').path())
  end)

  it('keeps requests newest first, each once, in a file only the user can read', function()
    local history = require('leash.history')
    history.add('turn on word wrap')
    history.add('show line numbers')
    history.add('turn on word wrap')
    eq({ 'turn on word wrap', 'show line numbers' }, history.list())
    local path = history.path()
    eq(vim.fs.joinpath(vim.fn.stdpath('state'), 'leash', 'history'), path)
    eq(tonumber('600', 8), bit.band(vim.uv.fs_stat(path).mode, tonumber('777', 8)))
    eq({ '"turn on word wrap"', '"show line numbers"' }, lines_of(path))
  end)

  it('survives a restart', function()
    require('leash.history').add('turn on spell checking')
    eq({ 'turn on spell checking' }, reload().list())
  end)

  it('keeps at most max requests, dropping the oldest', function()
    local history = require('leash.history')
    for i = 1, history.max + 5 do
      history.add('request ' .. i)
    end
    local list = reload().list()
    eq(history.max, #list)
    eq('request ' .. (history.max + 5), list[1])
    eq('request 6', list[#list])
  end)

  it('keeps what another Neovim added meanwhile', function()
    local history = require('leash.history')
    history.add('mine')
    -- Another session writes the file (a second later: a different modification time).
    vim.uv.sleep(20)
    vim.fn.writefile({ '"theirs"', '"mine"' }, history.path())
    vim.uv.fs_utime(history.path(), os.time() + 5, os.time() + 5)
    history.add('mine again')
    eq({ 'mine again', 'theirs', 'mine' }, history.list())
  end)

  it('never keeps a key', function()
    local history = require('leash.history')
    vim.env.LEASH_SPEC_KEY = 'not-a-real-key-123456'
    require('leash').setup({
      provider = 'mine',
      providers = {
        mine = { kind = 'openai', url = 'http://127.0.0.1:1/v1', model = 'm', api_key_env = 'LEASH_SPEC_KEY' },
      },
    })
    eq(false, history.add('use the key not-a-real-key-123456 please'))
    eq(false, history.add('my key is sk-ant-api03-abcdefghijklmnop'))
    eq(false, history.add('token ghp_abcdefghijklmnopqrstuvwxyz0123456789'))
    eq(false, history.add('paste 9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddcc here'))
    eq(true, history.add('set the text width to 100000000000000000000000000000000'))
    eq({ 'set the text width to 100000000000000000000000000000000' }, history.list())
    local text = table.concat(lines_of(history.path()), '\n')
    ok(not text:find('not%-a%-real%-key') and not text:find('sk%-ant') and not text:find('ghp_'), text)
    vim.env.LEASH_SPEC_KEY = nil
  end)

  it(':Do <Tab> completes from it after a restart, newest first', function()
    local history = require('leash.history')
    history.add('turn on word wrap')
    history.add('turn on spell checking')
    fresh() -- a new session: only the file remembers
    eq({ 'turn on spell checking', 'turn on word wrap' }, vim.fn.getcompletion('Do ', 'cmdline'))
    eq({ 'spell checking', 'word wrap' }, vim.fn.getcompletion('Do turn on ', 'cmdline'))
  end)

  it(':Do alone asks through vim.ui.input, whose <Tab> completes from it', function()
    require('leash.history').add('turn on word wrap')
    local asked, ran
    local input, run = vim.ui.input, require('leash').run
    vim.ui.input = function(opts, on_confirm)
      asked = opts
      on_confirm('show line numbers')
    end
    require('leash').run = function(request, opts) ran = { request, opts } end
    vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'a', 'b', 'c', 'd', 'e' })
    vim.cmd('3,4Do')
    vim.ui.input, require('leash').run = input, run
    matches('^leash: ', asked.prompt)
    eq({ 'turn on word wrap' }, vim.fn.getcompletion('turn', asked.completion))
    eq({}, vim.fn.getcompletion('zzz', asked.completion))
    eq('show line numbers', ran[1])
    eq({ 3, 4 }, { ran[2].line1, ran[2].line2 })
  end)
end)
