--- Defaults and validation of `require('leash').setup(opts)`.
---
--- One schema: the keys the core reads (provider, providers, shortlist_limit,
--- confirm_before_run, sources, log, timeout_ms, raise) are checked, and given their
--- defaults, by the native core (`check_config`), which reads the `leash` program's TOML
--- file with the same rules. Only the keys that exist on the Lua side alone are checked
--- here: `entries` (whose `run` is a Lua function) and `keymap_modes`.
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

--- The defaults of the keys only the Lua side reads. The core's keys get theirs from the
--- core (|leash-config| lists them all).
---@type leash.Config
M.defaults = {
  entries = {}, -- e.g. { { id = 'deploy', title = 'deploy to staging', cmd = { 'make', 'deploy' } } }
  keymap_modes = { 'n', 'x' }, -- modes whose described mappings enter the catalog ('x' includes :vmap)
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
--- then nothing is planned or run (see |leash-build|).
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
--- nothing (the options stay as they were) and raises one `leash: config: …` message
--- naming every error, without a position (`error(msg, 0)`). Without the native library
--- the core's keys wait, unchecked and unapplied, until it loads (|M.unchecked|).
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
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), own, core or {})
  H.waiting, M.unchecked, H.failed = (not core) and H.core_part(opts) or nil, why, nil
  return M.options
end

--- The keys only the Lua side checks, as dotted paths (`entries[].cmd`); the core's are
--- its `config_keys()`. |leash-config| is checked against both.
---@return string[]
function M.lua_keys()
  local keys = H.own_keys()
  for _, f in ipairs(H.entry_fields) do
    keys[#keys + 1] = 'entries[].' .. f
  end
  return keys
end

--- The active configuration.
---@return leash.Config
function M.get()
  H.settle()
  return M.options
end

--- The error of a config whose core keys were checked only when the native library
--- loaded, after |leash.setup()| had returned, or nil: nothing is planned with it.
---@return string?
function M.failed()
  H.settle()
  return H.failed
end

-- Helper data ================================================================

local function list_of_strings(v)
  if type(v) ~= 'table' or not vim.islist(v) then return ('should be a list of strings, not %s'):format(type(v)) end
  for i, s in ipairs(v) do
    if type(s) ~= 'string' then return ('[%d] should be a string, not %s'):format(i, type(s)) end
  end
end

-- The fields of a user entry (|leash.UserEntry|).
H.entry_fields = { 'id', 'title', 'run', 'cmd', 'cwd', 'args', 'reach', 'aliases', 'description' }

--- `entries`: a list of user entries (see |leash.UserEntry|).
local function user_entries(v)
  if type(v) ~= 'table' or not vim.islist(v) then return ('should be a list of entries, not %s'):format(type(v)) end
  local allowed = {}
  for _, f in ipairs(H.entry_fields) do
    allowed[f] = true
  end
  local seen = {}
  for i, e in ipairs(v) do
    local function bad(msg) return ('[%d] %s'):format(i, msg) end
    if type(e) ~= 'table' then return bad('should be a table') end
    for k in pairs(e) do
      if not allowed[k] then return bad(("has an unknown field '%s'"):format(tostring(k))) end
    end
    local name = type(e.id) == 'string' and e.id:gsub('^entry:', '') or nil
    if not name or not name:match('^[%w_.-]+$') then return bad('needs an id of letters, digits, "_", "." or "-"') end
    if seen[name] then return bad(('repeats the id %q'):format(name)) end
    seen[name] = true
    if type(e.title) ~= 'string' or vim.trim(e.title) == '' then return bad('needs a title') end
    if (e.run == nil) == (e.cmd == nil) then
      return bad('needs exactly one of run (a function) or cmd (an argv list)')
    end
    if e.run ~= nil and type(e.run) ~= 'function' then return bad('run should be a function') end
    if e.cmd ~= nil then
      local err = list_of_strings(e.cmd)
      if err or #e.cmd == 0 then return bad('cmd should be a non-empty list of strings') end
    end
    if e.cwd ~= nil and type(e.cwd) ~= 'string' then return bad('cwd should be a string') end
    if e.args ~= nil and not vim.tbl_contains({ 'none', 'optional', 'required' }, e.args) then
      return bad("args should be 'none', 'optional' or 'required'")
    end
    if e.reach ~= nil and not vim.tbl_contains({ 'safe', 'edit', 'write', 'code', 'shell' }, e.reach) then
      return bad("reach should be 'safe', 'edit', 'write', 'code' or 'shell'")
    end
    if e.aliases ~= nil and list_of_strings(e.aliases) then return bad('aliases should be a list of strings') end
    if e.description ~= nil and type(e.description) ~= 'string' then return bad('description should be a string') end
  end
end

--- The keys only the Lua side reads, each with its check (a function returning an
--- error message, or nil).
H.schema = {
  entries = user_entries,
  keymap_modes = list_of_strings,
}

-- The core's keys waiting for the native library (nil: none), and the error of their
-- check when it failed after setup() had returned.
H.waiting = {}
H.failed = nil

-- Helper functionality =======================================================

--- The keys of `opts` the core checks.
---@param opts table
---@return table
function H.core_part(opts)
  local core = {}
  for k, v in pairs(opts) do
    if H.schema[k] == nil then core[k] = v end
  end
  return core
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
    -- A validator of a list says which element: `[2] needs a title` becomes `entries[2]: needs a title`.
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
    core, cerrs = native.check_config(H.core_part(opts), H.own_keys())
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
  H.waiting, M.unchecked = nil, nil
  local core, errs = native.check_config(waiting, H.own_keys())
  if not core then
    table.sort(errs)
    M.errors, H.failed = errs, M.message(errs)
    return
  end
  M.options = vim.tbl_deep_extend('force', M.options, core)
end

return M
