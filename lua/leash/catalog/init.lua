--- The catalog: every entry from every enabled source (the registry, |leash.sources|,
--- in its order), handed to the core once and reused until a source changes.
---
--- Builtin commands and options depend only on the Neovim build and its runtime files:
--- they are parsed once, and the parsed form is cached on disk keyed by `$VIMRUNTIME`,
--- the Neovim and leash builds and the files' mtimes. A session hands that file's text to
--- the core, which parses it once and builds every catalog on it; the Lua side reads only
--- a small summary of it (counts, setting keys, help of documented user commands) before
--- the request leaves, and the entries themselves while the model answers. Every other source (user
--- commands, described mappings, LSP, diagnostics, scripts, Git, files, terminal, the
--- user's entries) is asked on every |M.get()|, and each answers cheaply when nothing it
--- lists changed: it hands back the very list it gave last time (user commands and
--- mappings compare what Neovim lists now with what their entries were built from; the
--- core, which discovers scripts, Git and files, compares the files' time stamps). Only a
--- source whose list is new has its ids, titles, args, reaches and pins compared, and
--- only a difference there rebuilds the core's catalog.
local M = {}
local H = {}
-- Interpreted, not compiled: its loops run once per request and call Neovim's C API at
-- every turn, which ends LuaJIT's traces; compiling them cost more than it saved (the
-- first :Do of a session spent milliseconds on it, scripts/bench-do).
if jit then jit.off(true, true) end

-- Module definition ==========================================================

---@class leash.CatalogState
---@field handle leash.Catalog the core's catalog (userdata)
---@field entries table[] the entries it was built from (made on first use: right after
---  the request left, or when something reads it)
---@field settings table[] its settings (`key`, `kind`), without making `entries`
---@field counts table<string, integer> entries per source
---@field generation integer the sources' generation it was built from (|H.collect()|)

--- The entries of every enabled source. Scripts, Git and files come from the native
--- library; without it those three are empty (and nothing can run anyway).
---@return table[] entries
---@return table<string, integer> counts per source
---@return string signature
---@return leash.NameHandler[] handlers names read or written through autocommands
---@return { code_dirs: string[], cwd: string } where the folders Neovim loads code from, the current directory
function M.entries()
  local c = H.collect()
  local sig = {}
  for _, name in ipairs(require('leash.sources').names) do
    sig[#sig + 1] = c.parts[name].sig
  end
  sig[#sig + 1] = c.handlers_sig
  sig[#sig + 1] = c.where_sig
  return H.merge(c.parts), c.counts, table.concat(sig, '\1'), c.handlers, c.where
end

--- The core's catalog, built on first use and rebuilt only when a source changed.
---@return leash.CatalogState? state
---@return string? err
function M.get()
  local c = H.collect()
  if H.state and H.state.generation == H.generation then return H.state end
  local native, err = require('leash.native').load()
  if not native then return nil, err end
  -- The runtime sources' entries go to the core as the text they were read from (or
  -- cached as): it parses them once per session and builds every catalog on them, so a
  -- rebuild converts only the entries of the other sources.
  -- The rest (and the name handlers and folders) go as JSON text, which crosses to the
  -- core faster than the tables (a third less time for a real config's mappings): each
  -- source's text is its signature, made when its list was new.
  local base = H.base(c.parts)
  local ok, handle = pcall(
    function()
      return native.catalog_new(H.json(c.parts), 'neovim', {
        name_handlers = require('leash.name_handlers').json(c.handlers),
        code_dirs = vim.json.encode(c.where.code_dirs),
        cwd = c.where.cwd,
        base = base,
      })
    end
  )
  if not ok then return nil, 'leash: the core rejected the catalog: ' .. require('leash.native').message(handle) end
  H.state = H.new_state(handle, c)
  return H.state
end

--- `{ [id] = entry }` of `entries` (a catalog snapshot; none: an empty map). An entry
--- without a string id is left out.
---@param entries? table[]
---@return table<string, table>
function M.by_id(entries)
  local map = {}
  for _, e in ipairs(entries or {}) do
    if type(e) == 'table' and type(e.id) == 'string' then map[e.id] = e end
  end
  return map
end

--- Forget the built catalog (the parsed runtime data stays).
function M.invalidate()
  H.state, H.parts, H.handlers = nil, {}, nil
end

--- The catalog file text: `{"version":1,"editor":"neovim","entries":[…]}`.
---@return string? json
---@return string? err
function M.to_json()
  local state, err = M.get()
  if not state then return nil, err end
  if state.handle.to_json then return state.handle:to_json() end
  return vim.json.encode({ version = 1, editor = 'neovim', entries = state.entries })
end

--- Write the catalog file to `path`.
---@param path string
---@return boolean ok
---@return string msg
function M.export(path)
  local json, err = M.to_json()
  if not json then return false, err end
  path = vim.fs.normalize(vim.fn.fnamemodify(path, ':p'))
  local f, ferr = io.open(path, 'w')
  if not f then
    -- io.open's error starts with the path again; the reason goes first, where a message
    -- area of 80 columns still shows it, the path (which the user typed) after it.
    local why = tostring(ferr):gsub('^' .. vim.pesc(path) .. ': ', '')
    return false, ('leash: cannot write the catalog (%s): %s'):format(why, path)
  end
  f:write(json)
  f:close()
  return true, path
end

--- Builtin commands and options, parsed once (and cached on disk): `commands` and
--- `options` (read from the disk cache when first used), `counts` of both, `settings`
--- (each option's `key` and `kind`) and `user_help`.
---@return { commands: table[], options: table[], counts: table<string, integer>, settings: table[], user_help: table<string, string> }
function M.static()
  if H.static then return H.static end
  local key = H.cache_key()
  local file = H.use_disk and ('%s/leash/runtime-%s'):format(vim.fn.stdpath('cache'), key)
  local summary = file
    and vim.uv.fs_stat(file .. '.json')
    and H.decode_summary(require('leash.file').read(file .. '-summary.json'))
  local static
  if summary then
    -- The core reads and parses the entries when it builds the session's first catalog
    -- (about a millisecond); Lua decodes them when first read (after the request left).
    H.base_source = { path = file .. '.json' }
    static = setmetatable(H.summary_table(summary), {
      __index = function(t, k)
        if k ~= 'commands' and k ~= 'options' then return nil end
        -- The core parsed this very file; if Lua cannot, nothing may run from it.
        local data = H.decode(require('leash.file').read(file .. '.json'))
        if not data then error(('leash: the runtime cache %s.json does not read; delete it'):format(file), 0) end
        rawset(t, 'commands', data.commands)
        rawset(t, 'options', data.options)
        return rawget(t, k)
      end,
    })
  else
    local commands = require('leash.sources.commands').static()
    local data = {
      commands = commands.commands,
      user_help = commands.user_help,
      options = require('leash.sources.options').static().options,
    }
    local text = vim.json.encode(data)
    H.base_source = { text = text }
    summary = H.summary(data)
    static = H.summary_table(summary)
    static.commands, static.options = data.commands, data.options
    if file then
      H.write_cache(file .. '.json', text)
      H.write_cache(file .. '-summary.json', vim.json.encode(summary))
      H.prune_cache(vim.fs.dirname(file))
    end
  end
  H.static, H.static_key, H.cache_file = static, key, file
  return static
end

--- Drop every cache, including the parsed runtime data (tests and benchmarks).
---@param opts? { disk?: boolean } disk = false skips the disk cache on the next build
function M.reset(opts)
  H.state, H.static, H.base_source, H.cache_file, H.parts, H.handlers = nil, nil, nil, nil, {}, nil
  require('leash.sources.shared.plugin_help').reset(opts)
  H.use_disk = not (opts and opts.disk == false)
end

-- Helper data ================================================================

---@type leash.CatalogState?
H.state = nil
H.static = nil
H.use_disk = true

--- Where the core reads the runtime entries of |H.static| (its cache file, or the JSON
--- text it was written as), and their key.
---@type { path?: string, text?: string }?, string?
H.base_source, H.static_key = nil, nil

--- The runtime cache's path without its extension (false when the disk cache is off):
--- the core keeps its ranker's index of the runtime entries beside it.
---@type string|false|nil
H.cache_file = nil

--- What each source listed last, and its signature, by source name: `{ list, sig }`, or
--- for a runtime source `{ static, sig }` (|M.static()|, holding its list under its name).
---@type table<string, { list?: table[], static?: table, sig: string }>
H.parts = {}

--- Bumped whenever a source's signature, the name handlers or the code folders change:
--- the built catalog is current while its generation is this one.
H.generation = 0
H.handlers_sig, H.where_sig = nil, nil
-- The folders and directory the last `where_sig` was made from.
H.where_dirs, H.where_cwd = nil, nil
-- The name handlers the last signature was made from.
H.handlers = nil

-- A disabled source lists this (the same table every time: unchanged).
H.none = {}

-- Bump when the parsed shape changes.
H.cache_version = 8

-- How many runtime caches (of different builds) stay on disk.
H.caches_kept = 3

-- Helper functionality =======================================================

--- Ask every enabled source for its entries, and the name handlers and code folders;
--- bump |H.generation| when any of them changed since the last call.
---@return { parts: table<string, { list?: table[], static?: table, sig: string }>, counts: table<string, integer>, handlers: leash.NameHandler[], handlers_sig: string, where: { code_dirs: string[], cwd: string }, where_sig: string }
function H.collect()
  local cfg = require('leash.config').get()
  local enabled = cfg.sources or {}
  -- The runtime data holds the builtin commands and the options: parsed only for them.
  local static = (enabled.commands ~= false or enabled.options ~= false) and M.static() or nil
  local core ---@type leash.CoreSources?
  ---@type leash.SourceContext
  local ctx = {
    config = cfg,
    static = static,
    core = function()
      core = core or require('leash.sources.shared.core_sources').discover()
      return core
    end,
  }
  local sources = require('leash.sources')
  local changed, counts = false, {}
  for _, name in ipairs(sources.names) do
    local on, part = enabled[name] ~= false, H.parts[name]
    if on and sources.from_runtime[name] then
      -- The runtime data changes only with |M.reset()|: its table stands for its entries,
      -- which are not read here (|M.static()|).
      if not (part and rawequal(part.static, static)) then
        local sig = name .. '=' .. static.counts[name]
        if not (part and part.sig == sig) then changed = true end
        H.parts[name] = { static = static, sig = sig }
      end
      counts[name] = static.counts[name]
    else
      local list = on and sources.get(name).entries(ctx) or H.none
      -- The same list as last time is the same entries: a source answers so when nothing
      -- it lists changed. A new list is compared by what the core and the pins see.
      if not (part and rawequal(part.list, list)) then
        local sig = H.signature(list)
        if not (part and part.sig == sig) then changed = true end
        H.parts[name] = { list = list, sig = sig }
      end
      counts[name] = #list
    end
  end
  -- The names Neovim reads or writes through autocommands go to the core with the
  -- entries: its validator raises a step that names one.
  local handlers = require('leash.name_handlers').list()
  local handlers_sig = H.handlers_sig
  -- The same list as last time is the same handlers (|leash.name_handlers|).
  if not rawequal(handlers, H.handlers) then
    local hsig = {}
    for i, h in ipairs(handlers) do
      hsig[i] = h.pattern .. '\0' .. h.event .. '\0' .. h.group
    end
    handlers_sig, H.handlers = table.concat(hsig, '\1'), handlers
  end
  -- The folders Neovim loads code from and the current directory: the validator labels
  -- a write into one of them `code` (|leash.code_dirs|).
  local where = { code_dirs = require('leash.code_dirs').list(), cwd = vim.uv.cwd() or '' }
  -- The same list as last time is the same folders (|leash.code_dirs.list()|).
  local where_sig = H.where_sig
  if not (rawequal(where.code_dirs, H.where_dirs) and where.cwd == H.where_cwd) then
    where_sig = where.cwd .. '\0' .. table.concat(where.code_dirs, '\0')
    H.where_dirs, H.where_cwd = where.code_dirs, where.cwd
  end
  if changed or handlers_sig ~= H.handlers_sig or where_sig ~= H.where_sig then
    H.generation = H.generation + 1
    H.handlers_sig, H.where_sig = handlers_sig, where_sig
  end
  return {
    parts = H.parts,
    counts = counts,
    handlers = handlers,
    handlers_sig = handlers_sig,
    where = where,
    where_sig = where_sig,
  }
end

--- A source's entries as the core receives them: their JSON text, every field (what the
--- core, the ranker, the plan window and the pins see), so that a new list that reads
--- the same is the same entries. The catalog is sent as these texts joined.
---@param list table[]
---@return string
function H.signature(list) return #list > 0 and vim.json.encode(list) or '[]' end

--- The JSON text of the entries of every source of `parts` that is not a runtime source
--- (|H.base()| holds those), in the registry's order, from their signatures.
function H.json(parts)
  local texts = {}
  for _, name in ipairs(require('leash.sources').names) do
    local part = parts[name]
    if not part.static and part.sig ~= '[]' then texts[#texts + 1] = part.sig:sub(2, -2) end
  end
  return '[' .. table.concat(texts, ',') .. ']'
end

--- The entries of `parts` (|H.parts| or a catalog's copy of it) in the registry's order,
--- as one list.
function H.merge(parts)
  local entries = {}
  for _, name in ipairs(require('leash.sources').names) do
    local part = parts[name]
    for _, e in ipairs(part.list or part.static[name]) do
      entries[#entries + 1] = e
    end
  end
  return entries
end

--- The runtime sources' entries for the core (`catalog_new`'s `base`): the parsed
--- runtime data's text and key, and the lists of the enabled runtime sources (each
--- source's list is the member of its name), or nil when none is enabled.
function H.base(parts)
  local lists = {}
  for _, name in ipairs(require('leash.sources').names) do
    if parts[name].static then lists[#lists + 1] = name end
  end
  if #lists == 0 then return nil end
  -- One index file per choice of lists (the core checks it is of these very entries).
  local index = H.cache_file and ('%s-index-%s.bin'):format(H.cache_file, table.concat(lists, '+')) or nil
  return { key = H.static_key, path = H.base_source.path, text = H.base_source.text, lists = lists, index = index }
end

--- The state of a catalog built now: its entries are made from a copy of |H.parts| when
--- first read (the planner reads them once the request left: |leash.planner|).
---@param handle leash.Catalog
---@param c table what |H.collect()| returned
---@return leash.CatalogState
function H.new_state(handle, c)
  local parts, settings = {}, {}
  for name, part in pairs(c.parts) do
    parts[name] = part
    if part.static then
      -- The runtime data's settings are its options (|H.summary()|).
      if name == 'options' then vim.list_extend(settings, part.static.settings) end
    else
      for _, e in ipairs(part.list) do
        if e.key and e.kind == 'setting' then settings[#settings + 1] = e end
      end
    end
  end
  local state = setmetatable({ handle = handle, counts = c.counts, generation = H.generation, settings = settings }, {
    __index = function(t, k)
      if k ~= 'entries' then return nil end
      local entries = H.merge(parts)
      rawset(t, 'entries', entries)
      return entries
    end,
  })
  return state
end

--- The key of everything the parsed runtime data depends on (its disk cache files are
--- named after it, and the core keeps its parse of the data under it): the runtime files
--- it is parsed from, the Neovim binary (its options and commands), and the native
--- library (the commands it withholds are left out).
---@return string
function H.cache_key()
  local rt = vim.env.VIMRUNTIME
  local library = require('leash.native').status().path or '(no native library)'
  local key = { H.cache_version, rt, vim.v.progpath, library }
  local function stamp(path)
    local st = vim.uv.fs_stat(path)
    key[#key + 1] = st and (st.mtime.sec .. '.' .. st.mtime.nsec .. '.' .. st.size) or 'missing'
  end
  stamp(vim.v.progpath)
  stamp(library)
  for _, rel in ipairs({ 'doc/index.txt', 'doc/quickref.txt', 'doc/vim_diff.txt', 'lua/vim/_meta/options.lua' }) do
    stamp(rt .. '/' .. rel)
  end
  return H.hash(table.concat(key, '\n'))
end

--- A 64-bit FNV-1a hash of `s` as 16 hex digits: a file name, not a checksum (the
--- first |sha256()| of a session costs milliseconds).
---@param s string
---@return string
function H.hash(s)
  local bit = require('bit')
  -- Two 32-bit halves, each FNV-1a with its own offset basis.
  local a, b = 0x811c9dc5, 0x050c5d1f
  for i = 1, #s do
    local c = s:byte(i)
    a, b = bit.bxor(a, c), bit.bxor(b, c)
    -- × 16777619 (2^24 + 403) in 32 bits, without losing bits in a double.
    a = bit.tobit(bit.lshift(a, 24) + a * 403)
    b = bit.tobit(bit.lshift(b, 24) + b * 403)
  end
  return bit.tohex(a) .. bit.tohex(b)
end

--- The parsed runtime data of a cache file's text, or nil when it does not hold it.
function H.decode(text)
  local ok, data = pcall(vim.json.decode, text, { luanil = { object = true, array = true } })
  if ok and type(data) == 'table' and type(data.commands) == 'table' and type(data.options) == 'table' then
    return data
  end
end

--- What the Lua side needs of the runtime data before a request leaves: the number of
--- commands and options, the options' keys, and the user commands' help (the summary
--- file's content).
function H.summary(data)
  local keys = {}
  for _, e in ipairs(data.options) do
    if e.key and e.kind == 'setting' then keys[#keys + 1] = e.key end
  end
  return {
    counts = { commands = #data.commands, options = #data.options },
    setting_keys = keys,
    user_help = next(data.user_help or {}) and data.user_help or vim.empty_dict(),
  }
end

--- The summary file's data, or nil when it does not hold one.
function H.decode_summary(text)
  if not text then return nil end
  local ok, data = pcall(vim.json.decode, text, { luanil = { object = true, array = true } })
  if
    ok
    and type(data) == 'table'
    and type(data.counts) == 'table'
    and type(data.setting_keys) == 'table'
    and type(data.user_help) == 'table'
  then
    return data
  end
end

--- |M.static()|'s table for a summary: its counts, user commands' help and settings.
function H.summary_table(summary)
  local settings = {}
  for i, key in ipairs(summary.setting_keys) do
    settings[i] = { key = key, kind = 'setting' }
  end
  return { counts = summary.counts, settings = settings, user_help = summary.user_help }
end

--- Remove the runtime caches of older builds (half a megabyte each, with the core's
--- index of them; a new Neovim or leash build writes a new one): the newest few stay,
--- for builds used side by side.
function H.prune_cache(dir)
  local stamps, files = {}, {}
  for name in vim.fs.dir(dir) do
    local key = name:match('^runtime%-(%x+)')
    if key then
      files[key] = files[key] or {}
      table.insert(files[key], name)
    end
    local st = name == ('runtime-%s.json'):format(key) and vim.uv.fs_stat(dir .. '/' .. name)
    if st then stamps[#stamps + 1] = { key = key, mtime = st.mtime.sec } end
  end
  table.sort(stamps, function(a, b) return a.mtime > b.mtime end)
  for i = H.caches_kept + 1, #stamps do
    for _, name in ipairs(files[stamps[i].key]) do
      os.remove(dir .. '/' .. name)
    end
  end
end

function H.write_cache(file, text)
  vim.fn.mkdir(vim.fs.dirname(file), 'p')
  local tmp = ('%s.%d.tmp'):format(file, vim.uv.os_getpid())
  local f = io.open(tmp, 'w')
  if not f then return end
  f:write(text)
  f:close()
  vim.uv.fs_rename(tmp, file)
end

return M
