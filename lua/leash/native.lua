--- Finds and loads the native module (the Rust core), checks its version, and says
--- exactly what to run when it is missing or stale.
---
--- Order: `require('leash_native')` through 'runtimepath' (the library installed as
--- `lua/leash_native.so` by `:Leash build` or `build.lua`), then the developer fallback
--- `target/release/libleash.so` in the plugin root. Nothing falls back to Lua: without
--- the library nothing a model proposes can be validated, so nothing runs (fail closed).
local M = {}
local H = {}

-- Module definition ==========================================================

--- The Lua side's version. The library's `version()` (the Cargo package version) must
--- equal it.
M.version = '0.1.0'

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
---@field how? 'runtimepath'|'target' which search step found it
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
  local file = ({ Windows = 'leash.dll', OSX = 'libleash.dylib' })[jit.os] or 'libleash.so'
  return dir .. '/release/' .. file
end

--- The command that fixes a missing or stale library.
---@return string
--- The message of an error raised by the core, without the binding's prefix and the
--- Lua traceback it appends.
---@param err any
---@return string
function M.message(err)
  local s = tostring(err):gsub('^runtime error: ', ''):gsub('\nstack traceback:.*$', '')
  return s
end

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
  local candidates = {}
  local mod, path, how, errs = nil, nil, nil, {}

  if H.use_rtp then
    local found = vim.api.nvim_get_runtime_file('lua/' .. M.installed_name(), false)[1]
    candidates[#candidates + 1] = found or ('lua/' .. M.installed_name() .. ' in runtimepath')
    if found then
      local ok, res = pcall(require, 'leash_native')
      if ok and type(res) == 'table' then
        mod, path, how = res, found, 'runtimepath'
      else
        errs[#errs + 1] = ('%s: %s'):format(found, tostring(res))
      end
    end
  end

  if not mod then
    local file = M.artifact()
    candidates[#candidates + 1] = file
    if vim.uv.fs_stat(file) then
      local loader, err = package.loadlib(file, 'luaopen_leash_native')
      if loader then
        local ok, res = pcall(loader)
        if ok and type(res) == 'table' then
          mod, path, how = res, file, 'target'
        else
          errs[#errs + 1] = ('%s: %s'):format(file, tostring(res))
        end
      else
        errs[#errs + 1] = ('%s: %s'):format(file, tostring(err))
      end
    end
  end

  if not mod then
    local why = #errs > 0 and ('could not load the native library (%s)'):format(table.concat(errs, '; '))
      or ('native library not found (looked for %s)'):format(table.concat(candidates, ', '))
    return { error = ('leash: %s; %s'):format(why, M.build_hint()), candidates = candidates }
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
  return { module = mod, path = path, how = how, version = version, candidates = candidates }
end

return M
