--- The argument filter, applied again just before a step runs (defence in depth: the
--- native validator applied it when the plan was made).
---
--- It follows the core's rules for Neovim (`src/policy/neovim/`, the reach study's
--- recipe in `doc/reach.md` section 4.3) with the core's own lists and command rows
--- (|leash.policy|): no `|`, backticks, `+cmd`, `!cmd`, `term://` or other URL-like
--- names, expansion characters in file names, path traversal in runtime names, numbers
--- over the caps. On top of that, a step whose reach is not `shell` may not name a file
--- that an autocommand reads or writes in Neovim's place (|leash.name_handlers|): the
--- validator raises such a step to `shell`, so one that arrives lower was not shown as
--- running a program. `tests/nvim/filter_spec.lua` runs one corpus through this filter
--- and the native one and requires the same answers.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Why `:name args` must not run in a step of reach `reach`, or nil.
---@param name string the command's full name
---@param reach string the step's reach
---@param args string[]
---@param handlers? leash.NameHandler[] names read or written through handlers (default: none checked)
---@return string? why
function M.check_command_args(name, reach, args, handlers)
  local lists, err = require('leash.policy').lists()
  if not lists then return err or 'the policy lists are not available' end
  local row = lists.commands[name] or H.strictest
  local full = not H.rank[reach] or H.rank[reach] <= H.rank.write or (H.rank[row.raw] or H.rank.shell) > H.rank[reach]
  if vim.tbl_contains(lists.no_args, name) and #args > 0 then
    return (':%s is offered without arguments (its argument would be another command)'):format(name)
  end
  for _, a in ipairs(args) do
    if type(a) ~= 'string' then return 'an argument is not a string' end
    if #a > lists.max_text_bytes then return ('an argument is longer than %d bytes'):format(lists.max_text_bytes) end
    local what = ('argument “%s”'):format(require('leash.text').visible(a))
    if row.backticks and a:find('`', 1, true) then
      return what .. (' contains a backtick, which :%s hands to the shell even with expansion off'):format(name)
    end
    if row.name_arg then
      local why = H.check_name(a)
      if why then return ('%s for :%s %s'):format(what, name, why) end
    end
    if full then
      local why = M.check_arg(a, row)
      if why then return what .. why end
    end
  end
  local why = H.check_numbers(name, args, lists.number_arg_caps)
  if why then return why end
  if handlers and (H.rank[reach] or 0) < H.rank.shell and (row == H.strictest or row.xfile or row.loads_files) then
    return M.check_names(args, handlers)
  end
end

