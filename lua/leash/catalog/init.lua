--- The catalog: every entry from every enabled source (the registry, |leash.sources|,
--- in its order), handed to the core once and reused until a source changes.
---
--- Builtin commands and options depend only on the Neovim build and its runtime files:
--- they are parsed once per session, and the parsed form is cached on disk keyed by
--- `$VIMRUNTIME`, the Neovim version and the files' mtimes. Every other source (user
--- commands, described mappings, LSP, diagnostics, scripts, Git, files, terminal, the
--- user's entries) is collected on every |M.get()| (cheap: the core, which discovers
--- scripts, Git and files, caches what it parses by file mtime), and their ids, titles,
--- args and reaches form the signature that decides whether the core's catalog must be
--- rebuilt.
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.CatalogState
---@field handle leash.Catalog the core's catalog (userdata)
---@field entries table[] the entries it was built from
---@field counts table<string, integer> entries per source
---@field signature string

--- The entries of every enabled source. Scripts, Git and files come from the native
--- library; without it those three are empty (and nothing can run anyway).
---@return table[] entries
---@return table<string, integer> counts per source
---@return string signature
---@return leash.NameHandler[] handlers names read or written through autocommands
---@return { code_dirs: string[], cwd: string } where the folders Neovim loads code from, the current directory
function M.entries()
  local cfg = require('leash.config').get()
  local enabled = cfg.sources or {}
  -- The runtime data holds the builtin commands and the options: parsed only for them.
  local static = (enabled.commands ~= false or enabled.options ~= false) and M.static() or nil
  local parts, counts, sig = {}, {}, {}
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
  for _, name in ipairs(sources.names) do
    local list = {}
    if enabled[name] ~= false then
      local source = sources.get(name)
      list = source.entries(ctx)
      if not source.from_runtime then
        for _, e in ipairs(list) do
          sig[#sig + 1] = table.concat(
            { e.id, e.title, e.args, e.reach or '', e.cwd or '', e.range and 'r' or '', e.pin or '' },
            '\0'
          )
        end
      end
    end
    counts[name] = #list
    parts[#parts + 1] = list
    sig[#sig + 1] = name .. '=' .. #list
  end
  local entries = {}
  for _, list in ipairs(parts) do
    for _, e in ipairs(list) do
      entries[#entries + 1] = e
    end
  end
  -- The names Neovim reads or writes through autocommands go to the core with the
  -- entries: its validator raises a step that names one.
  local handlers = require('leash.name_handlers').list()
  for _, h in ipairs(handlers) do
    sig[#sig + 1] = h.pattern .. '\0' .. h.event .. '\0' .. h.group
  end
  -- The folders Neovim loads code from and the current directory: the validator labels
  -- a write into one of them `code` (|leash.code_dirs|).
  local where = { code_dirs = require('leash.code_dirs').list(), cwd = vim.uv.cwd() or '' }
  sig[#sig + 1] = where.cwd .. '\0' .. table.concat(where.code_dirs, '\0')
  return entries, counts, table.concat(sig, '\1'), handlers, where
end

--- The core's catalog, built on first use and rebuilt only when a source changed.
---@return leash.CatalogState? state
---@return string? err
function M.get()
  local entries, counts, sig, handlers, where = M.entries()
  if H.state and H.state.signature == sig then return H.state end
  local native, err = require('leash.native').load()
  if not native then return nil, err end
  local ok, handle = pcall(
    native.catalog_new,
    entries,
    'neovim',
    { name_handlers = handlers, code_dirs = where.code_dirs, cwd = where.cwd }
  )
  if not ok then return nil, 'leash: the core rejected the catalog: ' .. require('leash.native').message(handle) end
  H.state = { handle = handle, entries = entries, counts = counts, signature = sig }
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
function M.invalidate() H.state = nil end

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
  if not f then return false, ('leash: cannot write %s: %s'):format(path, ferr) end
  f:write(json)
  f:close()
  return true, path
end

--- Builtin commands and options, parsed once per session (and cached on disk).
---@return { commands: table[], options: table[], user_help: table<string, string> }
function M.static()
  if H.static then return H.static end
  local file = H.cache_file()
  local data = file and H.read_cache(file)
  if not data then
    local commands = require('leash.sources.commands').static()
    data = {
      commands = commands.commands,
      user_help = commands.user_help,
      options = require('leash.sources.options').static().options,
    }
    if file then H.write_cache(file, data) end
  end
  H.static = data
  return data
end

--- Drop every cache, including the parsed runtime data (tests and benchmarks).
---@param opts? { disk?: boolean } disk = false skips the disk cache on the next build
function M.reset(opts)
  H.state, H.static = nil, nil
  require('leash.sources.shared.plugin_help').reset()
  H.use_disk = not (opts and opts.disk == false)
end

-- Helper data ================================================================

---@type leash.CatalogState?
H.state = nil
H.static = nil
H.use_disk = true

-- Bump when the parsed shape changes.
H.cache_version = 6

-- Helper functionality =======================================================

--- Disk cache path keyed by everything the parsed data depends on.
---@return string?
function H.cache_file()
  if not H.use_disk then return nil end
  local rt = vim.env.VIMRUNTIME
  -- The withheld commands are left out of the parsed data: the core's list is part of the key.
  local lists = require('leash.policy').lists()
  local withheld = lists and vim.tbl_keys(lists.withheld) or { '(no native library)' }
  table.sort(withheld)
  local key = { H.cache_version, rt, tostring(vim.version()), table.concat(withheld, ',') }
  for _, rel in ipairs({ 'doc/index.txt', 'doc/quickref.txt', 'doc/vim_diff.txt', 'lua/vim/_meta/options.lua' }) do
    local st = vim.uv.fs_stat(rt .. '/' .. rel)
    key[#key + 1] = st and (st.mtime.sec .. '.' .. st.size) or 'missing'
  end
  return ('%s/leash/runtime-%s.json'):format(vim.fn.stdpath('cache'), vim.fn.sha256(table.concat(key, '\n')):sub(1, 16))
end

function H.read_cache(file)
  local text = require('leash.file').read(file)
  if not text then return nil end
  local ok, data = pcall(vim.json.decode, text, { luanil = { object = true, array = true } })
  if ok and type(data) == 'table' and type(data.commands) == 'table' and type(data.options) == 'table' then
    return data
  end
end

function H.write_cache(file, data)
  vim.fn.mkdir(vim.fs.dirname(file), 'p')
  local tmp = ('%s.%d.tmp'):format(file, vim.uv.os_getpid())
  local f = io.open(tmp, 'w')
  if not f then return end
  f:write(vim.json.encode(data))
  f:close()
  vim.uv.fs_rename(tmp, file)
end

return M
