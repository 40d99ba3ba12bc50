--- Defaults and validation of `require('leash').setup(opts)`.
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

--- The defaults. Every key is documented in |leash-config|.
---@type leash.Config
M.defaults = {
  provider = nil, -- offline until a provider is chosen
  providers = {}, -- e.g. { claude = { kind = 'anthropic', model = '…', api_key_env = 'ANTHROPIC_API_KEY' } }
  shortlist_limit = nil, -- entries ranked into the prompt; nil = the core's default (one constant, in Rust)
  confirm_before_run = true, -- never skips code/shell/write steps, whatever its value
  sources = {
    commands = true,
    options = true,
    user_commands = true,
    keymaps = true,
    scripts = true,
    git = true,
    files = true,
    lsp = true,
    diagnostics = true,
    terminal = true,
  },
  entries = {}, -- e.g. { { id = 'deploy', title = 'deploy to staging', cmd = { 'make', 'deploy' } } }
  keymap_modes = { 'n', 'x' }, -- modes whose described mappings enter the catalog ('x' includes :vmap)
  log = true, -- append to stdpath('log')/leash.log
  timeout_ms = nil, -- one model call, in milliseconds; nil = the provider's default
  raise = {}, -- e.g. { { pattern = 'user:Deploy*', reach = 'shell' } }
}

--- The active configuration (defaults until |leash.setup()| is called).
---@type leash.Config
M.options = vim.deepcopy(M.defaults)

--- The built-in provider kinds: `provider` may name one of them without a `providers` entry.
M.kinds = { 'anthropic', 'openai', 'ollama', 'offline' }

--- The errors of the last |leash.setup()| call, each `path: what is wrong` (empty when it
--- was valid, or not called). `:checkhealth leash` reports them.
---@type string[]
M.errors = {}

--- Whether |leash.setup()| was called.
M.called = false

--- Every error in `opts`, each `path: what is wrong`, in a stable order (empty: valid).
--- Never includes a key's value.
---@param opts any
---@return string[]
function M.validate(opts)
  if type(opts) ~= 'table' then return { ('setup() expects a table, not %s'):format(type(opts)) } end
  local errs = {}
  H.check(opts, H.schema, '', errs)
  vim.list_extend(errs, H.check_provider(opts))
  table.sort(errs) -- each starts with its path: providers.a.… before providers.b.…
  return errs
end

--- The one message for `errs`: `leash: config: a: …; b: …`.
---@param errs string[]
---@return string
function M.message(errs) return 'leash: config: ' .. table.concat(errs, '; ') end

--- Validate `opts` and merge them over the defaults. A config with any error applies
--- nothing (the options stay as they were) and raises one `leash: config: …` message
--- naming every error, without a position (`error(msg, 0)`).
---@param opts? leash.Config
---@return leash.Config
function M.setup(opts)
  if opts == nil then opts = {} end
  local errs = M.validate(opts)
  M.errors, M.called = errs, true
  if #errs > 0 then error(M.message(errs), 0) end
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts)
  return M.options
end

--- The active configuration.
---@return leash.Config
function M.get() return M.options end

-- Helper data ================================================================

-- Each leaf is a type name, a list of allowed type names, or a validator function that
-- returns an error message. A table with `fields` is a nested table with known keys;
-- `map` is a table with free string keys whose values follow the given schema.
local function integer_in(lo, hi)
  return function(v)
    if type(v) ~= 'number' or v % 1 ~= 0 or v < lo or v > hi then
      return ('should be an integer from %d to %d, not %s'):format(lo, hi, vim.inspect(v))
    end
  end
end

local function optional(check)
  return function(v)
    if v ~= nil then return check(v) end
  end
end

-- Said for `api_key = '…'`: a key written in the config ends up in dotfile repositories.
local api_key_ways = "api_key_env = 'NAME' (an environment variable), api_key_file = 'path' (a file holding it)"
  .. " or api_key_cmd = { 'pass', 'show', 'llm' } (a command printing it)"
local api_key_hint = 'a key does not belong in the config, only where it comes from: ' .. api_key_ways

