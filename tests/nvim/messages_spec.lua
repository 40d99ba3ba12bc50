-- lua/leash/ui/notify.lua and lua/leash/ui/progress.lua: what leash says never stops the
-- user at a hit-enter prompt. With Neovim's own vim.notify leash echoes itself: one line
-- that fits v:echospace, never an error message (`err`), never while a command runs
-- (queued to the next turn of the main loop); a notifier gets the whole text titled
-- `leash` without the prefix.

local notify = require('leash.ui.notify')
local progress = require('leash.ui.progress')

--- Record every nvim_echo call (and still echo) until the returned function restores it.
--- `no_progress`: fail progress messages, as Neovim 0.11 does.
local function capture_echo(no_progress)
  local calls, saved = {}, vim.api.nvim_echo
  vim.api.nvim_echo = function(chunks, history, opts)
    if no_progress and opts and opts.kind == 'progress' then error("Invalid key: 'kind'") end
    calls[#calls + 1] = { chunks = chunks, history = history, opts = opts or {} }
    return saved(chunks, history, opts)
  end
  return calls, function() vim.api.nvim_echo = saved end
end

local function text_of(call)
  return table.concat(vim.tbl_map(function(c) return c[1] end, call.chunks), '')
end

local function with_builtin(fn)
  local silenced = vim.notify
  vim.notify = package.loaded['spec.builtin_notify']
  local okf, err = pcall(fn)
  vim.notify = silenced
  if not okf then error(err, 0) end
end

describe("leash's messages with Neovim's own vim.notify", function()
  before_each(function()
    vim.o.columns, vim.o.cmdheight = 80, 1
  end)

  it('are echoed on the next turn of the main loop, not while the command runs', function()
    with_builtin(function()
      local calls, restore = capture_echo()
      notify.notify('leash: planning failed', vim.log.levels.ERROR)
      local during = #calls
      vim.wait(50, function() return #calls > 0 end)
      restore()
      eq(0, during, 'nothing echoed while the caller runs')
      eq(1, #calls)
      eq('leash: planning failed', text_of(calls[1]))
    end)
  end)

  it('show an error in its colour, never as an error message (a prompt with cmdheight=0)', function()
    with_builtin(function()
      local calls, restore = capture_echo()
      vim.v.errmsg = ''
      notify.notify('leash: planning failed', vim.log.levels.ERROR)
      notify.notify('leash: careful', vim.log.levels.WARN)
      vim.wait(50, function() return #calls >= 2 end)
      restore()
      eq(nil, calls[1].opts.err)
      eq(nil, calls[2].opts.err)
      eq('', vim.v.errmsg)
      local hl = {}
      for _, c in ipairs(calls) do
        hl[text_of(c)] = c.chunks[1][2]
      end
      eq({ ['leash: planning failed'] = 'ErrorMsg', ['leash: careful'] = 'WarningMsg' }, hl)
    end)
  end)

  it('leave the most severe of one turn on screen (echoed last), all in :messages', function()
    with_builtin(function()
      vim.cmd('messages clear')
      local calls, restore = capture_echo()
      notify.notify('leash: step 2 failed', vim.log.levels.ERROR)
      notify.notify('leash: planning cancelled')
      notify.notify('leash: later info')
      vim.wait(50, function() return #calls >= 3 end)
      restore()
      eq({ 'leash: planning cancelled', 'leash: later info', 'leash: step 2 failed' }, vim.tbl_map(text_of, calls))
      for _, c in ipairs(calls) do
        eq(true, c.history)
      end
    end)
  end)

  it('keep to one line of v:echospace, the start first, the tail saying where the rest is', function()
    for _, cols in ipairs({ 80, 120 }) do
      vim.o.columns = cols
      with_builtin(function()
        local calls, restore = capture_echo()
        local long = 'leash: 401 from fake at 127.0.0.1:18734: ' .. ('the request was refused; '):rep(8)
        notify.notify(long, vim.log.levels.ERROR, { more = ':Leash log' })
        notify.notify(
          'leash: config: 2 errors\na: bad\nb: worse',
          vim.log.levels.ERROR,
          { more = ':checkhealth leash' }
        )
        vim.wait(50, function() return #calls >= 2 end)
        restore()
        for _, c in ipairs(calls) do
          local t = text_of(c)
          ok(not t:find('\n'), t)
          ok(vim.fn.strdisplaywidth(t) < vim.v.echospace, ('%d columns: %s'):format(cols, t))
        end
        matches('^leash: 401 from fake at 127%.0%.0%.1:18734: the request.*… %(:Leash log%)$', text_of(calls[1]))
        eq('leash: config: 2 errors (:checkhealth leash)', text_of(calls[2]))
      end)
    end
  end)

  it('drop a hint in parentheses at the end whole rather than cut it', function()
    vim.o.columns = 80
    with_builtin(function()
      local calls, restore = capture_echo()
      local line = 'leash: ran 2 steps: shiftwidth=2, tabstop=2 (:Leash undo takes it back)'
      ok(vim.fn.strdisplaywidth(line) > vim.v.echospace, 'the line is too long for the test')
      notify.notify(line, nil, { more = ':Leash log' })
      -- A line without such a hint is cut as before.
      notify.notify('leash: ' .. ('x'):rep(100) .. ' (hint)' .. ' end', nil, { more = ':Leash log' })
      vim.wait(50, function() return #calls >= 2 end)
      restore()
      eq('leash: ran 2 steps: shiftwidth=2, tabstop=2 (:Leash log)', text_of(calls[1]))
      matches('^leash: x+… %(:Leash log%)$', text_of(calls[2]))
    end)
  end)

  it('show a listing the user asked for whole', function()
    with_builtin(function()
      local calls, restore = capture_echo()
      notify.notify('leash: catalog entries by source\ncommands 500\noptions 375', nil, { listing = true })
      vim.wait(50, function() return #calls >= 1 end)
      restore()
      eq('leash: catalog entries by source\ncommands 500\noptions 375', text_of(calls[1]))
    end)
  end)
end)

describe("leash's messages through a notifier", function()
  --- A stand-in for a notifier, defined as if in `file` (what leash tells them apart by).
  local function notifier(file, callable_table)
    local seen = {}
    local fn = assert(
      load('local seen = ...; return function(a, b, c, d) seen[#seen + 1] = { a, b, c, d } end', '@' .. file)
    )(seen)
    local n = fn
    if callable_table then n = setmetatable({}, { __call = fn }) end
    return n,
      function()
        return vim.tbl_map(function(c)
          -- A callable table gets itself first.
          if callable_table then return { msg = c[2], level = c[3], opts = c[4] } end
          return { msg = c[1], level = c[2], opts = c[3] }
        end, seen)
      end
  end

  local function say(n, msg, level, opts)
    local saved = vim.notify
    vim.notify = n
    notify.notify(msg, level, opts)
    vim.notify = saved
  end

  local long = 'leash: 401 from fake at 127.0.0.1:18734: ' .. ('the request was refused; '):rep(4)

  it('keep the prefix where the title may be shown nowhere (a wrapper around Neovim’s own)', function()
    local n, seen = notifier('/home/me/.config/nvim/lua/mine/log_notify.lua')
    say(n, long, vim.log.levels.ERROR, { more = ':Leash log' })
    eq(1, #seen())
    eq(long, seen()[1].msg, 'whole, at once, as it is')
    eq('leash', seen()[1].opts.title)
    eq(vim.log.levels.ERROR, seen()[1].level)
  end)

  it('drop the prefix for notifiers that show the title (nvim-notify, fidget.nvim)', function()
    for _, case in ipairs({
      { '/plugins/nvim-notify/lua/notify/init.lua', true },
      { '/plugins/fidget.nvim/lua/fidget.lua', false },
    }) do
      vim.o.columns = 80
      local n, seen = notifier(case[1], case[2])
      say(n, long)
      eq(long:sub(#'leash: ' + 1), seen()[1].msg, case[1])
      eq('leash', seen()[1].opts.title)
    end
  end)

  it('wrap lines for snacks.nvim and noice.nvim, whose windows cut them', function()
    for _, file in ipairs({ '/plugins/snacks.nvim/lua/snacks/init.lua', '/plugins/noice.nvim/lua/noice/init.lua' }) do
      vim.o.columns = 80
      local n, seen = notifier(file)
      say(n, long)
      local lines = vim.split(seen()[1].msg, '\n')
      ok(#lines > 1, vim.inspect(lines))
      for _, line in ipairs(lines) do
        ok(vim.fn.strdisplaywidth(line) <= notify.notifier_width(), line)
      end
      eq(vim.trim(long:sub(#'leash: ' + 1)), table.concat(lines, ' '))
    end
  end)
end)

describe('progress without a notifier or progress messages (Neovim 0.11)', function()
  before_each(function()
    -- Ticks ten times a second here: the spinner moves each tick, the seconds each second.
    progress.stop()
    progress.tick_ms = 100
    vim.o.columns, vim.o.cmdheight = 80, 1
  end)

  it('moves in place each tick, keeping only the first line and each stage in :messages', function()
    with_builtin(function()
      local calls, restore = capture_echo(true)
      progress.start('fake')
      vim.wait(450, function() return false end, 10)
      progress.news('looking up laststatus')
      vim.wait(250, function() return false end, 10)
      progress.finish('planned with fake in 0.7 s', 'done')
      vim.wait(50)
      restore()
      local frames, kept = {}, {}
      for _, c in ipairs(calls) do
        local t = text_of(c)
        ok(vim.fn.strdisplaywidth(t) < vim.v.echospace, t)
        local f = t:match('^leash: (%S+) ')
        if f and t:find('planning with') then frames[f] = true end
        if c.history then kept[#kept + 1] = t end
      end
      ok(vim.tbl_count(frames) >= 3, 'the spinner moved: ' .. vim.inspect(vim.tbl_map(text_of, calls)))
      eq(3, #kept, vim.inspect(kept))
      matches('planning with fake', kept[1])
      matches('looking up laststatus', kept[2])
      eq('leash: planned with fake in 0.7 s', kept[3])
      -- The plan window opens over an empty message area.
      eq({}, calls[#calls].chunks)
    end)
  end)

  it("counts a retry's wait down", function()
    with_builtin(function()
      local calls, restore = capture_echo(true)
      progress.start('fake')
      progress.news('rate-limited (429): asking again in 3 s')
      vim.wait(1250, function() return false end, 10)
      restore()
      local waits = {}
      for _, c in ipairs(calls) do
        local n = text_of(c):match('asking again in (%d) s')
        if n and waits[#waits] ~= n then waits[#waits + 1] = n end
      end
      progress.stop()
      eq({ '3', '2' }, waits)
    end)
  end)

  it('says a wait of a fraction of a second as the core said it, then that it asks again', function()
    with_builtin(function()
      local calls, restore = capture_echo(true)
      progress.start('fake')
      progress.news('connection refused: asking again in 1.0 s')
      vim.wait(1250, function() return false end, 10)
      restore()
      progress.stop()
      local texts = vim.tbl_map(text_of, calls)
      ok(texts[2] and texts[2]:find('asking again in 1.0 s', 1, true), vim.inspect(texts))
      ok(texts[#texts]:find('connection refused: asking again…', 1, true), vim.inspect(texts))
    end)
  end)
end)

describe('durations', function()
  it('are said in seconds', function()
    eq('0.8 s', progress.duration(812))
    eq('8.1 s', progress.duration(8060))
    eq('42 s', progress.duration(41800))
    eq('2 min 5 s', progress.duration(125000))
  end)
end)
