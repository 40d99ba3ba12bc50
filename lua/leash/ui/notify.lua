--- leash's messages, all through one place: model text in them is made visible
--- (|leash.text.visible_lines()|), they may be sent from any context (libuv callbacks
--- included), and none of them ever stops the user at a |hit-enter| prompt, whatever
--- 'cmdheight' (0 included) and 'shortmess' are.
---
--- Where a notifier replaced |vim.notify()| it gets the whole text titled `leash`; those
--- that show the title (snacks.nvim, nvim-notify, noice.nvim, fidget.nvim) get it without
--- the `leash: ` prefix, and those whose windows cut long lines (snacks.nvim's, also
--- behind noice.nvim) get its lines wrapped. Any other (a wrapper that logs, then calls
--- Neovim's own) keeps the prefix: the title may be shown nowhere. Where |vim.notify()| is Neovim's own, the message
--- area holds one line: leash echoes there itself, one line that fits |v:echospace|
--- (cut at the end, the tail saying where the rest can be read), never as an error
--- message (`err`), and never while a command runs:
--- * a message echoed while a typed command runs goes under the command line, and with
---   'cmdheight' 0 that is two lines, a prompt;
--- * an error message (|nvim_echo()| `err`) with 'cmdheight' 0 always asks for Enter, and
---   with any height when another message follows it in the same command.
--- So messages wait in a queue, echoed on the next turn of the main loop, in order; the
--- message area keeps the last of them (the most severe last), |:messages| all of them.
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.NotifyOpts
---@field more? string where the whole text can be read when the message area shows only its start (`:Leash log`)
---@field listing? boolean a listing the user asked for (`:Leash` alone, `:Leash catalog`): shown whole, as |:messages| is

--- Say `msg` (it starts with `leash: `).
---@param msg string
---@param level? integer a |vim.log.levels| value; default INFO
---@param opts? leash.NotifyOpts
function M.notify(msg, level, opts)
  if vim.in_fast_event() then
    return vim.schedule(function() M.notify(msg, level, opts) end)
  end
  msg = require('leash.text').visible_lines(msg)
  level = level or vim.log.levels.INFO
  opts = opts or {}
  if not H.builtin_notify() then return vim.notify(M.for_notifier(msg), level, { title = 'leash' }) end
  if opts.listing then return H.enqueue({ chunks = H.chunks(msg, level), history = true, level = level }) end
  H.enqueue({ chunks = H.chunks(M.one_line(msg, opts.more), level), history = true, level = level })
end

--- An ordinary outcome in one or more lines (`more`: where all of them can be read).
---@param lines string[]
---@param level? integer
---@param more string
function M.outcome(lines, level, more)
  local text = require('leash.text')
  lines = vim.tbl_map(function(l) return text.visible(l) end, lines)
  M.notify(table.concat(lines, '\n'), level, { more = more })
end

---@class leash.EchoItem
---@field chunks [string, string?][] what |nvim_echo()| gets
---@field history boolean kept in |:messages|
---@field opts? table |nvim_echo()|'s opts (a progress message's `kind`, `id`, …)
---@field level? integer for the order within one turn: the most severe is echoed last
---@field on_echo? fun(ok: boolean, id: any) told whether the echo worked, and the message id it got

--- Echo in the message area on the next turn of the main loop, after what is queued
--- already (progress messages use it: |leash.ui.progress|).
---@param item leash.EchoItem
function M.echo(item) H.enqueue(item) end

--- Clear the message area on the next turn (what leash showed there is done).
function M.clear() H.enqueue({ chunks = {}, history = false }) end

--- Echo what is queued now, where no command is running: before the plan window is drawn,
--- so that what the message area says of the plan (progress, its end) is said before the
--- window is on screen, not over it.
function M.flush()
  if H.scheduled then H.flush() end
end

--- Whether |vim.notify()| is still Neovim's own (no notifier plugin replaced it).
---@return boolean
function M.builtin() return H.builtin_notify() end

--- `line` cut so that it and `tail` fit on one line of the message area (|v:echospace|).
---@param line string
---@param tail string kept whole after the line
---@return string
function M.fit(line, tail) return H.fit(line, tail, H.room()) end

--- `msg` as one line of the message area: its first line, cut to fit, with `(more)`
--- after it when anything was left out.
---@param msg string
---@param more? string
---@return string
function M.one_line(msg, more)
  local first, rest = msg:match('^([^\n]*)\n(.*)$')
  first = first or msg
  local room = H.room()
  if not rest and vim.fn.strdisplaywidth(first) <= room then return first end
  local tail = more and (' (' .. more .. ')') or ''
  -- A hint in parentheses at the end ("(:Leash undo takes it back)") is dropped whole
  -- before the line is cut: cut, it ends mid-word ahead of the tail.
  local body = first:match('^(.-) %([^()]*%)$')
  if body and vim.fn.strdisplaywidth(body .. tail) <= room then return body .. tail end
  return H.fit(first, tail, room)
end