local function list_of_strings(v)
  if type(v) ~= 'table' or not vim.islist(v) then return ('should be a list of strings, not %s'):format(type(v)) end
  for i, s in ipairs(v) do
    if type(s) ~= 'string' then return ('[%d] should be a string, not %s'):format(i, type(s)) end
  end
end

--- `entries`: a list of user entries (see |leash.UserEntry|).
local function user_entries(v)
  if type(v) ~= 'table' or not vim.islist(v) then return ('should be a list of entries, not %s'):format(type(v)) end
  local allowed = {
    id = true,
    title = true,
    run = true,
    cmd = true,
    cwd = true,
    args = true,
    reach = true,
    aliases = true,
    description = true,
  }
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

H.schema = {
  fields = {
    provider = { 'string', 'nil' },
    providers = {
      -- The Rust core reads these tables and names any unknown field (see |leash-providers|).
      map = {
        fields = {
          name = { 'string', 'nil' },
          kind = function(v)
            if v ~= nil and not vim.tbl_contains(M.kinds, v) then
              return ("should be one of 'anthropic', 'openai', 'ollama', 'offline', not %s"):format(vim.inspect(v))
            end
          end,
          model = { 'string', 'nil' },
          url = { 'string', 'nil' },
          headers = { 'table', 'nil' },
          timeout_ms = optional(integer_in(1, 600000)),
          connect_timeout_ms = optional(integer_in(1, 600000)),
          max_tokens = optional(integer_in(1, 1000000)),
          temperature = { 'number', 'nil' },
          api_key_env = { 'string', 'nil' },
          api_key_file = { 'string', 'nil' },
          api_key_cmd = function(v)
            if v ~= nil then return list_of_strings(v) end
          end,
          api_key_header = { 'string', 'nil' },
          structured = function(v)
            if v ~= nil and not vim.tbl_contains({ 'json_schema', 'json_object', 'tool', 'none' }, v) then
              return ("should be one of 'json_schema', 'json_object', 'tool', 'none', not %s"):format(vim.inspect(v))
            end
          end,
          ca_file = { 'string', 'nil' },
          retries = optional(integer_in(0, 5)),
        },
        hints = { api_key = api_key_hint },
      },
    },
    raise = function(v)
      if type(v) ~= 'table' or not vim.islist(v) then
        return ('should be a list of { pattern, reach }, not %s'):format(type(v))
      end
      for i, r in ipairs(v) do
        if type(r) ~= 'table' or type(r.pattern) ~= 'string' or r.pattern == '' then
          return ('[%d] needs a pattern (an id or key, or a prefix ending in *)'):format(i)
        end
        if not vim.tbl_contains({ 'safe', 'edit', 'write', 'code', 'shell' }, r.reach) then
          return ("[%d] reach should be 'safe', 'edit', 'write', 'code' or 'shell'"):format(i)
        end
      end
    end,
    shortlist_limit = integer_in(1, 500),
    confirm_before_run = 'boolean',
    sources = {
      fields = {
        commands = 'boolean',
        options = 'boolean',
        user_commands = 'boolean',
        keymaps = 'boolean',
        scripts = 'boolean',
        git = 'boolean',
        files = 'boolean',
        lsp = 'boolean',
        diagnostics = 'boolean',
        terminal = 'boolean',
      },
    },
    entries = user_entries,
    keymap_modes = list_of_strings,
    log = 'boolean',
    timeout_ms = integer_in(1000, 600000),
  },
  hints = {
    api_key = 'a key does not belong in the config, only where it comes from, in a provider (providers.NAME): '
      .. api_key_ways,
  },
}

-- Helper functionality =======================================================

