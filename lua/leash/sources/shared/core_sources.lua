--- What the core discovers for every editor: the entries of the project's scripts
--- (`script:<runner>:<name>`), Git (`git:<action>`) and files (`file:<action>`), which
--- the scripts, Git and files sources list (|leash.sources|). The
--- discovery lives in the Rust core (src/sources/), shared with Helix; it reads files
--- only and starts no program. One native call returns all three sources; the core
--- caches what it parsed by file modification time, so a call costs a few `stat`s.
local M = {}
local H = {}
-- Interpreted, not compiled: its loops run once per request and call Neovim's C API at
-- every turn, which ends LuaJIT's traces; compiling them cost more than it saved (the
-- first :Do of a session spent milliseconds on it, scripts/bench-do).
if jit then jit.off(true, true) end

-- Module definition ==========================================================

---@class leash.CoreSources
---@field scripts table[] items with `cmd` (argv), `cwd`, `root` and `pin` (|leash.sources.shared.script_pin|)
---@field git table[] offered inside a Git work tree only
---@field files table[] file actions (`file:reveal` comes from |leash.sources.files|)

--- The three sources for the current directory and the current buffer's file. Empty
--- lists when the native library is missing (then nothing can run anyway). The same
--- tables as last time when the core found the same items and the script files' pins are
--- the same (|leash.catalog| then compares nothing more).
---@param opts? { cwd?: string, bufnr?: integer }
---@return leash.CoreSources
function M.discover(opts)
  opts = opts or {}
  local native = require('leash.native').load()
  local cwd = opts.cwd or vim.uv.cwd()
  if not native or not native.sources or not cwd then return { scripts = {}, git = {}, files = {} } end
  local last = H.last
  local found = native.sources({
    cwd = cwd,
    file = M.file(opts.bufnr),
    editor = 'neovim',
    unless = last and last.found.generation,
  })
  -- The runners read the project's files again when they start: pin them now, so the
  -- scripts source can refuse a script whose files changed after the plan was shown.
  local pin = require('leash.sources.shared.script_pin')
  local pins = {}
  for _, e in ipairs((found or last.found).scripts or {}) do
    if type(e.root) == 'string' and pins[e.root] == nil then pins[e.root] = pin.fingerprint(e.root) or false end
  end
  if not found then
    if vim.deep_equal(pins, last.pins) then return last.found end
    -- The same items with other pins: new tables, so that the catalog sees the change.
    found = vim.deepcopy(last.found)
  end
  for _, e in ipairs(found.scripts or {}) do
    if type(e.root) == 'string' then e.pin = pins[e.root] or nil end
  end
  H.last = { found = found, pins = pins }
  return found
end

--- One of the three lists: from the discovery made once for the catalog being built
--- (`ctx.core`), or from a new one.
---@param ctx? leash.SourceContext
---@param name 'scripts'|'git'|'files'
---@return table[]
function M.list(ctx, name)
  local found = ctx and ctx.core and ctx.core() or M.discover()
  return found[name] or {}
end

--- The file a buffer shows (absolute, normalized), or nil for a non-file buffer.
---@param bufnr? integer default: the current buffer
---@return string?
function M.file(bufnr)
  bufnr = bufnr or 0
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.api.nvim_get_option_value('buftype', { buf = bufnr }) ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' then return nil end
  -- Asked on every catalog build: the last answer is kept (a relative name follows the
  -- current directory, so only an absolute one).
  if H.file.name ~= name then
    local path = vim.fs.normalize(vim.fn.fnamemodify(name, ':p'))
    H.file = { name = name:sub(1, 1) == '/' and name or nil, path = path }
    return path
  end
  return H.file.path
end

--- The Git work tree around a buffer's file (or the current directory), or nil.
---@param bufnr? integer
---@return string?
function M.git_root(bufnr)
  local native = require('leash.native').load()
  if not native then return nil end
  local file = M.file(bufnr)
  return native.git_root(file and vim.fs.dirname(file) or H.cwd())
end

--- Make the core read every project file again (tests, benchmarks).
function M.reset()
  H.last = nil
  local native = require('leash.native').load()
  if native and native.sources_reset then native.sources_reset() end
end

-- Helper data ================================================================

--- What the last discovery found (with its `generation`, the core's number for those
--- items) and the script files' pins by project root.
---@type { found: leash.CoreSources, pins: table<string, string|false> }?
H.last = nil

--- The last absolute buffer name |M.file()| answered for, and its answer.
H.file = { name = nil, path = nil }

-- Helper functionality =======================================================

function H.cwd() return vim.uv.cwd() or '.' end

return M
