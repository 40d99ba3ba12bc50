--- Where a mapping's or a user command's code comes from: the plugin it belongs to (for
--- the window's `[plugin] gitsigns.nvim: …`), and whether it is a lazy.nvim stand-in that
--- loads a plugin when it first runs.
---
--- A Lua callback's source file names its plugin: the folder above `lua/` (or `plugin/`,
--- `autoload/`, `ftplugin/`) of a file under a plugin manager's or 'packpath' tree
--- (`…/lazy/gitsigns.nvim/lua/gitsigns/actions.lua`). A Vimscript command's script
--- (|getscriptinfo()|) is read the same way. Files of the user's config are "your config",
--- files of $VIMRUNTIME "Neovim". lazy.nvim's stand-ins are recognised by the handler
--- that defined them and named after the plugins they load.
local M = {}
local H = {}
-- Interpreted, not compiled: its loops run once per request and call Neovim's C API at
-- every turn, which ends LuaJIT's traces; compiling them cost more than it saved (the
-- first :Do of a session spent milliseconds on it, scripts/bench-do).
if jit then jit.off(true, true) end

-- Module definition ==========================================================

--- The owner of a function, or nil when nothing tells.
---@param fn function
---@return string? name
function M.of_function(fn)
  local source = H.source(fn)
  if not source or source:sub(1, 1) ~= '@' then return nil end
  return M.of_path(source:sub(2))
end

--- The owner of a file.
---@param path string
---@return string? name
function M.of_path(path)
  -- Many callbacks come from one file: the answer is kept per path (and per config and
  -- runtime folder, which a session does not change).
  local config, runtime = vim.fn.stdpath('config'), vim.env.VIMRUNTIME
  local paths = H.paths
  if paths.config ~= config or paths.runtime ~= runtime then
    -- Normalized once: each path is compared with both.
    local function folder(dir) return dir and dir ~= '' and vim.fs.normalize(dir) or nil end
    paths = { owners = {}, config = config, runtime = runtime, folders = { folder(config), folder(runtime) } }
    H.paths = paths
  end
  local owner = paths.owners[path]
  if owner == nil then
    owner = H.owner_of(path, paths.folders[1], paths.folders[2]) or false
    paths.owners[path] = owner
  end
  return owner or nil
end

--- The owner of a user command (`nvim_get_commands()` entry), or nil.
---
--- A command with a Lua callback carries the script that was running
--- when it was defined: the user's init.lua when it called a plugin's `setup()`, which
--- would credit lazy.nvim's `:Lazy` to "your config". `:command` names the callback's
--- own file (`<Lua 73: …/lazy.nvim/lua/lazy/view/commands.lua:12>`): given as
--- `callback_file`, that file decides when it belongs to a plugin.
---@param def table
---@param callback_file? string the file of its Lua callback, as `:command` lists it
---@return string? name
function M.of_command(def, callback_file)
  local owner
  local sid = tonumber(def.script_id)
  if sid and sid > 0 and vim.fn.exists('*getscriptinfo') == 1 then
    local ok, info = pcall(vim.fn.getscriptinfo, { sid = sid })
    if ok and type(info) == 'table' and info[1] then owner = M.of_path(info[1].name) end
  end
  if (owner and owner ~= 'your config') or not callback_file then return owner end
  return M.of_path(callback_file) or owner
end

--- The plugins a lazy.nvim stand-in mapping loads, or nil when `map` is not one.
---@param map table a mapping as |nvim_get_keymap()| returns it
---@param mode string
---@return string[]? plugins
function M.lazy_keys(map, mode)
  if not (map.callback and H.defined_in(map.callback, H.lazy_keys_file)) then return nil end
  local handler = require('leash.lazy').handler('keys')
  if not handler then return nil end
  -- lazy.nvim's id for a key spec: the keys as typed, and the mode unless it is Normal
  -- (lazy/core/handler/keys.lua, M.parse).
  local id = vim.api.nvim_replace_termcodes(map.lhs or '', true, true, true)
  if mode ~= 'n' then id = id .. ' (' .. mode .. ')' end
  return H.names(handler.active and handler.active[id])