--- `msg` as the notifier that replaced |vim.notify()| gets it: without the `leash: ` its
--- title says where the notifier shows titles; for one whose windows do not wrap
--- (snacks.nvim's, also behind noice.nvim), each line wrapped at a word to
--- |M.notifier_width()|.
---@param msg string
---@return string
function M.for_notifier(msg)
  local kind = H.notifier()
  if not H.titled[kind] then return msg end
  msg = msg:gsub('^leash: ', '', 1)
  if not H.clips[kind] then return msg end
  local out, width = {}, M.notifier_width()
  for _, line in ipairs(vim.split(msg, '\n', { plain = true })) do
    vim.list_extend(out, H.wrap(line, width))
  end
  return table.concat(out, '\n')
end

--- How wide a notification's lines are made where the notifier does not wrap them: 40%
--- of the columns (snacks.nvim's default window) less its padding, never under 30.
---@return integer
function M.notifier_width() return math.max(30, math.floor(vim.o.columns * 0.4) - 2) end

--- The columns a message may take without a hit-enter prompt ('showcmd' and 'ruler'
--- leave less than the whole width: |v:echospace|).
---@return integer
function M.room() return H.room() end

-- Helper data ================================================================

---@type leash.EchoItem[]
H.queue = {}

-- Notifiers that show the title: the text need not say `leash: ` again.
H.titled = { snacks = true, noice = true, notify = true, fidget = true }

-- Notifiers whose windows cut long lines ('wrap' off in snacks.nvim's notification
-- window, where noice.nvim also shows its notifications).
H.clips = { snacks = true, noice = true }

-- Helper functionality =======================================================

function H.builtin_notify()
  local ok, info = pcall(debug.getinfo, vim.notify, 'S')
  if not (ok and type(info) == 'table' and type(info.source) == 'string') then return false end
  -- Neovim 0.11/0.12 define it in vim/_editor.lua, later versions in vim/_core/editor.lua.
  return info.source:find('vim/_editor%.lua$') ~= nil or info.source:find('vim/_core/editor%.lua$') ~= nil
end

--- Which notifier |vim.notify()| is, by the file that defines it (nvim-notify's is a
--- table called through its metatable), or nil for any other.
---@return 'snacks'|'noice'|'notify'|'fidget'|nil
function H.notifier()
  local fn = vim.notify
  if type(fn) == 'table' then
    local mt = getmetatable(fn)
    fn = type(mt) == 'table' and mt.__call or nil
  end
  if type(fn) ~= 'function' then return nil end
  local ok, info = pcall(debug.getinfo, fn, 'S')
  local source = ok and type(info) == 'table' and type(info.source) == 'string' and info.source or ''
  for _, kind in ipairs({ 'snacks', 'noice', 'notify', 'fidget' }) do
    if source:find('/lua/' .. kind .. '[/.]') then return kind end
  end
end

--- The highlight of a level, as Neovim's own vim.notify gives it (an error in ErrorMsg:
--- the colour of an error without being one).
function H.chunks(text, level)
  local hl = ({ [vim.log.levels.ERROR] = 'ErrorMsg', [vim.log.levels.WARN] = 'WarningMsg' })[level]
  return { { text, hl } }
end

function H.enqueue(item)
  H.queue[#H.queue + 1] = item
  if H.scheduled then return end
  H.scheduled = true
  vim.schedule(H.flush)
end

--- Echo what is queued. Each echo replaces the one before on the screen (a turn of the
--- main loop that is no command adds no line), so the last one stays: errors and
--- warnings go after the rest.
function H.flush()
  H.scheduled = false
  local queue = H.queue
  if #queue == 0 then return end
  H.queue = {}
  for i, item in ipairs(queue) do
    item.order = i
  end
  -- A redraw that is still to come goes first: with 'cmdheight' 0 a message is drawn over
  -- the windows' last rows, which it would wipe (a highlight group defined meanwhile);
  -- after a dismissed hit-enter prompt the screen still shows the lines above it, and a
  -- message echoed now would go under them, a new prompt.
  pcall(vim.cmd.redraw)
  table.sort(queue, function(a, b)
    local la, lb = a.level or vim.log.levels.INFO, b.level or vim.log.levels.INFO
    if la ~= lb then return la < lb end
    return a.order < b.order
  end)
  for _, item in ipairs(queue) do
    local ok, id = pcall(vim.api.nvim_echo, item.chunks, item.history, item.opts or {})
    if item.on_echo then item.on_echo(ok, id) end
  end
end

function H.room() return math.max(20, (tonumber(vim.v.echospace) or vim.o.columns - 12) - 1) end

--- `line` cut so that it and `tail` fit in `width` columns.
function H.fit(line, tail, width)
  local keep = width - vim.fn.strdisplaywidth(tail)
  if vim.fn.strdisplaywidth(line) <= keep then return line .. tail end
  -- Characters while they fit, with room for the `…`.
  local used, n = 0, 0
  for i = 0, vim.fn.strchars(line) - 1 do
    used = used + vim.fn.strdisplaywidth(vim.fn.strcharpart(line, i, 1))
    if used > keep - 1 then break end
    n = i + 1
  end
  return vim.fn.strcharpart(line, 0, n) .. '…' .. tail
end

--- `line` broken at spaces into lines of at most `width` columns (a word longer than
--- that is broken where it must be).
function H.wrap(line, width)
  if vim.fn.strdisplaywidth(line) <= width then return { line } end
  -- An indented line (a listing) keeps its indent on each of its lines.
  local indent = line:match('^%s*')
  width = math.max(10, width - #indent)
  local out, cur = {}, ''
  for word in line:gmatch('%S+') do
    local candidate = cur == '' and word or (cur .. ' ' .. word)
    if vim.fn.strdisplaywidth(candidate) <= width then
      cur = candidate
    else
      if cur ~= '' then out[#out + 1] = cur end
      cur = word
      while vim.fn.strdisplaywidth(cur) > width do
        local n = 0
        while vim.fn.strdisplaywidth(vim.fn.strcharpart(cur, 0, n + 1)) <= width do
          n = n + 1
        end
        out[#out + 1] = vim.fn.strcharpart(cur, 0, n)
        cur = vim.fn.strcharpart(cur, n)
      end
    end
  end
  if cur ~= '' then out[#out + 1] = cur end
  for i, l in ipairs(out) do
    out[i] = indent .. l
  end
  return out
end

return M
