--- Defaults and validation of `require('leash').setup(opts)`.
---
--- One schema: every key but `keymap_modes` (provider, providers, shortlist_limit,
--- confirm_before_run, sources, entries, log, timeout_ms, raise) is checked, and given its
--- default, by the native core (`check_config`), which reads the `leash` program's TOML
--- file with the same rules. An entry's `run` function stays here (the core is told that
--- there is one), and so does `keymap_modes`, the one key only the Lua side reads.
---
--- The safety rules are not configuration: a step that can reach a shell, run code or
--- write files is always confirmed, and nothing here can turn that off. Configuration
--- may raise a reach, never lower it (see doc/design.md, "The one rule").
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.ProviderConfig
---@field kind? 'anthropic'|'openai'|'ollama'|'offline' wire protocol (default: the entry's name when it is one of these)
---@field model? string model name
---@field url? string base URL (default: the provider's public API)
---@field headers? table<string, string> extra request headers
---@field timeout_ms? integer deadline of the whole request, retries included
---@field connect_timeout_ms? integer connection timeout (default 5000)
---@field max_tokens? integer answer budget (default 1024)
---@field temperature? number sampling temperature
---@field api_key_env? string environment variable holding the key (never the key itself)
---@field api_key_file? string file holding the key
---@field api_key_cmd? string[] command printing the key, as an argv list (no shell)
---@field api_key_header? string header carrying the key (Azure: 'api-key')
---@field structured? 'json_schema'|'json_object'|'tool'|'none' structured-output mode
---@field ca_file? string PEM file of extra CA certificates
---@field retries? integer retries on transient errors (default 2)

---@class leash.SourcesConfig
---@field commands? boolean builtin Ex commands
---@field options? boolean every option
---@field user_commands? boolean user commands (global and buffer-local)
---@field keymaps? boolean mappings that have a description
---@field scripts? boolean the project's scripts (package.json, Makefile, justfile, Cargo, Python, Go, .vscode/tasks.json)
---@field git? boolean Git actions, inside a Git work tree
---@field files? boolean file actions (new, rename, delete, copy path, reveal)
---@field lsp? boolean language server features the attached clients support
---@field diagnostics? boolean diagnostic navigation and lists
---@field terminal? boolean terminal items (term:run, open a terminal)

---@class leash.UserEntry
---@field id string `deploy` becomes the item `entry:deploy`
---@field title string what the model and the plan window see
---@field run? fun(args: string[], step: table): any a Lua function to call (exactly one of run, cmd)
---@field cmd? string[] an argv list to run in a terminal split (always reach shell)
---@field cwd? string directory for cmd
---@field args? 'none'|'optional'|'required' whether the model passes arguments (default none)
---@field reach? 'safe'|'edit'|'write'|'code'|'shell' what it can reach (default shell; the core may raise it)
---@field aliases? string[] other words for it
---@field description? string longer searchable text

---@class leash.Config
---@field provider? string name of the entry in `providers` to use; nil = offline (no model calls)
---@field providers? table<string, leash.ProviderConfig> named model providers
---@field shortlist_limit? integer how many catalog entries the model sees (1..500; nil = the core's default, `default_shortlist_limit` of the native module)
---@field confirm_before_run? boolean false skips the confirmation only for plans whose steps are all safe or edit
---@field sources? leash.SourcesConfig which catalog sources are enabled
---@field entries? leash.UserEntry[] catalog items of the user's own
---@field keymap_modes? string[] modes whose described mappings enter the catalog
---@field log? boolean append every exchange to the log file
---@field timeout_ms? integer deadline of one model call in milliseconds (default: the provider's, 30 s cloud, 120 s local)
---@field raise? { pattern: string, reach: 'safe'|'edit'|'write'|'code'|'shell' }[] raise the reach of matching ids or keys (never lowers)

--- The defaults the Lua side owns: the entries (their functions stay here) and
--- keymap_modes. The core's keys get theirs from the core (|leash-config| lists them all).
---@type leash.Config
M.defaults = {
  entries = {}, -- e.g. { { id = 'deploy', title = 'deploy to staging', cmd = { 'make', 'deploy' } } }
  -- Modes whose described mappings enter the catalog. Only normal-mode mappings can run
  -- from a plan (a plan has no selection): another mode's are listed only if asked for,
  -- and a step of one is refused when it runs.
  keymap_modes = { 'n' },
}

--- The active configuration (defaults until |leash.setup()| is called). Read it with
--- |M.get()|: the core's part is filled in once the native library is loaded.
---@type leash.Config
M.options = vim.deepcopy(M.defaults)

--- The errors of the last |leash.setup()| call, each `path: what is wrong` (empty when it
--- was valid, or not called). `:checkhealth leash` reports them.
---@type string[]
M.errors = {}

--- Whether |leash.setup()| was called.
M.called = false

--- Why the core's keys of the last |leash.setup()| are not checked yet (the native
--- library did not load), or nil. They are checked, and applied, once it loads; until
--- then nothing is planned or run (see |leash-install|).
---@type string?
M.unchecked = nil

--- Every error in `opts`, each `path: what is wrong`, in a stable order (empty: valid).
--- Never includes a key's value. Without the native library only the Lua side's keys are
--- checked.
---@param opts any
---@return string[]
function M.validate(opts) return (H.validate(opts)) end

--- The one message for `errs`: `leash: config: a: …; b: …`.
---@param errs string[]
---@return string
function M.message(errs) return 'leash: config: ' .. table.concat(errs, '; ') end

--- Validate `opts` and merge them over the defaults. A config with any error applies
--- nothing (the options stay as they were), raises one `leash: config: …` message
--- naming every error, without a position (`error(msg, 0)`), and nothing is planned
--- until a valid config is set (|M.failed()|); |leash.setup()| says it instead of
--- raising. Without the native library the core's keys wait, unchecked and unapplied,
--- until it loads (|M.unchecked|).
---@param opts? leash.Config
---@return leash.Config
function M.setup(opts)
  if opts == nil then opts = {} end
  local errs, core, why = H.validate(opts)
  M.errors, M.called = errs, true
  if #errs > 0 then error(M.message(errs), 0) end
  local own = {}
  for key in pairs(H.schema) do
    own[key] = opts[key]
  end
  local options = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), own)
  -- Unchecked entries wait with the rest of the core's keys (|M.unchecked|).
  M.options = H.merge(options, core or {}, core and opts.entries or nil)
  H.waiting, M.unchecked, H.failed = (not core) and H.core_part(opts) or nil, why, nil
  H.entries = opts.entries
  return M.options
end

--- The keys only the Lua side checks; the core's are its `config_keys()`. |leash-config|
--- is checked against both.
---@return string[]
function M.lua_keys() return H.own_keys() end

--- The active configuration.
---@return leash.Config
function M.get()
  H.settle()
  return M.options
end

--- The error of the last |leash.setup()|, or nil: nothing is planned with a config that
--- has errors (planning with what was there before, or the defaults, would be a silent
--- fallback). Its core keys may have been checked only when the native library loaded,
--- after setup() had returned.
---@return string?
function M.failed()
  H.settle()
  if H.failed then return H.failed end
  if #M.errors > 0 then return M.message(M.errors) end
end

-- Helper data ================================================================

local function list_of_strings(v)
  if type(v) ~= 'table' or not vim.islist(v) then return ('should be a list of strings, not %s'):format(type(v)) end
  for i, s in ipairs(v) do
    if type(s) ~= 'string' then return ('[%d] should be a string, not %s'):format(i, type(s)) end
  end
end

--- The keys only the Lua side reads, each with its check (a function returning an
--- error message, or nil).
H.schema = {
  keymap_modes = list_of_strings,
}

-- The core's keys waiting for the native library (nil: none), and the error of their
-- check when it failed after setup() had returned.
H.waiting = {}
H.failed = nil

-- Helper functionality =======================================================

--- The keys of `opts` the core checks. An entry's `run` function stays here: the core
--- is told `run = true` instead.
---@param opts table
---@return table
function H.core_part(opts)
  local core = {}
  for k, v in pairs(opts) do
    if H.schema[k] == nil then core[k] = v end
  end
  if type(core.entries) == 'table' then
    core.entries = vim.tbl_map(function(e)
      if type(e) ~= 'table' or e.run == nil then return e end
      -- `true` is the core's word for "a Lua function"; anything else goes as its type
      -- name, which the core refuses (`run = true` in a config is no function).
      return vim.tbl_extend('force', e, { run = type(e.run) == 'function' or type(e.run) })
    end, core.entries)
  end
  return core
end

--- The core's check of `part`: its normalized form, or nil and every error. A library
--- that cannot check (too old, or the check itself fails) is an error, never a pass.
---@param part table
---@return table? core
---@return string[]? errs
function H.check_core(part)
  local ok, core, errs = require('leash.native').call('check_config', 'check the configuration', part, H.own_keys())
  if not ok then return nil, { core } end
  if not core and (type(errs) ~= 'table' or #errs == 0) then
    return nil, { 'the native library could not check the configuration' }
  end
  return core, errs
end

--- `core` (the core's normalized part) over `options`, with the user's own entries (the
--- core's copy lacks their functions).
---@param options table
---@param core table
---@param entries? table
---@return table
function H.merge(options, core, entries)
  local out = vim.tbl_deep_extend('force', options, core)
  out.entries = entries or options.entries
  return out
end

--- The names of the keys the Lua side checks, for the core's guess at a misspelt key.
---@return string[]
function H.own_keys()
  local keys = vim.tbl_keys(H.schema)
  table.sort(keys)
  return keys
end

--- Every error of `opts`, and the core's normalized part (nil when it has errors or the
--- native library is not loaded, with why in the last case).
---@param opts any
---@return string[] errs
---@return table? core
---@return string? unchecked
function H.validate(opts)
  if type(opts) ~= 'table' then return { ('setup() expects a table, not %s'):format(type(opts)) } end
  local errs = {}
  for _, key in ipairs(H.own_keys()) do
    local err = opts[key] ~= nil and H.schema[key](opts[key]) or nil
    -- A validator of a list says which element: `[2] should be …` becomes `keymap_modes[2]: should be …`.
    local index, rest = (err or ''):match('^(%[%d+%]) (.*)$')
    if index then
      errs[#errs + 1] = ('%s%s: %s'):format(key, index, rest)
    elseif err then
      errs[#errs + 1] = ('%s: %s'):format(key, err)
    end
  end
  local native, nerr = require('leash.native').load()
  local core, why
  if native then
    local cerrs
    core, cerrs = H.check_core(H.core_part(opts))
    vim.list_extend(errs, cerrs or {})
  else
    why = 'the native library is not loaded (' .. tostring(nerr) .. ')'
  end
  table.sort(errs) -- each starts with its path: providers.a.… before providers.b.…
  return errs, #errs == 0 and core or nil, why
end

--- Check and apply the core's keys that waited for the native library, once it loads.
function H.settle()
  if H.waiting == nil then return end
  local native = require('leash.native').load()
  if not native then return end
  local waiting = H.waiting
  local core, errs = H.check_core(waiting)
  H.waiting, M.unchecked = nil, nil
  if not core then
    table.sort(errs)
    M.errors, H.failed = errs, M.message(errs)
    return
  end
  M.options = H.merge(M.options, core, H.entries)
end

return M
