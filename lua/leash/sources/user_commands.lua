--- Source: user commands (global and buffer-local), id `user:<name>`: their catalog
--- entries and how a step of one runs.
---
--- A user command can run any Vimscript or Lua that leash cannot see into, so its reach
--- is declared `plugin`: shown with the plugin it belongs to where that can be told
--- (|leash.sources.shared.origin|) and confirmed like `shell`; the core never lowers it. A
--- lazy.nvim stand-in (`:Telescope` before telescope.nvim is loaded) is named after the
--- plugin it loads and says so. A plugin's command is described by the plugin's own help
--- (|leash.sources.shared.plugin_help|), so the ranker can find it. Each command is pinned
--- (|M.pin()|): a buffer-local command that shadows the one the catalog described does
--- not run in its place.
---
--- A step runs the command's current definition, through |nvim_cmd()| with the
--- arguments as a list and expansion off. The command must still be the one the catalog
--- pinned. The arguments get the text checks always and, unless the step is shown as
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
  local sets = {
    vim.api.nvim_buf_get_commands(bufnr or 0, { builtin = false }), -- buffer-local win over global
    vim.api.nvim_get_commands({ builtin = false }),
  }
  -- What the entries are made from (each command's pinned fields, what it loads as a
  -- lazy.nvim stand-in, the help data), field by field, is compared in place with what
  -- the last list was made from: nothing is built for a command unless something
  -- changed. Then the entries are made again only for commands that are new or changed
  -- (finding a command's plugin and reading the plugin's help is what costs).
  local last = H.last
  local fields, n = last.fields, 0
  local context = table.concat({ tostring(help), origin.plugin_generation(), plugin_help.generation() }, '\31')
  local same = last.list ~= nil and last.context == context
  local function put(v)
    n = n + 1
    if fields[n] ~= v then
      same, fields[n] = false, v
    end
  end
  local found, seen = {}, {}
  for set, cmds in ipairs(sets) do
    local names = vim.tbl_keys(cmds)
    table.sort(names)
    for _, name in ipairs(names) do
      if not seen[name] then
        seen[name] = true
        local def, loads = cmds[name], origin.lazy_command(name)
        found[#found + 1] = { name = name, def = def, loads = loads, buffer_local = set == 1 }
        put(name)
        put(set)
        put(loads and table.concat(loads, ',') or false)
        for _, k in ipairs(H.pinned_fields) do
          put(def[k] == nil and vim.NIL or def[k])
        end
      end
    end
  end
  if #fields ~= n then
    same = false
    for i = #fields, n + 1, -1 do
      fields[i] = nil
    end
  end
  if same then return last.list end
  last.list = nil
  local out, made = {}, {}
  for _, f in ipairs(found) do
    f.pin = M.pin(f.def, f.buffer_local, f.loads)
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
  if entry.pin and not (now and M.same(entry.pin, now)) then
    return nil,
      (':%s is not the command the plan showed now (a buffer-local command shadows it, or it was redefined)'):format(
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

--- What identifies a user command: whether it is buffer-local, and its definition
--- (|nvim_get_commands()| gives no callback: its description, arguments, range, bang…);
--- a lazy.nvim stand-in is pinned by what it loads.
---@param def table a command as |nvim_get_commands()| returns it
---@param buffer_local boolean
---@param loads? string[] the plugins a lazy.nvim stand-in loads
---@return string
function M.pin(def, buffer_local, loads)
  local owner = buffer_local and 'buffer' or 'global'
  if loads then return owner .. '\31lazy:' .. table.concat(loads, ',') end
  local parts = { owner }
  for _, k in ipairs(H.pinned_fields) do
    parts[#parts + 1] = tostring(def[k])
  end
  return table.concat(parts, '\31')
end

--- The pin of the command `name` would run now in the current buffer, or nil.
---@param name string
---@return string?
function M.current_pin(name)
  local local_def = vim.api.nvim_buf_get_commands(0, { builtin = false })[name]
  local def = local_def or vim.api.nvim_get_commands({ builtin = false })[name]
  if not def then return nil end
  return M.pin(def, local_def ~= nil, origin.lazy_command(name))
end

--- Whether the command now (`now`, its pin) is the one the catalog pinned: the same, or
--- the plugin's real command that a lazy.nvim stand-in was replaced with.
---@param pinned string
---@param now string
---@return boolean
function M.same(pinned, now) return require('leash.sources.keymaps').same(pinned, now) end

-- Helper data ================================================================

--- The last list made (nil while one is being made), the fields of every command it was
--- made from, the help data and plugin generations it was made with, and each command's
--- entry by its key.
H.last = { list = nil, fields = {}, context = nil, made = {} }

H.pinned_fields =
  { 'definition', 'nargs', 'range', 'count', 'addr', 'bang', 'bar', 'register', 'complete', 'script_id' }

-- Helper functionality =======================================================

--- The catalog entry of a user command (`f`: its name, definition, pin and what it loads
--- as a lazy.nvim stand-in).
function H.entry(f, help)
  local def, name, loads = f.def, f.name, f.loads
  local plugin = loads and table.concat(loads, ', ') or origin.of_command(def)
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
