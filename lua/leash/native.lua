--- Finds and loads the native module (the Rust core), checks its version, and says
--- exactly what to run when it is missing or stale.
---
--- Order: `require('leash_native')` through 'runtimepath' (the library installed as
--- `lua/leash_native.so` by `:Leash build` or `build.lua`), then that file in the plugin
--- root directly (a build under lazy.nvim runs before the plugin is on 'runtimepath'),
--- then the developer fallback `target/release/libleash_nvim.so`. Nothing falls back to Lua:
--- without the library nothing a model proposes can be validated, so nothing runs
--- (fail closed).
local M = {}
local H = {}

-- Module definition ==========================================================

--- The Lua side's version. The library's `version()` (the Cargo package version) must
--- equal it.
M.version = '0.1.0'

--- Every function the library exports, which this side may call: a library that lacks
--- one is older than this side (it may still say the same version) and is not loaded.
--- native_spec keeps the list equal to what the library exports.
M.exports = {
  'catalog_new',
  'check_command_args',
  'check_config',
  'check_file_name',
  'check_item_args',
  'check_step_args',
  'config_keys',
  'entry_details',
  'git_argv',
  'git_check',
  'git_quiet',
  'git_root',
  'is_invisible',
  'name_handler',
  'notify_fd',
  'path_landing',
  'plan_marked',
  'plan_needs_window',
  'plan_start',
  'policy_lists',
  'present_plan',
  'preview_steps',
  'prompt',
  'provider_config',
  'provider_key',
  'rank',
  'script_files',
  'sources',
  'sources_reset',
  'terminal_entry',
  'validate',
  'version',
  'visible',
  'wants_colorschemes',
  'write_landing',
}

--- The oldest Neovim leash runs on (the oldest the test suite runs on).
M.min_nvim = '0.11'

---@class leash.Catalog userdata
---@field len fun(self: leash.Catalog): integer
---@field to_json fun(self: leash.Catalog): string

---@class leash.RankHit
---@field id string
---@field kind string
---@field title string
---@field score number

---@class leash.Native
---@field version fun(): string
---@field catalog_new fun(entries: table[], editor: string): leash.Catalog
---@field rank fun(catalog: leash.Catalog, request: string, opts?: { limit?: integer, mode?: 'any'|'all' }): leash.RankHit[]
---@field prompt fun(catalog: leash.Catalog, request: string, opts?: table): { system: string, user: string, schema: string, shortlist: string[] }
---@field validate fun(catalog: leash.Catalog, text: string, opts?: { profile?: string }): table

---@class leash.NativeStatus
---@field loaded boolean
---@field path? string where the library was loaded from
---@field how? 'runtimepath'|'plugin'|'target' which search step found it
---@field version? string the library's version
---@field expected string the Lua side's version
---@field error? string why it is not loaded
---@field candidates string[] files looked at

--- Load the native module once per session.
---@return leash.Native? native
---@return string? err a message that says what to run
function M.load()
  if not H.state then H.state = H.load() end
  if H.state.module then return H.state.module end
  return nil, H.state.error
end

--- After a build installed a new library: load it now when this session has none
--- loaded (a `:Do` that failed for want of it works at once), or say that a restart is
--- needed when one is loaded: a process cannot swap a loaded library for another.
---@return 'loaded'|'restart'|'error' status
---@return string msg what happened, as the end of a sentence for the user
function M.activate()
  local s = H.state
  if s and s.path then
    return 'restart',
      ('restart Neovim to use it (this session keeps the library it loaded from %s, version %s)'):format(
        s.path,
        s.version or '?'
      )
  end
  H.state = nil
  local mod, err = M.load()
  if not mod then return 'error', err or 'it did not load' end
  return 'loaded', ('loaded it (version %s): :Do works now'):format(H.state.version)
end

--- Like |M.load()| but raises the error (for callers that must fail closed).
---@return leash.Native
function M.get()
  local native, err = M.load()
  if not native then error(err, 0) end
  return native
end

--- What the loader found, for `:checkhealth leash`.
---@return leash.NativeStatus
function M.status()
  M.load()
  local s = H.state
  return {
    loaded = s.module ~= nil,
    path = s.path,
    how = s.how,
    version = s.version,
    expected = M.version,
    error = s.error,
    candidates = s.candidates,
  }
end

--- The plugin's root directory (the folder holding `lua/`, `plugin/`, `Cargo.toml`).
---@return string
function M.root()
  if H.root_override then return H.root_override end
  local src = debug.getinfo(1, 'S').source:sub(2)
  return vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(vim.fs.normalize(vim.fn.fnamemodify(src, ':p')))))
end

--- File name of the installed module inside `lua/` (`.so` on macOS too: Neovim's
--- runtimepath loader only tries the suffixes in 'package.cpath', which lack `.dylib`).
---@return string
function M.installed_name() return jit.os == 'Windows' and 'leash_native.dll' or 'leash_native.so' end

--- Path of the library cargo writes (honours `CARGO_TARGET_DIR`).
---@param root? string
---@return string
function M.artifact(root)
  local dir = vim.env.CARGO_TARGET_DIR
  if not dir or dir == '' then dir = (root or M.root()) .. '/target' end
  local file = ({ Windows = 'leash_nvim.dll', OSX = 'libleash_nvim.dylib' })[jit.os] or 'libleash_nvim.so'
  return dir .. '/release/' .. file
end

