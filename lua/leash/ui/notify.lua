--- leash's messages, all through one place: model text in them is made visible
--- (|leash.text.visible_lines()|), they may be sent from any context (libuv callbacks
--- included), and an ordinary outcome ("needs a model", "already true", every step
--- refused) never stops the user at a hit-enter prompt.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Notify with |vim.notify()|, title `leash`.
---@param msg string
---@param level? integer a |vim.log.levels| value; default INFO
function M.notify(msg, level)
  msg = require('leash.text').visible_lines(msg)
  if vim.in_fast_event() then
    return vim.schedule(function() M.notify(msg, level) end)
  end
  vim.notify(msg, level or vim.log.levels.INFO, { title = 'leash' })
end

--- An ordinary outcome in one or more lines. A notifier plugin shows them all; Neovim's
--- own |vim.notify()| echoes them, and more than fits on one line of the message area
--- would stop at a hit-enter prompt: there only the first line is shown, cut to fit,
--- with `more` (where the rest can be read, e.g. `:Leash last`).
---@param lines string[]
---@param level? integer
---@param more string
function M.outcome(lines, level, more)
  if vim.in_fast_event() then
    return vim.schedule(function() M.outcome(lines, level, more) end)
  end
  local text = require('leash.text')
  lines = vim.tbl_map(function(l) return text.visible(l) end, lines)
  local whole = table.concat(lines, '\n')
  if not H.builtin_notify() or (#lines == 1 and vim.fn.strdisplaywidth(whole) <= H.room()) then
    return M.notify(whole, level)
  end
  M.notify(H.fit(lines[1], ' (' .. more .. ')', H.room()), level)
end

--- Whether |vim.notify()| is still Neovim's own (no notifier plugin replaced it).
---@return boolean
function M.builtin() return H.builtin_notify() end

--- `line` cut so that it and `tail` fit on one line of the message area (|v:echospace|).
---@param line string
---@param tail string kept whole after the line
---@return string
function M.fit(line, tail) return H.fit(line, tail, H.room()) end

-- Helper functionality =======================================================

function H.builtin_notify()
  local ok, info = pcall(debug.getinfo, vim.notify, 'S')
  if not (ok and type(info) == 'table' and type(info.source) == 'string') then return false end
  -- Neovim 0.11/0.12 define it in vim/_editor.lua, later versions in vim/_core/editor.lua.
  return info.source:find('vim/_editor%.lua$') ~= nil or info.source:find('vim/_core/editor%.lua$') ~= nil
end

--- The columns a message may take without a hit-enter prompt ('showcmd' and 'ruler'
--- leave less than the whole width: |v:echospace|).
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

return M
