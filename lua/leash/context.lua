--- What the model is told about the editor: OS, filetype, selection, project stack.
--- Everything here is cheap (a few stat calls) and contains no buffer text.
local M = {}
local H = {}
-- Interpreted, not compiled: its loops run once per request and call Neovim's C API at
-- every turn, which ends LuaJIT's traces; compiling them cost more than it saved (the
-- first :Do of a session spent milliseconds on it, scripts/bench-do).
if jit then jit.off(true, true) end

-- Module definition ==========================================================

---@class leash.Selection
---@field mode string 'v', 'V' or CTRL-V
---@field lines integer
---@field chars integer characters in a charwise selection, else 0

---@class leash.Context
---@field os string 'linux', 'macos', 'windows', 'bsd' or jit.os lowercased
---@field filetype string filetype of the current buffer ('' when none)
---@field selection? leash.Selection nil when nothing is selected
---@field project string[] detected stack, e.g. { 'rust', 'node (pnpm)', 'make' }
---@field root? string project root the stack was detected in
---@field range? leash.LineRange the lines commands that take a range run on

---@class leash.LineRange
---@field [1] integer first line
---@field [2] integer last line (not before the first)
---@field buf integer the buffer the lines are in

--- Collect the context for the current window.
---@param opts? { bufnr?: integer, cwd?: string, range?: integer, line1?: integer, line2?: integer }
---@return leash.Context
function M.get(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local project, root = M.project(opts.cwd or vim.fn.getcwd())
  return {
    os = M.os(),
    filetype = vim.bo[bufnr].filetype,
    selection = M.selection() or M.range_selection(opts),
    project = project,
    root = root,
    range = M.range(opts),
  }
end

--- The lines a request applies to: the range `:Do` was given (`:2,4Do …`, `:'<,'>Do …`
--- after a Visual selection, `:%Do …`), or the lines of the Visual selection when it is
--- still active (`<Cmd>Do …<CR>` from a Visual-mode mapping). The range belongs to the
--- user: commands that take a range run on it, and the model never sets one.
---@param opts? { range?: integer, line1?: integer, line2?: integer }
---@return leash.LineRange?
function M.range(opts)
  opts = opts or {}
  local a, b
  if opts.range and opts.range > 0 and opts.line1 and opts.line2 then
    a, b = opts.line1, opts.line2
  else
    local mode = vim.fn.mode()
    if not (mode == 'v' or mode == 'V' or mode == '\22') then return nil end
    a, b = vim.fn.line('v'), vim.fn.line('.')
  end
  return { math.min(a, b), math.max(a, b), buf = vim.api.nvim_get_current_buf() }
end

--- The operating system.
---@return string
function M.os()
  local os = jit.os:lower()
  if os == 'osx' then return 'macos' end
  return os
end

--- The visual selection, if Visual mode is active (or was just left by a `:` range).
---@return leash.Selection?
function M.selection()
  local mode = vim.fn.mode()
  if not (mode == 'v' or mode == 'V' or mode == '\22') then return nil end
  local s, e = vim.fn.getpos('v'), vim.fn.getpos('.')
  local lines = math.abs(e[2] - s[2]) + 1
  local chars = 0
  if mode == 'v' then
    local ok, region = pcall(vim.fn.getregion, s, e, { type = mode })
    if ok then
      for i, l in ipairs(region) do
        chars = chars + vim.fn.strchars(l) + (i < #region and 1 or 0)
      end
    end
  end
  return { mode = mode, lines = lines, chars = chars }
end

--- The selection a command was given as a range (`:'<,'>Do …` after Visual mode).
---@param opts { range?: integer, line1?: integer, line2?: integer }
---@return leash.Selection?
function M.range_selection(opts)
  if not opts.range or opts.range == 0 or not opts.line1 then return nil end
  local mode = vim.fn.visualmode()
  local vs, ve = vim.fn.getpos("'<"), vim.fn.getpos("'>")
  -- A range that is exactly the last Visual area keeps its mode; any other is linewise.
  if not (vs[2] == opts.line1 and ve[2] == opts.line2 and mode ~= '') then mode = 'V' end
  local chars = 0
  if mode == 'v' then
    local ok, region = pcall(vim.fn.getregion, vs, ve, { type = 'v' })
    if ok then
      for i, l in ipairs(region) do
        chars = chars + vim.fn.strchars(l) + (i < #region and 1 or 0)
      end
    end
  end
  return { mode = mode, lines = opts.line2 - opts.line1 + 1, chars = chars }
end

--- Detect the project stack by looking upward from `dir` for marker files.
---@param dir string
---@return string[] stack
---@return string? root the directory holding the nearest marker
function M.project(dir)
  -- What was found from `dir` holds while none of the folders looked in changed: adding,
  -- removing or renaming a marker (or a lockfile) changes its folder's time stamp. That
  -- is one `stat` per folder instead of one per marker and folder.
  local stamps, settled = H.stamps(dir)
  local known = H.found[dir]
  if stamps and known and known.stamps == stamps then return { unpack(known.stack) }, known.root end
  local stack, root = H.detect(dir)
  -- A folder whose time stamp has whole seconds only (some file systems) and changed in
  -- the last seconds may change again within that second unseen: then nothing is kept.
  H.found[dir] = stamps and settled and { stamps = stamps, stack = { unpack(stack) }, root = root } or nil
  return stack, root
end

-- Helper data ================================================================

-- Marker file → stack name, in the order they are reported.
H.markers = {
  { 'Cargo.toml', 'rust' },
  { 'package.json', 'node' },
  { 'pyproject.toml', 'python' },
  { 'setup.py', 'python' },
  { 'requirements.txt', 'python' },
  { 'go.mod', 'go' },
  { 'pom.xml', 'java (maven)' },
  { 'build.gradle', 'java (gradle)' },
  { 'build.gradle.kts', 'java (gradle)' },
  { 'Gemfile', 'ruby' },
  { 'mix.exs', 'elixir' },
  { 'composer.json', 'php' },
  { 'CMakeLists.txt', 'cmake' },
  { 'meson.build', 'meson' },
  { 'flake.nix', 'nix' },
  { 'Makefile', 'make' },
  { 'justfile', 'just' },
  { 'Justfile', 'just' },
  { 'Taskfile.yml', 'task' },
}

-- Lockfile → node package manager.
H.node_lockfiles = {
  { 'pnpm-lock.yaml', 'pnpm' },
  { 'yarn.lock', 'yarn' },
  { 'bun.lockb', 'bun' },
  { 'bun.lock', 'bun' },
  { 'package-lock.json', 'npm' },
}

-- Helper functionality =======================================================

--- What `vim.fs.root(dir, names of H.markers)` answers: the nearest directory, from `dir`
--- upward, holding the first marker (in the markers' order) that any of them holds. Asked
--- on every request: the same `stat` calls, without |vim.fs.find()|'s path handling per
--- marker, which cost more than the calls (scripts/bench-do). Only the list of
--- directories, which no file changes, is kept.
---@param dir string
---@return string?
function H.root(dir)
  local dirs = H.dirs_of(dir)
  local stat = vim.uv.fs_stat
  for _, m in ipairs(H.markers) do
    local name = m[1]
    for _, d in ipairs(dirs) do
      if stat(vim.fs.joinpath(d, name)) then return d end
    end
  end
  return nil
end

-- The directories |H.root()| looks in, by the directory it was asked for.
H.dirs = {}

-- What |M.project()| found, by the directory it was asked for: `{ stamps, stack, root }`.
H.found = {}

-- How old (seconds) a folder's time stamp of whole seconds must be for what was found to
-- be kept.
H.settle_s = 2

--- `dir` and the directories above it: where |H.root()| looks, kept (no file changes it).
function H.dirs_of(dir)
  local dirs = H.dirs[dir]
  if not dirs then
    local start = vim.fs.normalize(vim.fn.fnamemodify(dir, ':p:h'))
    dirs = { start }
    for parent in vim.fs.parents(start) do
      dirs[#dirs + 1] = parent
    end
    H.dirs[dir] = dirs
  end
  return dirs
end

--- The stack and root found from `dir` (|M.project()|), by looking.
function H.detect(dir)
  local root = H.root(dir)
  if not root then return {}, nil end
  local stack, seen = {}, {}
  for _, m in ipairs(H.markers) do
    local name, what = m[1], m[2]
    if not seen[what] and vim.uv.fs_stat(root .. '/' .. name) then
      seen[what] = true
      if what == 'node' then
        stack[#stack + 1] = ('node (%s)'):format(H.node_manager(root))
      else
        stack[#stack + 1] = what
      end
    end
  end
  return stack, root
end

--- The time stamps of the folders |H.root()| looks in from `dir`, as one string, and
--- whether each is either finer than a second or older than |H.settle_s|; nil when one
--- cannot be read.
---@return string? stamps
---@return boolean settled
function H.stamps(dir)
  local dirs = H.dirs_of(dir)
  local parts, settled, now = {}, true, os.time()
  for i, d in ipairs(dirs) do
    local st = vim.uv.fs_stat(d)
    if not st then return nil, false end
    parts[i] = st.mtime.sec .. '.' .. st.mtime.nsec
    if st.mtime.nsec == 0 and now - st.mtime.sec < H.settle_s then settled = false end
  end
  return table.concat(parts, ' '), settled
end

function H.node_manager(root)
  for _, l in ipairs(H.node_lockfiles) do
    if vim.uv.fs_stat(root .. '/' .. l[1]) then return l[2] end
  end
  return 'npm'
end

return M