end

--- The plugins a lazy.nvim stand-in user command loads, or nil when `name` is not one.
---@param name string
---@return string[]? plugins
function M.lazy_command(name)
  local handler = require('leash.lazy').handler('cmd')
  local active = handler and handler.active and handler.active[name]
  if not active then return nil end
  return H.names(active)
end

--- A number that changes whenever a plugin is installed, updated or removed (lazy.nvim's
--- `LazyInstall`, `LazyUpdate`, `LazyClean`, `LazyReload`…, and |vim.pack|'s
--- `PackChanged`): what a plugin's help says, and whose code a callback is, may have
--- changed with it. Sources key what they made on it. (Loading a lazy plugin replaces its
--- stand-ins, which the sources see by themselves.)
---@return integer
function M.plugin_generation()
  if not H.watching then
    H.watching = true
    local group = vim.api.nvim_create_augroup('leash.origin', { clear = true })
    local function bump() H.generation = H.generation + 1 end
    vim.api.nvim_create_autocmd('User', { group = group, pattern = H.lazy_events, callback = bump })
    -- PackChanged exists from Neovim 0.12 on.
    pcall(vim.api.nvim_create_autocmd, 'PackChanged', { group = group, callback = bump })
  end
  return H.generation
end

--- Whether a mapping is one of which-key's triggers (left out of the catalog).
---@param map table
---@return boolean
function M.is_which_key_trigger(map)
  if type(map.desc) == 'string' and vim.startswith(map.desc, 'which-key-trigger') then return true end
  return map.callback ~= nil and H.defined_in(map.callback, H.which_key_file)
end

-- Helper data ================================================================

--- lazy.nvim's events when plugins change on disk (or their specs are read again).
H.lazy_events = { 'LazyInstall', 'LazyUpdate', 'LazyRestore', 'LazyBuild', 'LazySync', 'LazyClean', 'LazyReload' }
H.generation, H.watching = 0, false

-- A plugin's code lives in these folders of its root.
H.code_dirs = { 'lua', 'plugin', 'autoload', 'ftplugin', 'after' }

H.lazy_keys_file = 'lazy/core/handler/keys.lua'

--- which-key.nvim's own trigger mappings: they show its popup, not an action.
H.which_key_file = 'which-key/triggers.lua'

-- The owners found per path (`false`: none), and the config and runtime folders then.
H.paths = { owners = {} }

-- Each function's source, found once (weak keys: a function that is gone is forgotten).
H.sources = setmetatable({}, { __mode = 'k' })

-- Helper functionality =======================================================

--- The owner of `path`, given the config and runtime folders (normalized, or nil).
function H.owner_of(path, config, runtime)
  path = vim.fs.normalize(path)
  local function under(dir) return dir ~= nil and (path == dir or path:sub(1, #dir + 1) == dir .. '/') end
  if under(config) then return 'your config' end
  if under(runtime) then return 'Neovim' end
  for _, part in ipairs(H.code_dirs) do
    local name = path:match('/([^/]+)/' .. part .. '/')
    if name then return name end
  end
  return nil
end

--- A function's source (`@/path/file.lua` for a file), or nil.
function H.source(fn)
  local source = H.sources[fn]
  if source == nil then
    local ok, info = pcall(debug.getinfo, fn, 'S')
    source = ok and type(info) == 'table' and type(info.source) == 'string' and info.source or false
    if type(fn) == 'function' then H.sources[fn] = source end
  end
  return source or nil
end

function H.defined_in(fn, tail)
  local source = H.source(fn)
  -- Not vim.endswith(), which checks its arguments: this runs for every mapping with a
  -- callback on every request.
  return source ~= nil and source:sub(-#tail) == tail
end

function H.names(set)
  local out = {}
  for k, v in pairs(type(set) == 'table' and set or {}) do
    out[#out + 1] = type(v) == 'string' and v or tostring(k)
  end
  table.sort(out)
  return out
end

return M