--- Why a file argument (`row`'s flags) cannot be passed on, as " …" after “argument “x””,
--- or nil. Also used for the arguments of user commands and user entries (`row = {}`).
---@param a string
---@param row table command row (flags as keys)
---@return string?
function M.check_arg(a, row)
  local why = require('leash.text').check(a)
  if why then return why end
  if a:find('`', 1, true) then return ' contains a backtick, which can run a shell command' end
  -- Only the first character after any white space matters here, so Unicode spaces may
  -- stand as ASCII ones.
  local start = H.spaced(a):gsub('^%s+', '')
  if start:find('^%+') then return ' starts with “+”, which Neovim can read as +cmd or ++opt' end
  if start:find('^!') then return ' starts with “!”, which is the form that runs a shell command' end
  if a:find('|', 1, true) then return ' contains “|”, which could start a second command' end
  if H.url_scheme(start) then return ' starts with a URL-like name that a handler opens (term:// runs a shell)' end
  if row.xfile then
    local c = a:match('[%%#*?%[{$]')
    if c then return (' contains “%s”, which Neovim may expand into other file names'):format(c) end
    if start:find('^~') then return ' starts with “~”, which Neovim expands to a home directory' end
    local word = a:match('<%a+>')
    if word then return (' contains “%s”, which Neovim replaces with text from the editor'):format(word) end
  end
  if row.xfile or row.loads_files then
    -- :args, :argadd, :next, :drop, :vimgrep… split one argument into several names at
    -- white space: every word gets the rules the first one gets.
    for _, w in ipairs(H.words(a)) do
      if w:find('^[+!]') then return (' has a word starting with “%s”'):format(w:sub(1, 1)) end
      if H.url_scheme(w) then return ' holds a URL-like name that a handler opens (term:// runs a shell)' end
      if w:find('^~') then return ' has a word starting with “~”, which Neovim expands to a home directory' end
    end
  end
end

--- Why the arguments name a file that an autocommand reads or writes in Neovim's place,
--- or nil: the whole argument and each white-space separated word are checked.
---@param args string[]
---@param handlers leash.NameHandler[]
---@return string?
function M.check_names(args, handlers)
  local nh = require('leash.name_handlers')
  for _, a in ipairs(args) do
    local names = H.words(a)
    table.insert(names, 1, vim.trim(H.spaced(a)))
    for _, n in ipairs(names) do
      local h = n ~= '' and nh.match(n, handlers)
      if h then
        return ('“%s” is read or written by %s, which can run a program; the plan did not show this step as [shell]'):format(
          require('leash.text').visible(n),
          nh.describe(h)
        )
      end
    end
  end
end

--- Arguments of a user command or a user entry: whatever reach was declared, the text
--- checks always apply, and below `shell` the file-argument rules too (a declared `safe`
--- entry must not receive `term://…`).
---@param args string[]
---@param reach string the step's reach
---@return string? why
function M.check_item_args(args, reach)
  for _, a in ipairs(args) do
    if type(a) ~= 'string' then return 'an argument is not a string' end
    local what = ('argument “%s”'):format(require('leash.text').visible(a))
    local why = require('leash.text').check(a)
    if not why and (H.rank[reach] or 0) < H.rank.shell then why = M.check_arg(a, H.item_row) end
    if why then return what .. why end
  end
end

-- Helper data ================================================================

H.rank = require('leash.policy').rank

-- A command the core's tables do not know gets the strictest filter.
H.strictest = {
  raw = 'shell',
  xfile = true,
  cmdarg = true,
  argopt = true,
  backticks = true,
  loads_files = true,
}

-- The rules for the argument of a user command or entry: it may be a file name.
H.item_row = { xfile = true, loads_files = true }

-- White space as the core sees it (Rust's `char::is_whitespace`), as UTF-8: Neovim
-- itself splits only at ASCII white space, so this is stricter, and it keeps the two
-- filters' answers equal.
H.unicode_spaces = {
  '\194\133',
  '\194\160',
  '\225\154\128',
  '\226\128\168',
  '\226\128\169',
  '\226\128\175',
  '\226\129\159',
  '\227\128\128',
}
for cp = 0x2000, 0x200A do
  H.unicode_spaces[#H.unicode_spaces + 1] = vim.fn.nr2char(cp)
end

-- Helper functionality =======================================================

--- `s` with every white-space character (ASCII or Unicode) replaced by one ASCII space.
function H.spaced(s)
  if not s:find('[\194\225\226\227]') then return s end
  for _, sp in ipairs(H.unicode_spaces) do
    s = s:gsub(vim.pesc(sp), ' ')
  end
  return s
end

--- The white-space separated words of `s` (ASCII and Unicode white space).
function H.words(s)
  local out = {}
  for w in H.spaced(s):gmatch('%S+') do
    out[#out + 1] = w
  end
  return out
end

--- `term:`, `https:`, `C:`… at the start: `[A-Za-z][A-Za-z0-9+.-]*:`.
function H.url_scheme(s) return s:find('^%a[%w+.-]*:') ~= nil end

--- A runtime-file name (`desert`, `gcc`, `c.doxygen`): " …why" or nil.
function H.check_name(s)
  if s == '' or not s:find('^[%w_.-]+$') then
    return 'must be a plain name (letters, digits, “_”, “.”, “-”)'
  end
  if s:find('..', 1, true) then return 'contains “..”, which could reach outside the runtime directories' end
end

--- The numbers in the arguments of a command with a cap: why one is too large, or nil.
function H.check_numbers(name, args, caps)
  local cap = caps[name]
  if not cap then return end
  for _, a in ipairs(args) do
    local millis = name == 'sleep' and a:find('m%s*$') ~= nil
    for run in a:gmatch('%d+') do
      local n = tonumber(run) or math.huge
      if millis then n = math.floor(n / 1000) end
      if n > cap then
        return ('argument “%s” for :%s is above the limit %d leash allows'):format(
          require('leash.text').visible(a),
          name,
          cap
        )
      end
    end
  end
end

return M
