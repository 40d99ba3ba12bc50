--- Source: every builtin Ex command, id `cmd:<fullname>`: its catalog entries and how a
--- step of one runs.
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
--- core's tables decide; the entries only describe.
---
--- A step runs through |nvim_cmd()| with the catalog's exact name, the arguments as a
--- list and `magic = { file = false, bar = false }`. Bang, mods, range, count and
--- register never come from the model (a command that takes a range gets the user's,
--- `:'<,'>Do`, and only as the plan window showed it), and model text never reaches
--- `vim.cmd`, `nvim_command`, `nvim_exec2`, `:execute` or `nvim_parse_cmd` (`:>` and `:<`
--- run from a command line of numbers leash writes, see |M.call()|).
---
--- Before it runs, the core's argument filter is applied again (|leash.policy|), and a step below
--- `shell` may neither name nor write a file that an autocommand reads or writes in
--- Neovim's place (|leash.name_handlers|). While a safe, edit or write step runs, the
--- handlers that replace reading a file (`term://`, netrw's URLs, zip) are ignored.
local M = {}
local H = {}

-- Module definition ==========================================================

-- Its name and the id prefix of its items (|leash.Source|).
M.name, M.prefix = 'commands', 'cmd'

-- Its entries come from the runtime files, parsed once (`static()` of |leash.catalog|;
-- |leash.sources| lists it as such).

--- Longest description kept per command, in bytes.
M.description_max = 600

--- Entries for every builtin Ex command except the withheld ones.
---@param ctx leash.SourceContext with the parsed runtime data (`static`, from |M.static()|)
---@return table[]
function M.entries(ctx) return ctx.static.commands end

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

--- Run a step of a `cmd:` item.
---@param entry table catalog entry
---@param step table validated step (`args` a list, `reach`)
---@param ctx? leash.ExecContext
---@return boolean? ok
---@return string? err
function M.run(entry, step, ctx)
  local name = entry.id:sub(5)
  if name == '' then return nil, 'not a command name' end
  local policy = require('leash.policy')
  local lists, lerr = policy.lists()
  if not lists then return nil, lerr end
  if lists.withheld[name] then return nil, ':' .. name .. ' is withheld from the catalog' end
  if vim.fn.exists(':' .. name) ~= 2 then return nil, ':' .. name .. ' does not exist' end
  -- A reach this side does not know is checked as the weakest here: the handlers apply.
  local rank = policy.rank_of(step.reach)
  local below_shell = rank == nil or rank < policy.rank_of('shell')
  local handlers = below_shell and require('leash.name_handlers').list() or nil
  local why = policy.check_command_args(name, step.reach, step.args, handlers)
  if why then return nil, why end
  if handlers then
    why = H.writes_handled_buffer(name, handlers)
    if why then return nil, why end
  end
  local range, rerr = require('leash.sources.shared.range').for_step(step, entry, ctx)
  if rerr then return nil, rerr end
  local function run() M.call({ cmd = name, args = step.args, range = range }, {}) end
  if below_shell and (rank or 0) <= policy.rank_of('write') then return H.without_read_handlers(run) end
  run()
  return true
end

--- Run builtin command `spec.cmd` through |nvim_cmd()| (arguments as a list, no
--- expansion of file names or `|`), as a step runs it and as the plan window's dry run
--- runs it on the copy. `:>` and `:<` are the exception: |nvim_cmd()| gives them no shift
--- amount, so they would shift by nothing; they run as typed, `:{range}>>> 3`, from a
--- command line leash writes itself from numbers: the range, the shifts and the count
--- read from the argument the core allowed (more of the same sign, then a count).
---@param spec { cmd: string, args?: string[], range?: integer[] }
---@param mods? table |nvim_cmd()| modifiers
---@param opts? { output?: boolean }
---@return string output
function M.call(spec, mods, opts)
  local args = spec.args
  if spec.cmd == '>' or spec.cmd == '<' then return H.shift(spec.cmd, args, spec.range, mods, opts) end
  local cmd = { cmd = spec.cmd, args = args, range = spec.range, magic = { file = false, bar = false } }
  if mods and next(mods) then cmd.mods = mods end
  return vim.api.nvim_cmd(cmd, { output = opts and opts.output or false })
end

--- `:[range]>` (or `<`): one 'shiftwidth' per sign on each line of the range (the
--- current line without one), or on `count` lines from its last line, the cursor on the
--- last line shifted, as when typed.
function H.shift(char, args, range, mods, opts)
  local arg = type(args) == 'table' and args[1] or ''
  if type(args) == 'table' and #args > 1 or type(arg) ~= 'string' then
    error((':%s takes one argument: more “%s” and a count'):format(char, char), 0)
  end
  local extra, count = arg:match('^(' .. vim.pesc(char) .. '*)%s*(%d*)%s*$')
  if not extra then error((':%s takes only more “%s” and a count, not “%s”'):format(char, char, arg), 0) end
  count = tonumber(count)
  -- The on/off modifiers leash passes itself (the dry run's), by name.
  local words = {}
  for name, on in pairs(mods or {}) do
    if on == true and name:match('^%l+$') then words[#words + 1] = name end
  end
  table.sort(words)
  local where = ''
  if type(range) == 'table' and range[1] then
    local first, last = math.floor(tonumber(range[1])), math.floor(tonumber(range[2] or range[1]))
    where = ('%d,%d'):format(first, last)
  end
  -- Every character of this line comes from a number or from `char` itself.
  words[#words + 1] = where .. char:rep(#extra + 1) .. (count and (' %d'):format(count) or '')
  local out = vim.api.nvim_exec2(table.concat(words, ' '), { output = opts and opts.output or false })
  return out.output or ''
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

-- Helper data ================================================================

-- Autocommand events whose handlers replace reading a file (term://, netrw, zip, tar).
H.read_handler_events = { 'BufReadCmd', 'FileReadCmd', 'SourceCmd' }

-- Commands that write the current buffer without a file argument, and those that write
-- every changed buffer.
H.writes_current = {
  write = true,
  update = true,
  xit = true,
  exit = true,
  wq = true,
  wnext = true,
  wNext = true,
  wprevious = true,
}
H.writes_all = { wall = true, wqall = true, xall = true }

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

H.read = require('leash.file').read

H.nargs = { ['0'] = 'none', ['?'] = 'optional', ['*'] = 'optional', ['1'] = 'required', ['+'] = 'required' }

--- Whether command `name` takes arguments, and whether it runs on a line range (its
--- address type is lines: `:sort`, `:write`, `:!`; not `:bdelete`'s buffers or
--- `:resize`'s count).
---@param name string
---@return 'none'|'optional'|'required' args
---@return boolean range
function H.definition(name)
  local ok, parsed = pcall(vim.api.nvim_parse_cmd, name, {})
  -- `:>>> 3` reads as `:>` with the argument `>> 3` (more shifts, a count of lines),
  -- which the core checks; Neovim reports no arguments for it.
  if ok and (name == '>' or name == '<') then return 'optional', parsed.addr == 'line' end
  if ok then return H.nargs[parsed.nargs] or 'optional', parsed.addr == 'line' end
  -- Parsing fails for modifiers (withheld) and a few odd names: assume it may take an
  -- argument, and no range.
  return 'optional', false
end

--- Why writing the buffers `:name` writes would run a handler, or nil. A write to a
--- name given as an argument is checked by the filter; this covers the buffer's own name
--- (`:write` in a `notes.gz` buffer runs gzip, and gzip.vim renames the file first).
function H.writes_handled_buffer(name, handlers)
  local bufs = {}
  if H.writes_current[name] then
    bufs = { vim.api.nvim_get_current_buf() }
  elseif H.writes_all[name] then
    bufs = vim.tbl_filter(function(b) return vim.bo[b].modified end, vim.api.nvim_list_bufs())
  end
  local nh = require('leash.name_handlers')
  handlers = vim.tbl_filter(nh.on_write, handlers)
  for _, b in ipairs(bufs) do
    local file = vim.api.nvim_buf_get_name(b)
    local h, herr
    if file ~= '' then
      h, herr = nh.match(file, handlers)
    end
    if herr then return herr end
    if h then
      return ('it would write “%s”, which %s writes (that can run a program); the plan did not show this step as [shell]'):format(
        require('leash.text').visible(vim.fn.fnamemodify(file, ':~:.')),
        nh.describe(h)
      )
    end
  end
end

--- Run `fn` (a step of reach safe, edit or write) so that no buffer it loads can reach
--- further than its label: the argument filter sees only the step's own arguments, but
--- the names a step opens may also come from text (a quickfix list made by :cbuffer or
--- :cfile, a tags file, the file name under the cursor for :wincmd f, a list of files).
--- A name like `term://cmd` is opened by a BufReadCmd handler that starts `cmd`; netrw
--- and the zip/tar plugins claim `scp://`, `https://`, `zipfile:`… the same way. While
--- the step runs those handlers are ignored, and a buffer with such a name that the
--- step created is wiped (so no later jump loads it) and the step fails. (The process
--- guard refuses any program they would start anyway; this gives the precise reason.)
---@param fn fun()
---@return boolean? ok
---@return string? err
function H.without_read_handlers(fn)
  local before = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    before[b] = true
  end
  local saved = vim.o.eventignore
  local ignore = table.concat(H.read_handler_events, ',')
  vim.o.eventignore = saved == '' and ignore or (saved .. ',' .. ignore)
  local ok, err = pcall(fn)
  vim.o.eventignore = saved
  local opened
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local name = not before[b] and vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_name(b) or ''
    if H.url_name(name) then
      opened = opened or name
      pcall(vim.api.nvim_buf_delete, b, { force = true })
    end
  end
  if opened then
    return nil,
      ('it opened “%s”, a name a handler would run or fetch; leash does not load it'):format(
        require('leash.text').visible(opened)
      )
  end
  if not ok then return nil, err end
  return true
end

--- Whether a buffer name is URL-like (`term://…`, `scp://…`, `zipfile:…`); a one-letter
--- scheme is a Windows drive.
function H.url_name(name) return name:find('^%a[%w+.-]+:') ~= nil end

return M
