--- Source: user commands (global and buffer-local), id `user:<name>`: their catalog
--- entries and how a step of one runs.
---
--- A user command can run any Vimscript or Lua that leash cannot see into, so its reach
--- is declared `plugin`: shown with the plugin it belongs to where that can be told
--- (|leash.sources.shared.origin|) and confirmed like `shell`; the core never lowers it. A
--- lazy.nvim stand-in (`:Telescope` before telescope.nvim is loaded) is named after the
--- plugin it loads and says so. A plugin's command is described by the plugin's own help
--- (|leash.sources.shared.plugin_help|), so the ranker can find it. Each command is pinned
--- (|M.pin()|): what runs must be what the catalog described, or the step is refused.
---
--- A step runs the command's current definition, through |nvim_cmd()| with the
--- arguments as a list and expansion off. The command must still be the one the catalog
--- pinned: the same buffer's (by number) or the global one, the same definition, and for
--- a Lua callback the same function reference (|nvim_get_commands()| shows two Lua
--- callbacks with one description alike; `:command` names each by its reference). A
--- lazy.nvim stand-in is loaded by leash itself before the step runs its command, and
--- the command that loading defined is the one that runs; a command that took the
--- stand-in's name some other way is refused. The arguments get the text checks always and, unless the step is shown as
--- `shell`, the file-argument rules (|leash.policy.check_item_args()|): a command whose
--- reach was declared lower must not receive `term://…`, `+cmd` or `|`.
local M = {}
local H = {}
-- Interpreted, not compiled: its loops run once per request and call Neovim's C API at
-- every turn, which ends LuaJIT's traces; compiling them cost more than it saved (the
-- first :Do of a session spent milliseconds on it, scripts/bench-do).
if jit then jit.off(true, true) end
local origin = require('leash.sources.shared.origin')
local plugin_help = require('leash.sources.shared.plugin_help')

-- Module definition ==========================================================

-- Its name and the id prefix of its items (|leash.Source|).
M.name, M.prefix = 'user_commands', 'user'