--- The message of an error raised by the core, without the binding's prefix and the
--- Lua traceback it appends.
---@param err any
---@return string
function M.message(err)
  local s = tostring(err):gsub('^runtime error: ', ''):gsub('\nstack traceback:.*$', '')
  return s
end

--- Call the native module's function `name` with `...`, failing closed: `true` and its
--- results, or `false` and why not (no library, a library too old to have `name`, or the
--- call raised). `purpose` completes "the native library is too old to …".
---@param name string
---@param purpose string
---@return boolean ok
---@return any ... the results, or the message
function M.call(name, purpose, ...)
  local native, err = M.load()
  if not native then return false, err or 'the native library is not available' end
  if type(native[name]) ~= 'function' then
    return false, ('the native library is too old to %s (run :Leash build)'):format(purpose)
  end
  local res = { pcall(native[name], ...) }
  if not res[1] then return false, ('the native library could not %s: %s'):format(purpose, M.message(res[2])) end
  return unpack(res, 1, table.maxn(res))
end

--- A plain copy of a table the library returned (a plan to keep, or to show afresh with
--- the window's notes on its steps): the library's arrays carry a protected metatable,
--- which |vim.deepcopy()| cannot copy (`setmetatable(t, false)` raises).
---@generic T
---@param v T
---@return T
function M.copy(v)
  if type(v) ~= 'table' then return v end
  local out = {}
  for k, x in pairs(v) do
    out[k] = M.copy(x)
  end
  return out
end

--- The command that fixes a missing or stale library.
---@return string
function M.build_hint()
  return ('run :Leash build (or `cargo build --release` in %s, then restart Neovim)'):format(M.root())
end

--- Forget the cached result. Tests use `opts` to point the loader elsewhere.
---@param opts? { root?: string, runtimepath?: boolean }
function M.reset(opts)
  opts = opts or {}
  H.state = nil
  H.root_override = opts.root
  H.use_rtp = opts.runtimepath ~= false
end

-- Helper data ================================================================

---@type { module?: leash.Native, path?: string, how?: string, version?: string, error?: string, candidates: string[] }?
H.state = nil
H.use_rtp = true
H.root_override = nil

-- Helper functionality =======================================================

function H.load()
  if vim.fn.has('nvim-' .. M.min_nvim) ~= 1 then
    local v = vim.version()
    return {
      error = ('leash: needs Neovim %s or newer; this is %d.%d.%d'):format(M.min_nvim, v.major, v.minor, v.patch),
      candidates = {},
    }
  end
  local candidates = {}
  local mod, path, how, errs = nil, nil, nil, {}

  local found
  if H.use_rtp then
    found = vim.api.nvim_get_runtime_file('lua/' .. M.installed_name(), false)[1]
    candidates[#candidates + 1] = found or ('lua/' .. M.installed_name() .. ' in runtimepath')
    if found then
      local ok, res = pcall(require, 'leash_native')
      if ok and type(res) == 'table' then
        mod, path, how = res, found, 'runtimepath'
      else
        errs[#errs + 1] = ('%s: %s'):format(found, M.message(res))
      end
    end
  end

  local installed = M.root() .. '/lua/' .. M.installed_name()
  if not mod and not (found and vim.fs.normalize(found) == vim.fs.normalize(installed)) then
    candidates[#candidates + 1] = installed
    mod, path, how = H.loadlib(installed, 'plugin', errs)
  end

  if not mod then
    local file = M.artifact()
    candidates[#candidates + 1] = file
    mod, path, how = H.loadlib(file, 'target', errs)
  end

  if not mod then
    -- What to run comes before the paths: a message line shows only its start.
    local why, detail = 'native library not found', 'looked for ' .. table.concat(candidates, ', ')
    if #errs > 0 then
      why, detail = 'could not load the native library', table.concat(errs, '; ')
    end
    return { error = ('leash: %s: %s; %s'):format(why, M.build_hint(), detail), candidates = candidates }
  end

  local ok, version = pcall(mod.version)
  if not ok or version ~= M.version then
    local got = ok and tostring(version) or ('version() failed: ' .. tostring(version))
    return {
      path = path,
      how = how,
      version = ok and version or nil,
      candidates = candidates,
      error = ('leash: native library %s is version %s but the Lua side is %s; %s'):format(
        path,
        got,
        M.version,
        M.build_hint()
      ),
    }
  end
  local missing = vim.tbl_filter(function(name) return type(mod[name]) ~= 'function' end, M.exports)
  if #missing > 0 then
    return {
      path = path,
      how = how,
      version = version,
      candidates = candidates,
      error = ('leash: native library %s is older than the Lua side (it has no %s); %s'):format(
        path,
        table.concat(missing, ', '),
        M.build_hint()
      ),
    }
  end
  return { module = mod, path = path, how = how, version = version, candidates = candidates }
end

--- Load the library at `file` directly (not through 'runtimepath'), registering it as
--- the `leash_native` module so that a later `require` does not load a second copy.
---@return table? module
---@return string? path
---@return string? how
function H.loadlib(file, how, errs)
  if not vim.uv.fs_stat(file) then return end
  local loader, err = package.loadlib(file, 'luaopen_leash_native')
  if not loader then
    errs[#errs + 1] = ('%s: %s'):format(file, tostring(err))
    return
  end
  local ok, res = pcall(loader)
  if not (ok and type(res) == 'table') then
    errs[#errs + 1] = ('%s: %s'):format(file, M.message(res))
    return
  end
  package.loaded['leash_native'] = package.loaded['leash_native'] or res
  return res, file, how
end

return M
