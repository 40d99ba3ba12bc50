--- Names that Neovim reads or writes through an autocommand instead of by itself: the
--- gzip plugin runs `gzip`, `xz`, `lz4`… for `*.gz`, `*.xz`, `*.lz4` on read and write,
--- the tar and zip plugins run `tar` and `unzip`, netrw runs `scp` and `curl`.
---
--- The list is derived from the autocommands defined in this Neovim (|nvim_get_autocmds()|),
--- not copied from a plugin, so it follows whatever plugins are loaded. The catalog hands
--- it to the native core, whose validator raises a step that names such a file to `shell`
--- and says why; the executor's check (|leash.policy.check_command_args()|) and the file actions refuse such
--- names in a step that was not raised. Filetype detection (`:setfiletype` on `BufRead`)
--- reads nothing in Neovim's place and is left out.
local M = {}
local H = {}
-- Interpreted, not compiled: its loops run once per request and call Neovim's C API at
-- every turn, which ends LuaJIT's traces; compiling them cost more than it saved (the
-- first :Do of a session spent milliseconds on it, scripts/bench-do).
if jit then jit.off(true, true) end

-- Module definition ==========================================================

---@class leash.NameHandler
---@field pattern string the autocommand's file pattern (`*.gz`)
---@field event string the event it runs on (`BufReadPost`)
---@field group string its group name (`gzip`), or ''

--- Events whose handlers replace reading or writing a file, or filter its bytes after
--- reading or before appending (what gzip.vim does).
M.events = {
  'BufReadCmd',
  'FileReadCmd',
  'SourceCmd',
  'BufReadPost',
  'FileReadPost',
  'BufWriteCmd',
  'FileWriteCmd',
  'FileAppendCmd',
  'BufWritePost',
  'FileWritePost',
  'FileAppendPre',
  'FileAppendPost',
}

--- The handlers defined now, one per autocommand and pattern (`*` patterns left out:
--- they run for every file, so they say nothing about a name). The same list as last
--- time (do not change it) when the handlers are the same: the catalog then compares
--- nothing more.
---@return leash.NameHandler[]
function M.list()
  local ok, cmds = pcall(vim.api.nvim_get_autocmds, { event = M.events })
  if not ok then return {} end
  -- Compared in place, field by field, with the last list: nothing is built unless
  -- something changed.
  local check = require('leash.sources.shared.fields').compare(H.last.fields, H.last.list ~= nil)
  local put = check.put
  local found = {}
  for _, c in ipairs(cmds) do
    local pattern = c.pattern
    if pattern ~= '*' and pattern ~= '' and type(pattern) == 'string' and not H.sets_filetype(c) then
      found[#found + 1] = c
      put(pattern)
      put(c.event)
      put(c.group_name or '')
    end
  end
  if check.done() then return H.last.list end
  local out = {}
  for i, c in ipairs(found) do
    out[i] = { pattern = c.pattern, event = c.event, group = c.group_name or '' }
  end
  H.last.list = out
  return out
end

--- `handlers` as the JSON text the native module reads (faster than the table), made
--- once per list.
---@param handlers leash.NameHandler[]
---@return string
function M.json(handlers)
  local json = H.json[handlers]
  if not json then
    json = vim.json.encode(handlers)
    H.json[handlers] = json
  end
  return json
end

--- The first handler that claims `name`, or nil: the core's matching (without regard to
--- case, against the whole name and its last component), the one the validator uses.
--- When the native module cannot answer, nil and why: the caller refuses the name (fail
--- closed).
---@param name string a file name as a step gives it
---@param handlers? leash.NameHandler[] default: |M.list()|
---@return leash.NameHandler? handler
---@return string? err why the name could not be checked
function M.match(name, handlers)
  handlers = handlers or M.list()
  if #handlers == 0 then return nil end
  local ok, i = require('leash.native').call('name_handler', 'match file names', name, M.json(handlers))
  if not ok then return nil, i end
  return i and handlers[i] or nil
end

--- Whether `h` runs when its names are written or appended to.
---@param h leash.NameHandler
---@return boolean
function M.on_write(h) return h.event:find('Write') ~= nil or h.event:find('Append') ~= nil end

--- "an autocommand of “gzip” (BufReadPost *.gz)", for messages.
---@param h leash.NameHandler
---@return string
function M.describe(h)
  local group = h.group ~= '' and h.group or 'no group'
  return ('an autocommand of “%s” (%s %s)'):format(group, h.event, h.pattern)
end

-- Helper data ================================================================

--- The last list, and the fields it was made from (pattern, event, group of each).
H.last = { list = nil, fields = {} }

-- Each list's JSON text (weak keys: a list that is gone is forgotten).
H.json = setmetatable({}, { __mode = 'k' })

-- Helper functionality =======================================================

--- A Vimscript autocommand that only sets the filetype (`setf x`, `set ft=x`).
function H.sets_filetype(c)
  if c.event ~= 'BufReadPost' and c.event ~= 'FileReadPost' then return false end
  if c.group_name == 'filetypedetect' then return true end
  local cmd = c.command
  if type(cmd) ~= 'string' or cmd == '' then return false end
  return cmd:find('^%s*setf%a*%s+[%w._-]+%s*$') ~= nil
    or cmd:find('^%s*setl?o?c?a?l?%s+ft=[%w._-]+%s*$') ~= nil
    or cmd:find('^%s*setl?o?c?a?l?%s+filetype=[%w._-]+%s*$') ~= nil
end

return M