--- Entries for the user commands visible from `ctx.bufnr`. The help text by command
--- name of the runtime's own documented commands (`ctx.static.user_help`) is kept as
--- their searchable description. The same list as last time when the commands it was
--- built from are the same (|leash.catalog| then compares nothing more).
---@param ctx? leash.SourceContext
---@return table[]
function M.entries(ctx)
  local bufnr, help = ctx and ctx.bufnr, ctx and ctx.static and ctx.static.user_help
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local sets = {
    vim.api.nvim_buf_get_commands(bufnr, { builtin = false }), -- buffer-local win over global
    vim.api.nvim_get_commands({ builtin = false }),
  }
  -- Each Lua callback's reference, read in one listing: a redefinition changes it even
  -- when every field above stays the same.
  local refs, files = H.lua_refs(bufnr)
  -- What the entries are made from (everything a pin records: the buffer, each
  -- command's pinned fields, its callback's reference, what it loads as a lazy.nvim
  -- stand-in; and the help data), field by field, is compared in place with what the
  -- last list was made from: nothing is built for a command unless something changed.
  -- Then the entries are made again only for commands that are new or changed (finding
  -- a command's plugin and reading the plugin's help is what costs).
  local last = H.last
  local context = table.concat({ tostring(help), origin.plugin_generation(), plugin_help.generation() }, '\31')
  local check =
    require('leash.sources.shared.fields').compare(last.fields, last.list ~= nil and last.context == context)
  local put = check.put
  local found, seen = {}, {}
  -- In the listing's own order: the list is sorted only when it is made again.
  for set, cmds in ipairs(sets) do
    for name, def in pairs(cmds) do
      if not seen[name] then
        seen[name] = true
        local loads = origin.lazy_command(name)
        local owner, ref = set == 1 and bufnr or nil, refs[name]
        found[#found + 1] =
          { set = set, name = name, def = def, loads = loads, owner = owner, ref = ref, file = files[name] }
        put(name)
        put(owner or false)
        put(ref or false)
        put(loads and table.concat(loads, ',') or false)
        for _, k in ipairs(H.pinned_fields) do
          put(def[k] == nil and vim.NIL or def[k])
        end
      end
    end
  end
  if check.done() then return last.list end
  last.list = nil
  -- A buffer's own commands first, each set by name.
  table.sort(found, function(a, b)
    if a.set ~= b.set then return a.set < b.set end
    return a.name < b.name
  end)
  local out, made = {}, {}
  for _, f in ipairs(found) do
    f.pin = M.pin(f.def, f.owner, f.loads, f.ref)
    local key = f.name .. '\31' .. f.pin
    local entry = last.context == context and last.made[key] or H.entry(f, help)
    made[key] = entry
    out[#out + 1] = entry
  end
  last.list, last.context, last.made = out, context, made
  return out
end

--- Run a step of a `user:` item.
---@param entry table catalog entry
---@param step table validated step
---@param ctx? leash.ExecContext
---@return boolean? ok
---@return string? err
function M.run(entry, step, ctx)
  local name = entry.id:sub(6)
  if not name:match('^%u[%w]*$') then return nil, 'not a user command name' end
  local defined = vim.api.nvim_buf_get_commands(0, {})[name] or vim.api.nvim_get_commands({})[name]
  if not defined then return nil, ':' .. name .. ' is no longer defined' end
  local now = M.current_pin(name)
  if entry.pin and now == entry.pin and H.is_stand_in(now) then
    -- Load the plugin here, so the command its loading defines is the one that runs
    -- (the stand-in would load it and run whatever `:name` is then).
    local loaded, lerr = H.load_stand_in(name)
    if not loaded then return nil, lerr end
    now = M.current_pin(name)
  end
  if entry.pin and not (now and M.same(entry.pin, now, name)) then
    return nil,
      (':%s is not the command the plan showed now (another buffer’s command, a redefinition, or another plugin took its name)'):format(
        name
      )
  end
  local why = require('leash.policy').check_item_args(step.args, step.reach)
  if why then return nil, why end
  local range, rerr = require('leash.sources.shared.range').for_step(step, entry, ctx)
  if rerr then return nil, rerr end
  vim.api.nvim_cmd(
    { cmd = name, args = step.args, range = range, magic = { file = false, bar = false } },
    { output = false }
  )
  return true
end

--- What identifies a user command: the buffer it belongs to (its number) or none, its
--- definition (its description, arguments, range, bang, defining script…) and, for a
--- Lua callback, the reference `:command` shows for it (`<Lua 123>`), which a
--- redefinition changes even when every other field stays the same. A lazy.nvim
--- stand-in is pinned by what it loads.
---@param def table a command as |nvim_get_commands()| returns it
---@param bufnr? integer the buffer a buffer-local command belongs to (nil: global)
---@param loads? string[] the plugins a lazy.nvim stand-in loads
---@param ref? string the Lua reference of its callback, when it has one
---@return string
function M.pin(def, bufnr, loads, ref)
  local owner = bufnr and ('buffer ' .. bufnr) or 'global'
  if loads then return owner .. '\31lazy:' .. table.concat(loads, ',') end
  local parts = { owner }
  for _, k in ipairs(H.pinned_fields) do
    parts[#parts + 1] = tostring(def[k])
  end
  parts[#parts + 1] = 'lua:' .. (ref or '')
  return table.concat(parts, '\31')
end

--- The pin of the command `name` would run now in the current buffer, or nil.
---@param name string
---@return string?
function M.current_pin(name)
  local bufnr = vim.api.nvim_get_current_buf()
  local local_def = vim.api.nvim_buf_get_commands(bufnr, { builtin = false })[name]
  local def = local_def or vim.api.nvim_get_commands({ builtin = false })[name]
  if not def then return nil end
  local owner = local_def and bufnr or nil
  return M.pin(def, owner, origin.lazy_command(name), H.lua_ref(name, bufnr))
end

--- Whether the command now (`now`, its pin) is the one the catalog pinned: the same, or
--- for a lazy.nvim stand-in, the command that leash's own loading of its plugin defined
--- (|M.run()| loads it; an earlier step that ran a stand-in of the same plugin did too).
--- A stand-in replaced some other way (another plugin took the name, or the plugin was
--- loaded by something leash did not watch) is not the same: which code runs cannot be
--- told, so the step is refused and a new plan shows the command as it is now.
---@param pinned string
---@param now string
---@param name string the command's name
---@return boolean
function M.same(pinned, now, name)
  if pinned == now then return true end
  local loaded = H.loaded_as[name]
  return H.is_stand_in(pinned) and loaded ~= nil and loaded.from == pinned and loaded.pin == now
end

-- Helper data ================================================================

--- What leash's loading of a lazy.nvim plugin defined, by command name: the pin of the
--- stand-in it replaced (`from`) and of the command it became (`pin`).
---@type table<string, { from: string, pin: string }>
H.loaded_as = {}

--- The last list made (nil while one is being made), the fields of every command it was
--- made from, the help data and plugin generations it was made with, and each command's
--- entry by its key.
H.last = { list = nil, fields = {}, context = nil, made = {} }

-- The last `:command` listing |H.lua_refs()| read, and what it read from it.
---@type { out: string, refs: table<string, string>, files: table<string, string> }?
H.refs_read = nil

H.pinned_fields =
  { 'definition', 'nargs', 'range', 'count', 'addr', 'bang', 'bar', 'register', 'complete', 'script_id' }

-- Helper functionality =======================================================

function H.is_stand_in(pin) return pin:find('\31lazy:', 1, true) ~= nil end

--- The reference of the Lua callback of `:name` as `:command` lists it (`<Lua 123>`;
--- `<Lua function>` is a completion function, not it), as seen from buffer `bufnr` (its
--- own command shadows a global one there); nil for a Vimscript command.
---@param name string
---@param bufnr? integer
---@return string?
function H.lua_ref(name, bufnr) return H.lua_refs(bufnr, name)[name] end

--- The references of the Lua callbacks of every user command seen from buffer `bufnr`
--- (or of those whose names begin with `prefix`), by name, as |H.lua_ref()| reads each,
--- and the files that define those callbacks (which name a plugin's command's plugin,
--- |leash.sources.shared.origin.of_command()|): one listing instead of one per command.
---@param bufnr? integer
---@param prefix? string
---@return table<string, string> refs
---@return table<string, string> files
function H.lua_refs(bufnr, prefix)
  local function list() return vim.api.nvim_exec2('command ' .. (prefix or ''), { output = true }).output end
  local ok, out
  if bufnr and bufnr ~= vim.api.nvim_get_current_buf() and vim.api.nvim_buf_is_valid(bufnr) then
    ok, out = pcall(vim.api.nvim_buf_call, bufnr, list)
  else
    ok, out = pcall(list)
  end
  if not ok or type(out) ~= 'string' then return {}, {} end
  -- The same listing as last time reads the same (asked on every request).
  local read = H.refs_read
  if read and read.out == out then return read.refs, read.files end
  local refs, files, seen = {}, {}, {}
  for line in out:gmatch('[^\n]+') do
    -- Four columns of flags (`!"b|`), then the name; the first line of a name is the
    -- command that name runs (a buffer's own is listed before a global one). Not the
    -- title line (`Name Args …`), nor a description's or `Last set from` line.
    local name = line:sub(5):match('^(%S+)')
    if name and not seen[name] and line:sub(1, 4):match('^[!"b| ]*$') and not line:match('^ *Name +Args ') then
      seen[name] = true
      refs[name] = line:match('<Lua (%d+)')
      files[name] = line:match('<Lua %d+: (.-):%d+>')
    end
  end
  H.refs_read = { out = out, refs = refs, files = files }
  return refs, files
end

--- Load the plugins of the lazy.nvim stand-in `:name` through lazy.nvim's
--- loader, and remember every stand-in that loading replaced and with what, so the step
--- (and a later step of the same plugin's commands) runs what it defined. Returns true,
--- or nil and why not.
---@return boolean? ok
---@return string? err
function H.load_stand_in(name)
  local loader = package.loaded['lazy.core.loader']
  local plugins = origin.lazy_command(name)
  if type(loader) ~= 'table' or type(loader.load) ~= 'function' or not plugins then
    return nil, (':%s is a lazy.nvim stand-in, but lazy.nvim’s loader is not there to load its plugin'):format(name)
  end
  local before = {}
  for cmd in pairs(vim.api.nvim_get_commands({ builtin = false })) do
    before[cmd] = M.current_pin(cmd)
  end
  local ok, err = pcall(loader.load, plugins, { cmd = name })
  if not ok then return nil, ('loading %s failed: %s'):format(table.concat(plugins, ', '), tostring(err)) end
  for cmd in pairs(vim.api.nvim_get_commands({ builtin = false })) do
    local now = M.current_pin(cmd)
    if before[cmd] and now and now ~= before[cmd] and H.is_stand_in(before[cmd]) then
      H.loaded_as[cmd] = { from = before[cmd], pin = now }
    end
  end
  return true
end

--- The catalog entry of a user command (`f`: its name, definition, pin and what it loads
--- as a lazy.nvim stand-in).
function H.entry(f, help)
  local def, name, loads = f.def, f.name, f.loads
  local plugin = loads and table.concat(loads, ', ') or origin.of_command(def, f.file)
  return {
    id = 'user:' .. name,
    kind = 'user_command',
    title = loads and H.stand_in_title(name, plugin) or H.title(def),
    aliases = {},
    args = H.nargs[def.nargs] or 'optional',
    -- Defined with -range (and lines for addresses): runs on the user's range.
    range = (def.range == '.' or def.range == '%') and (def.addr == nil or def.addr == 'lines') or nil,
    reach = 'plugin', -- a callback can do anything; see the file header
    plugin = plugin,
    loads = loads and #loads > 0 or nil,
    pin = f.pin,
    description = help and help[name] or H.plugin_help(name, loads, plugin),
  }
end

--- A lazy.nvim stand-in has no description of its own: the plugin's name stands in.
function H.stand_in_title(name, plugin)
  return (':%s command of %s (loads it)'):format(name, plugin ~= '' and plugin or 'a lazy-loaded plugin')
end

--- A plugin's command the runtime does not document: what the plugin's help says.
function H.plugin_help(name, loads, plugin)
  local plugins = loads or (plugin and plugin ~= 'your config' and plugin ~= 'Neovim' and { plugin }) or nil
  return plugins and plugin_help.describe(name, plugins) or nil
end

H.nargs = { ['0'] = 'none', ['?'] = 'optional', ['*'] = 'optional', ['1'] = 'required', ['+'] = 'required' }

function H.title(def)
  local desc = def.definition or ''
  -- Lua callbacks show their `desc` as the definition; Vimscript ones the command text.
  desc = vim.trim((desc:gsub('%s+', ' ')))
  if desc == '' then return ':' .. def.name end
  if #desc > 120 then desc = desc:sub(1, 117) .. '...' end
  return desc
end

return M
