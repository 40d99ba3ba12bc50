--- Source: every option, keyed by its full name, as a typed setting: its catalog entries
--- and the settings runner.
---
--- From `nvim_get_all_options_info()`: type, scope, short name, and whether a string
--- option is a comma list or a flag list. From the runtime files: the values of a
--- single-choice option (`--- @type 'yes'|'no'|…` in `lua/vim/_meta/options.lua`, only
--- when the set is closed), a one-line title (`doc/quickref.txt`, falling back to the
--- first sentence of the option's documentation) and a longer description (the doc
--- comment before `vim.o.<name>` in `_meta/options.lua`, trimmed).
---
--- The items a list option takes come from Neovim's option-value completion
--- (`getcompletion('set clipboard=', 'cmdline')`): `list = 'comma'` or `'flags'` with
--- `values`. An item that takes an argument (`context:`) becomes a pattern
--- (`context:{number}`, see the core's `policy/values.rs`); |H.patterns| holds what
--- completion cannot tell (the argument of `fillchars` items is one character, the items
--- of 'colorcolumn' are numbers). A string option with neither is free text that
--- Neovim alone checks when the step runs.
---
--- No reach is declared: the core's Neovim profile knows which options name a program,
--- an expression or a file and raises them (doc/design.md, "The one rule", rule 3). Every
--- rule that sets or raises an option's reach is in crates/leash-core/src/profile/neovim/
--- (its module doc lists them).
---
--- Its steps are settings, not items (it has no id prefix): |M.set()| sets one
--- (`nvim_set_option_value`, `:set` semantics or `:setlocal` when the step says local)
--- and records the old values, which |M.restore()| puts back for `:Leash undo`.
local M = {}
local H = {}

-- Module definition ==========================================================

-- Its name (|leash.Source|); no prefix: its steps are settings.
M.name = 'options'

-- Its entries come from the runtime files, parsed once (`static()` of |leash.catalog|;
-- |leash.sources| lists it as such).

--- Longest description kept per option, in bytes.
M.description_max = 2000

--- Entries for every option.
---@param ctx leash.SourceContext with the parsed runtime data (`static`, from |M.static()|)
---@return table[]
function M.entries(ctx) return ctx.static.options end

--- The parts that depend only on the Neovim build and its runtime files (cacheable).
---@return { options: table[] }
function M.static()
  local rt = vim.env.VIMRUNTIME
  local meta = M.parse_meta(rt .. '/lua/vim/_meta/options.lua')
  local quick = M.parse_quickref(rt .. '/doc/quickref.txt')
  local out = {}
  local infos = vim.api.nvim_get_all_options_info()
  local names = vim.tbl_keys(infos)
  table.sort(names)
  local removed = M.parse_removed(rt .. '/doc/vim_diff.txt')
  for _, name in ipairs(names) do
    if H.settable(name, infos[name], meta[name], removed) then
      out[#out + 1] = H.entry(name, infos[name], meta[name] or {}, quick)
    end
  end
  return { options = out }
end

--- Whether Neovim lets a plan change option `name`. Left out: what `doc/vim_diff.txt`
--- lists as removed (the name stays for old scripts: 'compatible', 'ttyfast'… refuse any
--- change with E519, 'maxcombine' ignores it), options hidden in this build (neither
--- documented in `_meta/options.lua` nor offered by completion, not even their current
--- value: 'guioptions', 'mouseshape'…), and what is "only modifiable in MS-Windows"
--- elsewhere.
function H.settable(name, info, doc, removed)
  if removed[name] then return false end
  if doc then return not (doc.text:find('only modifiable in MS-Windows', 1, true) and vim.fn.has('win32') == 0) end
  if info.type == 'boolean' then return true end
  local ok, words = pcall(vim.fn.getcompletion, 'set ' .. name .. '=', 'cmdline')
  return ok and #words > 0
end

--- The options `doc/vim_diff.txt` lists as removed from Neovim (the `*'name'*` tags of
--- the Options paragraph under `*nvim-removed*`).
---@param path string
---@return table<string, true>
function M.parse_removed(path)
  local out = {}
  local text = H.read(path)
  local at = text and text:find('*nvim-removed*', 1, true)
  local start = at and text:find('\nOptions:\n', at, true)
  if not start then return out end
  local stop = text:find('\n\n%S[^\n]*:\n', start + 1) or #text
  for name in text:sub(start, stop):gmatch("%*'([%w_]+)'%*") do
    out[name] = true
  end
  return out
end

--- One option's entry.
function H.entry(name, info, doc, quick)
  local aliases = {}
  if info.shortname and info.shortname ~= '' and info.shortname ~= name then aliases[1] = info.shortname end
  local flat = doc.text and vim.trim((doc.text:gsub('%s+', ' '))) or nil
  local entry = {
    key = name,
    kind = 'setting',
    title = quick[name] or H.first_sentence(flat) or ("'" .. name .. "'"),
    type = info.type,
    scope = H.scope(info),
    aliases = aliases,
    description = H.trim(flat),
  }
  if info.type ~= 'string' then return entry end
  if doc.values then
    local unsettable = H.unsettable[name] or {}
    entry.values = vim.tbl_filter(function(v) return not vim.list_contains(unsettable, v) end, doc.values)
  else
    entry.list, entry.values = M.list_values(name, vim.api.nvim_get_option_info2(name, {}))
  end
  return entry
end

--- Parse `_meta/options.lua` into `{ [name] = { text, values? } }`.
---
--- The file is a sequence of blank-line separated blocks: a `---` doc comment, a
--- `--- @type …` line, then `vim.o.<name> = …` assignments.
---@param path string
---@return table<string, { text: string, values?: string[] }>
function M.parse_meta(path)
  local out = {}
  local text = H.read(path)
  if not text then return out end
  -- Walking the blank-line separated blocks with plain finds is ~10x faster than a
  -- loop over the 8,000 lines.
  local pos = 1
  while true do
    local stop = text:find('\n\n', pos, true)
    local block = text:sub(pos, (stop or 0) - 1)
    if block:sub(1, 4) == '--- ' then
      local at = block:find('\n--- @type ', 1, true)
      if at then
        local ty, name = block:match('^([^\n]*)\nvim%.o%.([%w_]+) =', at + 11)
        if name and not out[name] then
          -- Keep a little more than `description_max`: it is trimmed later.
          local doc = block:sub(1, math.min(at - 1, M.description_max + 200))
          out[name] = { text = doc:gsub('\n%-%-%- ?', '\n'):sub(5), values = H.values(ty) }
        end
      end
    end
    if not stop then break end
    pos = stop + 2
  end
  return out
end

--- What a string option that is not a closed single choice takes: `'comma'` or
--- `'flags'` and the allowed items (literals and patterns), or `nil, { … }` for a single
--- choice that Neovim stores as a list ('winborder'), or nothing (free text).
---@param name string
---@param info vim.api.keyset.get_option_info
---@return ('comma'|'flags')? list
---@return string[]? values
function M.list_values(name, info)
  local fixed = H.patterns[name]
  if fixed == false then return nil, nil end
  local kind = info.flaglist and not info.commalist and 'flags' or (info.commalist and 'comma') or nil
  if type(fixed) == 'table' and fixed.items then
    return not fixed.single and (fixed.list or kind) or nil, vim.deepcopy(fixed.items)
  end
  if not kind and not (type(fixed) == 'table' and fixed.single) then return nil, nil end
  local words = H.completion(name, info)
  if #words == 0 then return nil, nil end
  local values, seen = {}, {}
  local function add(v)
    if not seen[v] then
      seen[v] = true
      values[#values + 1] = v
    end
  end
  for _, word in ipairs(words) do
    for _, v in ipairs(H.expand(name, word, words, fixed)) do
      add(v)
    end
  end
  for _, v in ipairs(type(fixed) == 'table' and fixed.extra or {}) do
    add(v)
  end
  if type(fixed) == 'table' and fixed.single then return nil, values end
  return kind, values
end

--- Parse the option lines of `doc/quickref.txt` into `{ [name] = title }`.
---@param path string
---@return table<string, string>
function M.parse_quickref(path)
  local out = {}
  local text = H.read(path)
  if not text then return out end
  for name, rest in text:gmatch("\n'([%w_]+)'[ \t]+([^\n]*)") do
    rest = vim.trim((rest:gsub("^'[%w_]+'%s+", '')))
    if rest ~= '' and not out[name] then out[name] = rest end
  end
  return out
end

---@class leash.SettingRecord
---@field key string
---@field kind 'global'|'win'|'buf'
---@field scope? 'local'
---@field old_global any
---@field old_local any
---@field win integer
---@field buf integer

--- Set the option of a setting step; returns the record undo needs.
---@param step table validated setting step
---@return leash.SettingRecord? record
---@return string? err
function M.set(step)
  local key, value = step.key, step.value
  if type(key) ~= 'string' or not key:match('^[%w_]+$') then return nil, 'not an option name' end
  local vt = type(value)
  if vt ~= 'boolean' and vt ~= 'number' and vt ~= 'string' then return nil, 'the value has no option type' end
  if vt == 'string' then
    local why = require('leash.text').check(value)
    if why then return nil, 'the value' .. why end
    if value:find('`', 1, true) then return nil, 'the value contains a backtick' end
  end
  local info = vim.api.nvim_get_option_info2(key, {})
  -- Only exact full names: an alias would name another option than the one shown.
  if info.name ~= key then return nil, ("'%s' is not the option's full name"):format(key) end
  local scope = step.scope == 'local' and 'local' or nil
  local rec = {
    key = key,
    kind = info.scope,
    scope = scope,
    win = vim.api.nvim_get_current_win(),
    buf = vim.api.nvim_get_current_buf(),
    -- While the process guard runs the step, 'shell' is its refusal program: the
    -- value to restore is the user's.
    old_global = require('leash.guard').user_option(key),
  }
  if info.scope ~= 'global' then rec.old_local = vim.api.nvim_get_option_value(key, { scope = 'local' }) end
  vim.api.nvim_set_option_value(key, value, { scope = scope })
  return rec
end

--- Put back the values `rec` saw, in the window or buffer it changed.
---@param rec leash.SettingRecord
function M.restore(rec)
  if rec.kind == 'global' then return vim.api.nvim_set_option_value(rec.key, rec.old_global, { scope = 'global' }) end
  if rec.scope ~= 'local' then vim.api.nvim_set_option_value(rec.key, rec.old_global, { scope = 'global' }) end
  if rec.kind == 'buf' then
    if not vim.api.nvim_buf_is_valid(rec.buf) then error('its buffer is gone', 0) end
    return vim.api.nvim_set_option_value(rec.key, rec.old_local, { buf = rec.buf })
  end
  if not vim.api.nvim_win_is_valid(rec.win) then error('its window is gone', 0) end
  vim.api.nvim_win_call(
    rec.win,
    function() vim.api.nvim_set_option_value(rec.key, rec.old_local, { scope = 'local' }) end
  )
end

-- Helper data ================================================================

--- What option-value completion cannot tell, per option. `false`: free text, whatever
--- completion offers (its words are suggestions, not the whole set). `items`: the
--- allowed items when completion has none. `args`: the pattern of each item's
--- argument (an item `'x'` becomes `'x:' .. pattern`, an item `'x:'` becomes
--- `'x:' .. pattern`; a `false` pattern drops the item); `args_all` applies to every
--- item. `extra`: items completion does not list. `single`: one of the values, not a
--- list. Items ending in `:` that are not listed take `{number}`.
---@type table<string, false|{ items?: string[], list?: string, args?: table<string, string|string[]|false>, args_all?: string, extra?: string[], single?: boolean }>
H.patterns = {
  -- Encoding names beyond the completed ones are valid ('ucs-bom', 'default', iconv's).
  fileencodings = false,
  colorcolumn = { items = { '{number}', '+{number}', '-{number}' } },
  vartabstop = { items = { '{number}' } },
  varsofttabstop = { items = { '{number}' } },
  matchpairs = { items = { '{char}:{char}' } },
  -- Completion lists highlight groups; the items are `{from}:{to}` pairs of them.
  winhighlight = { items = { '{name}:{name}' } },
  fillchars = { args_all = '{char}' },
  listchars = {
    args_all = '{char}',
    args = {
      tab = { '{char}{char}', '{char}{char}{char}' },
      multispace = { '{char}', '{char}{char}', '{char}{char}{char}', '{char}{char}{char}{char}' },
      leadmultispace = { '{char}', '{char}{char}', '{char}{char}{char}', '{char}{char}{char}{char}' },
    },
  },
  -- `expr:` evaluates code and `file:` reads a file: free text that leash does not offer.
  spellsuggest = { args = { ['expr:'] = false, ['file:'] = false }, extra = { '{number}' } },
  -- A comma list in Neovim's tables, but one border name or eight characters.
  winborder = { single = true },
  -- Neovim always uses UTF-8 (E519 for anything else).
  encoding = { single = true, items = { 'utf-8' } },
}

-- Values the documentation lists but only Neovim itself sets ('buftype' "terminal" is
-- E474 from :set).
H.unsettable = { buftype = { 'terminal' } }

-- Helper functionality =======================================================

--- The words option-value completion offers for `name`. `:set name=<Tab>` offers the
--- current value first, and an option without a vocabulary offers only that: a word is
--- kept when it is one flag of a flag list, or when completing its first character
--- offers it again (the current value of a path or pattern option is not offered so).
---@param name string
---@param info vim.api.keyset.get_option_info
---@return string[]
function H.completion(name, info)
  local function complete(text)
    local ok, words = pcall(vim.fn.getcompletion, 'set ' .. name .. text, 'cmdline')
    return ok and words or {}
  end
  local by_first = {}
  local function offered(word)
    local first = vim.fn.strcharpart(word, 0, 1)
    by_first[first] = by_first[first] or complete('=' .. vim.fn.escape(first, ' \\|"'))
    return vim.list_contains(by_first[first], word)
  end
  local out, seen = {}, {}
  for _, list in ipairs({ complete('='), complete('+=') }) do
    for _, w in ipairs(list) do
      if w ~= '' and not seen[w] then
        seen[w] = true
        local keep
        if info.flaglist then
          keep = vim.fn.strchars(w) == 1
        else
          keep = offered(w)
        end
        if keep then out[#out + 1] = w end
      end
    end
  end
  return out
end

--- The allowed items one completed word stands for: itself, or `word..pattern` for an
--- item that takes an argument (the argument's words from completion when it has them:
--- 'diffopt' `algorithm:` → `algorithm:myers`, …).
---@param name string
---@param word string
---@param words string[] every word of the option, to tell argument words from items
---@param fixed? table the option's row in |H.patterns|
---@return string[]
function H.expand(name, word, words, fixed)
  fixed = type(fixed) == 'table' and fixed or {}
  local args = fixed.args or {}
  local key = word
  local pattern = args[key]
  if pattern == nil and word:sub(-1) == ':' then pattern = args[word:sub(1, -2)] end
  if pattern == nil then pattern = fixed.args_all end
  if pattern == false then return {} end
  local head = word:sub(-1) == ':' and word or (pattern and (word .. ':') or word)
  if pattern then
    local out = {}
    for _, p in ipairs(type(pattern) == 'table' and pattern or { pattern }) do
      out[#out + 1] = head .. p
    end
    return out
  end
  if word:sub(-1) ~= ':' then
    -- An item with its argument already written (`inline:char`, the current value's
    -- `linematch:40`) is covered by the pattern of its `inline:` item when there is one.
    local prefix = word:match('^([^:]+:)')
    if prefix and vim.list_contains(words, prefix) then return {} end
    return { word }
  end
  -- `algorithm:` completes to its own words; `context:` to nothing (a number).
  local ok, sub = pcall(vim.fn.getcompletion, 'set ' .. name .. '=' .. word, 'cmdline')
  local own = {}
  for _, w in ipairs(ok and sub or {}) do
    if w ~= '' and w:sub(-1) ~= ':' and not vim.list_contains(words, w) then own[#own + 1] = word .. w end
  end
  if #own > 0 then return own end
  return { word .. '{number}' }
end

H.read = require('leash.file').read

H.scopes = { global = 'global', win = 'window', buf = 'buffer' }

function H.scope(info)
  if info.global_local then return 'global-local' end
  return H.scopes[info.scope] or info.scope
end

--- `'a'|'b'|'c'` → { 'a', 'b', 'c' }; nil unless every alternative is a literal.
---@param ty? string
---@return string[]?
function H.values(ty)
  if not ty or ty:sub(1, 1) ~= "'" then return nil end
  local values = {}
  for alt in vim.gsplit(ty, '|', { plain = true }) do
    local v = alt:match("^'([^']*)'$")
    if not v then return nil end
    values[#values + 1] = v
  end
  return values
end

---@param flat? string whitespace already collapsed
function H.first_sentence(flat)
  if not flat or flat == '' then return nil end
  local s = flat:match('^(.-[%.:])%s') or flat
  if #s > 100 then s = s:sub(1, 97) .. '...' end
  return s
end

---@param flat? string whitespace already collapsed
function H.trim(flat)
  if not flat then return nil end
  if #flat > M.description_max then flat = flat:sub(1, M.description_max):gsub('%s+%S*$', '') .. ' ...' end
  return flat
end

return M