--- Check `value` against `schema`, appending every error to `errs` (`path: message`).
---@param value any
---@param schema any
---@param path string dotted path for messages
---@param errs string[]
function H.check(value, schema, path, errs)
  local name = path == '' and 'opts' or path
  local function bad(msg) errs[#errs + 1] = ('%s: %s'):format(name, msg) end
  if type(schema) == 'function' then
    local err = schema(value)
    -- A validator of a list says which element: `[2] needs a title` becomes `entries[2]: needs a title`.
    local index, rest = (err or ''):match('^(%[%d+%]) (.*)$')
    if index then
      errs[#errs + 1] = ('%s%s: %s'):format(name, index, rest)
    elseif err then
      bad(err)
    end
    return
  end
  if type(schema) == 'string' or vim.islist(schema) then
    local types = type(schema) == 'string' and { schema } or schema
    if not vim.tbl_contains(types, type(value)) then
      local want = table.concat(vim.tbl_filter(function(t) return t ~= 'nil' end, types), ' or ')
      bad(('should be a %s, not %s'):format(want, type(value)))
    end
    return
  end
  if value == nil then return end
  if type(value) ~= 'table' then return bad(('should be a table, not %s'):format(type(value))) end
  if schema.map then
    for _, k in ipairs(H.sorted_keys(value)) do
      if type(k) ~= 'string' then
        bad('should have string keys')
      else
        H.check(value[k], schema.map, path .. '.' .. k, errs)
      end
    end
    return
  end
  for _, k in ipairs(H.sorted_keys(value)) do
    local sub = schema.fields[k]
    local full = path == '' and tostring(k) or (path .. '.' .. tostring(k))
    if schema.hints and schema.hints[k] then
      errs[#errs + 1] = ('%s: %s'):format(full, schema.hints[k])
    elseif sub == nil then
      local guess = H.closest(tostring(k), vim.tbl_keys(schema.fields))
      errs[#errs + 1] = ('%s: unknown option%s'):format(
        full,
        guess and (" (did you mean '%s'?)"):format(path == '' and guess or (path .. '.' .. guess)) or ''
      )
    else
      H.check(value[k], sub, full, errs)
    end
  end
end

--- `provider` names a built-in kind or an entry of `providers`, and every entry of
--- `providers` has a kind (its own, or its name when that is a kind).
---@param opts table
---@return string[]
function H.check_provider(opts)
  local errs = {}
  local providers = type(opts.providers) == 'table' and opts.providers or {}
  local kinds = table.concat(M.kinds, ', ')
  for _, name in ipairs(H.sorted_keys(providers)) do
    local p = providers[name]
    if type(name) == 'string' and type(p) == 'table' and p.kind == nil and not vim.tbl_contains(M.kinds, name) then
      errs[#errs + 1] = ("providers.%s.kind: needed, since '%s' is not a built-in kind (%s)"):format(name, name, kinds)
    end
  end
  local name = opts.provider
  if type(name) == 'string' and providers[name] == nil and not vim.tbl_contains(M.kinds, name) then
    local defined = vim.tbl_filter(function(k) return type(k) == 'string' end, H.sorted_keys(providers))
    local guess = H.closest(name, vim.list_extend(vim.deepcopy(M.kinds), defined))
    errs[#errs + 1] = ("provider: '%s' is neither a built-in kind (%s) nor defined in providers (%s)%s"):format(
      name,
      kinds,
      #defined > 0 and ('defined: ' .. table.concat(defined, ', ')) or 'none defined',
      guess and (" (did you mean '%s'?)"):format(guess) or ''
    )
  end
  return errs
end

--- The keys of `t`, strings sorted first, so that messages come in a stable order.
function H.sorted_keys(t)
  local keys = vim.tbl_keys(t)
  table.sort(keys, function(a, b)
    if type(a) ~= type(b) then return type(a) == 'string' end
    return tostring(a) < tostring(b)
  end)
  return keys
end

--- The candidate nearest to `word` by edit distance, if it is close enough.
---@param word string
---@param candidates string[]
---@return string?
function H.closest(word, candidates)
  local best, best_d
  for _, c in ipairs(candidates) do
    local d = H.distance(word, c)
    if not best_d or d < best_d or (d == best_d and c < best) then
      best, best_d = c, d
    end
  end
  if best and best_d <= math.max(2, math.floor(#word / 3)) then return best end
end

--- Levenshtein distance.
function H.distance(a, b)
  local prev = {}
  for j = 0, #b do
    prev[j] = j
  end
  for i = 1, #a do
    local cur = { [0] = i }
    for j = 1, #b do
      local cost = a:byte(i) == b:byte(j) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[#b]
end

return M
