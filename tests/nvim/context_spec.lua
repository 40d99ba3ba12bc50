-- Editor and project context.

describe('context', function()
  before_each(function() fresh() end)

  it('reports os and filetype', function()
    local buf = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_set_current_buf(buf)
    vim.bo[buf].filetype = 'lua'
    local c = require('leash.context').get()
    eq('lua', c.filetype)
    ok(type(c.os) == 'string' and c.os ~= '', 'os')
    eq(nil, c.selection)
  end)

  it('detects the project stack upward from a subdirectory', function()
    local dir = vim.fn.tempname()
    vim.fn.mkdir(dir .. '/src/deep', 'p')
    for _, f in ipairs({ 'Cargo.toml', 'package.json', 'pnpm-lock.yaml', 'Makefile' }) do
      vim.fn.writefile({}, dir .. '/' .. f)
    end
    local stack, found = require('leash.context').project(dir .. '/src/deep')
    eq({ 'rust', 'node (pnpm)', 'make' }, stack)
    eq(vim.uv.fs_realpath(dir), vim.uv.fs_realpath(found))
  end)

  it('finds the root vim.fs.root finds, and sees a marker made after the last request', function()
    local context = require('leash.context')
    local dir = vim.fn.tempname()
    vim.fn.mkdir(dir .. '/app/src', 'p')
    vim.fn.writefile({}, dir .. '/package.json')
    vim.fn.writefile({}, dir .. '/app/Makefile')
    local names = { 'Cargo.toml', 'package.json', 'Makefile' }
    -- An earlier marker above wins over a later one nearer: vim.fs.root's order.
    local stack, found = context.project(dir .. '/app/src')
    eq({ 'node (npm)' }, stack)
    eq(vim.fs.root(dir .. '/app/src', names), found)
    eq(vim.fs.normalize(dir), found)
    -- Made after that request: the next one stats it anew.
    vim.fn.writefile({}, dir .. '/app/Cargo.toml')
    stack, found = context.project(dir .. '/app/src')
    eq(vim.fs.normalize(dir .. '/app'), found)
    eq({ 'rust', 'make' }, stack)
    eq(vim.fs.root(dir .. '/app/src', names), found)
    vim.fn.delete(dir .. '/app/Cargo.toml')
    eq(vim.fs.normalize(dir), select(2, context.project(dir .. '/app/src')))
    vim.fn.delete(dir, 'rf')
  end)

  it('keeps what it found while the folders are unchanged, and looks again when one changes', function()
    local context = require('leash.context')
    local dir = vim.fn.tempname()
    vim.fn.mkdir(dir .. '/app', 'p')
    vim.fn.writefile({}, dir .. '/app/Makefile')
    -- Time stamps of whole seconds, long ago: what is found is kept. (A whole second just
    -- now would not be: the folder may change again within it unseen.)
    local function settle()
      for _, d in ipairs({ dir, dir .. '/app' }) do
        assert(vim.uv.fs_utime(d, 1000000000, 1000000000))
      end
    end
    settle()
    eq({ 'make' }, (context.project(dir .. '/app')))
    local stats = 0
    local stat = vim.uv.fs_stat
    vim.uv.fs_stat = function(...)
      stats = stats + 1
      return stat(...)
    end
    local ok_, kept = pcall(context.project, dir .. '/app')
    vim.uv.fs_stat = stat
    eq({ 'make' }, kept, ok_ and '' or kept)
    eq(#vim.fs.normalize(dir .. '/app'):gsub('[^/]', '') + 1, stats, 'one stat per folder, none per marker')
    -- A marker added (its folder's time stamp changes): found at once.
    vim.fn.writefile({}, dir .. '/app/Cargo.toml')
    eq({ 'rust', 'make' }, (context.project(dir .. '/app')))
    settle()
    eq({ 'rust', 'make' }, (context.project(dir .. '/app')))
    vim.fn.delete(dir .. '/app/Makefile')
    eq({ 'rust' }, (context.project(dir .. '/app')))
    vim.fn.delete(dir, 'rf')
  end)

  it('reports a charwise selection', function()
    local buf = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_set_current_buf(buf)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { 'hello world', 'second line' })
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.cmd('normal! vj')
    local sel = require('leash.context').selection()
    vim.cmd('normal! \27')
    ok(sel, 'selection')
    eq('v', sel.mode)
    eq(2, sel.lines)
    eq(13, sel.chars) -- "hello world" + newline + "s"
  end)

  it('reports the range :Do was given after Visual mode', function()
    local buf = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_set_current_buf(buf)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { 'a', 'b', 'c', 'd' })
    vim.api.nvim_win_set_cursor(0, { 2, 0 })
    vim.cmd('normal! Vj\27')
    local c = require('leash.context').get({ range = 2, line1 = 2, line2 = 3 })
    eq({ mode = 'V', lines = 2, chars = 0 }, c.selection)
    eq(nil, require('leash.context').get({ range = 0 }).selection)
  end)
end)
