--- Catalog source: every builtin Ex command, id `cmd:<fullname>`.
---
--- Titles and abbreviations come from `$VIMRUNTIME/doc/index.txt` (the ex-cmd-index
--- lines `|:vsplit|	:vs[plit]	split current window vertically`), `args` and `range`
--- from the command's definition (`nvim_parse_cmd` on the bare name reports `nargs`, and
--- `addr = 'line'` for a command that runs on a line range), and a
--- searchable `description` from the help text that follows the command's `*:name*`
--- tag in the runtime's help files (the ranker weighs it below the title; the prompt
--- does not show it).
---
--- Every builtin is declared `reach = 'safe'` here on purpose: the Rust Neovim profile
--- raises each command to the class its tables give it (`:!` to shell, `:lua` to code,
--- `:write` to write, …), and a declared reach can only be raised, never lowered. The
--- core's tables decide; this file only describes.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Longest description kept per command, in bytes.
M.description_max = 600

--- Entries for every builtin Ex command except the withheld ones.
---@param static table parsed runtime data from |M.static()|
---@return table[]
function M.entries(static) return static.commands end

--- The parts that depend only on the Neovim build and its runtime files (cacheable):
--- the builtin commands, and the help text of user commands the runtime documents.
---@return { commands: table[], user_help: table<string, string> }
function M.static()
  local index = M.parse_index(vim.env.VIMRUNTIME .. '/doc/index.txt')
  local user = {}
  for name in pairs(vim.api.nvim_get_commands({ builtin = false })) do
    user[name] = true
  end
  for name in pairs(vim.api.nvim_buf_get_commands(0, { builtin = false })) do
    user[name] = true
  end
  -- The core withholds the command modifiers, the :set family, :execute, :normal… (its
  -- list, |leash.policy|); leaving them out keeps them off the shortlist too.
  local lists = require('leash.policy').lists()
  local withheld = lists and lists.withheld or {}

  local names = {}
  for _, name in ipairs(vim.fn.getcompletion('', 'command')) do
    if not user[name] and not withheld[name] then names[#names + 1] = name end
  end
  local help = M.parse_help(vim.env.VIMRUNTIME .. '/doc', names, index)
  -- `:wincmd {arg}` is CTRL-W {arg}: what those keys do is what it does, and the help
  -- above it says nothing of that ("make all windows the same size").
  local ctrl_w = M.parse_ctrl_w(vim.env.VIMRUNTIME .. '/doc/index.txt')
  if help.wincmd and ctrl_w ~= '' then help.wincmd = help.wincmd .. ' ' .. ctrl_w end

  -- Help of the user commands the runtime defines and documents (`:Explore`,
  -- `:TOhtml`, `:Tutor`): their definitions say little ("call tutor#TutorCmd(…)").
  local user_help = {}
  for name, text in pairs(help) do
    if not index[name] and name:find('^%u') then user_help[name] = text end
  end

  local out = {}
  for _, name in ipairs(names) do
    local doc = index[name]
    local aliases = {}
    if doc and doc.abbr and doc.abbr ~= name then aliases[1] = doc.abbr end
    local args, range = H.definition(name)
    out[#out + 1] = {
      id = 'cmd:' .. name,
      kind = 'command',
      title = doc and doc.title or (':' .. name),
      aliases = aliases,
      args = args,
      range = range or nil,
      reach = 'safe', -- raised by the core's Neovim profile; see the file header
      description = help[name],
    }
  end
  return { commands = out, user_help = user_help }
end

--- Parse the ex-cmd-index of `doc/index.txt` into `{ [fullname] = { title, abbr } }`.
--- Only the first line of a title is kept (a handful continue on the next line).
---@param path string
---@return table<string, { title: string, abbr?: string }>
function M.parse_index(path)
  local out = {}
  local text = H.read(path)
  if not text then return out end
  -- Reading the whole file and matching only `|:` lines is ~5x faster than f:lines().
  for spec, title in text:gmatch('\n|:[^|\n]*|[ \t]+:(%S+)[ \t]+([^\n]*)') do
    local full = spec:gsub('[%[%]]', '')
    -- The first line for a name wins (a few names appear twice, e.g. with a range).
    if not out[full] then out[full] = { title = vim.trim(title), abbr = spec:match('^([^%[]+)%[') } end
  end
  return out
end

--- The window commands of `doc/index.txt` (`|CTRL-W_=|	CTRL-W =	   make all windows
--- the same height & width`) as one text: each title once, with its continuation
--- lines, without the "same as" and "no-op" lines.
---@param path string
---@return string
function M.parse_ctrl_w(path)
  local text = H.read(path)
  local from = text and text:find('\n|CTRL%-W_')
  if not from then return '' end
  local out, seen, title = {}, {}, nil
  local function flush()
    title = title and vim.trim((title:gsub('[|`]', ''):gsub('%s+', ' ')))
    if title and title ~= '' and not seen[title] and not title:find('^same as') and title ~= 'no-op' then
      seen[title] = true
      out[#out + 1] = title
    end
    title = nil
  end
  for line in text:sub(from + 1):gmatch('[^\n]*') do
    -- The keys end at a tab or at two spaces ("CTRL-W g CTRL-]  split window …").
    local keys = line:match('^|CTRL%-W_[^|]*|%s+CTRL%-W (.*)$') or line:match('^%s+CTRL%-W (.*)$')
    local t = keys and (keys:match('^[^\t]-\t%s*(.*)$') or keys:match('^.-  +(.*)$'))
    if t then
      flush()
      title = t
    elseif title and line:find('^%s+%S') then
      title = title .. ' ' .. line
    elseif line ~= '' then
      flush()
      if not line:find('^|') then break end
    end
  end
  flush()
  return table.concat(out, '; ')
end

--- The help text of each command: the lines after a `*:name*` tag (or a tag with an
--- abbreviation of the name, or `*:name!*`) in `dir/*.txt`, without the command
--- syntax, tags and links, whitespace collapsed, at most |M.description_max| bytes.
--- A block ends at the next command tag, a section rule, or a paragraph of prose that
--- starts in the first column.
---@param dir string the runtime's doc directory
---@param names string[] full command names
---@param index table<string, { abbr?: string }> from |M.parse_index()|
---@return table<string, string>
function M.parse_help(dir, names, index)
  local texts = {}
  for file in vim.fs.dir(dir) do
    if file:sub(-4) == '.txt' then texts[#texts + 1] = H.read(dir .. '/' .. file) end
  end
  return M.parse_help_texts(texts, names, index)
end

--- |M.parse_help()| over help files already read.
---@param texts string[]
---@param names string[]
---@param index table<string, { abbr?: string }>
---@return table<string, string>
function M.parse_help_texts(texts, names, index)
  -- Every accepted spelling of a name (`vs`, `vsp`, … `vsplit`) → the full name.
  local full = {}
  for _, name in ipairs(names) do
    local abbr = index[name] and index[name].abbr or name
    for i = #abbr, #name do
      local short = name:sub(1, i)
      if not full[short] or short == name then full[short] = name end
    end
  end
  local parts, sizes = {}, {}
  for _, text in ipairs(texts) do
    if text:find('*:', 1, true) then H.help_blocks(text, full, parts, sizes) end
  end
  local out = {}
  for name, list in pairs(parts) do
    local s = vim.trim((table.concat(list, ' '):gsub('%s+', ' ')))
    if #s > M.description_max then s = s:sub(1, M.description_max):gsub('%s+%S*$', '') end
    if s ~= '' then out[name] = s end
  end
  return out
end

-- Helper functionality =======================================================

--- Adds the help blocks of one file to `parts[name]`. Only lines with a `*:` tag and
--- the lines after them are read (plain finds: the 5 MB of help take a few ms).
function H.help_blocks(text, full, parts, sizes)
  local pos = 1
  while true do
    local at = text:find('*:', pos, true)
    if not at then return end
    local ls = at
    while ls > 1 and text:byte(ls - 1) ~= 10 do
      ls = ls - 1
    end
    local le = text:find('\n', at, true) or #text + 1
    local tagged = H.tagged(text:sub(ls, le - 1), full)
    pos = le + 1
    if tagged then
      -- The tag line itself, then the lines after it until the block ends.
      local line, blank, first = text:sub(ls, le - 1), false, true
      while true do
        if not first then
          if line:find('%*:[^%s*]+%*') and H.tagged(line, full) then break end
          if line:find('^[=%-][=%-][=%-]') then break end
          if line:find('%*[^%s*]+%*%s*$') and line:find('^%a') and not line:find('^CTRL') then break end
          if blank and line:find('^%a') and not line:find('^CTRL') then break end
        end
        first = false
        blank = line:find('^%s*$') ~= nil
        if not blank then
          local body = line:gsub('%*[^%s*]+%*', '')
          -- `:res[ize] +N<Tab>Set the height`: drop the syntax before the first tab (or,
          -- in plugins' help, the first run of spaces: `:Git {args}      Run an…`).
          if body:find('^[:%[{]') or body:find('^CTRL') then
            body = body:match('^[^\t]*\t+(.*)$') or body:match('^%S.-%s%s%s+(%S.*)$') or ''
          end
          body = body:gsub('[|`]', ''):gsub('%s+', ' ')
          if body:find('%S') then
            local room = false
            for _, name in ipairs(tagged) do
              local size = sizes[name] or 0
              if size < M.description_max then
                room = true
                parts[name] = parts[name] or {}
                table.insert(parts[name], body)
                sizes[name] = size + #body + 1
              end
            end
            if not room then break end
          end
        end
        if le > #text then break end
        local nl = text:find('\n', le + 1, true) or #text + 1
        line, le = text:sub(le + 1, nl - 1), nl
      end
    end
  end
end

--- The full command names a line's `*:name*` tags name (abbreviations and `*:name!*`
--- resolved; a capitalised tag that is no builtin names a user command the runtime
--- documents, `*:TOhtml*`), or nil.
function H.tagged(line, full)
  local tagged = nil
  for tag in line:gmatch('%*:([^%s*]+)%*') do
    local name = full[tag] or full[(tag:gsub('[!_].*$', ''))] or tag:match('^%u[%w]*$')
    if name and not (tagged and vim.list_contains(tagged, name)) then
      tagged = tagged or {}
      tagged[#tagged + 1] = name
    end
  end
  return tagged
end

function H.read(path)
  local f = io.open(path, 'rb')
  if not f then return nil end
  local text = f:read('*a')
  f:close()
  return text
end

H.nargs = { ['0'] = 'none', ['?'] = 'optional', ['*'] = 'optional', ['1'] = 'required', ['+'] = 'required' }

--- Whether command `name` takes arguments, and whether it runs on a line range (its
--- address type is lines: `:sort`, `:write`, `:!`; not `:bdelete`'s buffers or
--- `:resize`'s count).
---@param name string
---@return 'none'|'optional'|'required' args
---@return boolean range
function H.definition(name)
  local ok, parsed = pcall(vim.api.nvim_parse_cmd, name, {})
  if ok then return H.nargs[parsed.nargs] or 'optional', parsed.addr == 'line' end
  -- Parsing fails for modifiers (withheld) and a few odd names: assume it may take an
  -- argument, and no range.
  return 'optional', false
end

return M
