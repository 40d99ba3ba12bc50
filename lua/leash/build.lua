--- Builds the native module with cargo and installs it as `lua/leash_native.so`.
---
--- Used by the top-level `build.lua` (lazy.nvim runs it on install and update) and by
--- `:Leash build`. The library is installed atomically and never overwritten in place:
--- it is copied to `lua/leash_native.so.<pid>.tmp` and renamed over the old name. A
--- rename replaces the directory entry only, so a Neovim that has the old library
--- mapped keeps running on the old inode (overwriting it in place crashes macOS).
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.BuildOpts
---@field root? string plugin root (default: this checkout)
---@field on_progress? fun(msg: string) called on the main loop with short status lines
---@field on_done? fun(ok: boolean, msg: string) called on the main loop when finished

--- Path of the build log (overwritten by each build).
---@param root? string
---@return string
function M.log_path(root) return (root or H.native().root()) .. '/build.log' end

--- Start `cargo build --release` asynchronously, then install the library.
---@param opts? leash.BuildOpts
---@return vim.SystemObj? job nil when cargo could not be started (on_done was called)
function M.start(opts)
  opts = opts or {}
  local root = opts.root or H.native().root()
  local progress = opts.on_progress or function() end
  local done = opts.on_done or function() end
  local log_path = M.log_path(root)
  local log = io.open(log_path, 'w')
  local function write(s)
    if log then log:write(s) end
  end
  write(('leash build %s\nroot: %s\ncommand: cargo build --release\n\n'):format(os.date('%Y-%m-%d %H:%M:%S'), root))

  if vim.fn.executable('cargo') ~= 1 then
    local msg = 'leash: cargo not found on PATH; install Rust from https://rustup.rs and run :Leash build again'
    write(msg .. '\n')
    if log then log:close() end
    done(false, msg)
    return nil
  end

  local tail = {} -- last lines of stderr, for the error message
  local function on_stderr(_, data)
    if not data then return end
    write(data)
    for line in data:gmatch('[^\n]+') do
      tail[#tail + 1] = line
      if #tail > 20 then table.remove(tail, 1) end
      local what = line:match('^%s*(Compiling %S+)') or line:match('^%s*(Finished .*)')
      if what then vim.schedule(function() progress(what) end) end
    end
  end

  progress('cargo build --release')
  local ok, job = pcall(vim.system, { 'cargo', 'build', '--release', '--color', 'never' }, {
    cwd = root,
    text = true,
    stdout = function(_, data)
      if data then write(data) end
    end,
    stderr = on_stderr,
  }, function(res)
    vim.schedule(function()
      local success, msg
      if res.code ~= 0 then
        success = false
        msg = ('leash: cargo build failed (exit %d); see %s\n%s'):format(
          res.code,
          log_path,
          table.concat(vim.list_slice(tail, math.max(1, #tail - 5)), '\n')
        )
      else
        success, msg = M.install(root)
      end
      write('\n' .. msg .. '\n')
      if log then log:close() end
      done(success, msg)
    end)
  end)
  if not ok then
    local msg = 'leash: could not start cargo: ' .. tostring(job)
    write(msg .. '\n')
    if log then log:close() end
    done(false, msg)
    return nil
  end
  return job
end

--- Build and wait. Inside a coroutine (lazy.nvim runs `build.lua` in one) progress is
--- yielded as strings, which lazy shows in its UI; otherwise it is printed.
---@param opts? { root?: string }
---@return boolean ok
---@return string msg
function M.run(opts)
  opts = opts or {}
  local co = coroutine.running()
  local yieldable = co and coroutine.isyieldable and coroutine.isyieldable()
  local pending, result = {}, nil
  M.start({
    root = opts.root,
    on_progress = function(msg) pending[#pending + 1] = msg end,
    on_done = function(ok, msg) result = { ok, msg } end,
  })
  while not result do
    vim.wait(yieldable and 50 or 200, function() return result ~= nil or #pending > 0 end)
    local msg = table.remove(pending, 1)
    if yieldable then
      coroutine.yield(msg) -- lazy.nvim logs a string and resumes us on a later tick
    elseif msg then
      print(msg)
    end
  end
  return result[1], result[2]
end

--- Copy the built library into `lua/` atomically.
---@param root? string
---@return boolean ok
---@return string msg
function M.install(root)
  local native = H.native()
  root = root or native.root()
  local src = native.artifact(root)
  if not vim.uv.fs_stat(src) then return false, ('leash: cargo finished but %s does not exist'):format(src) end
  local dest = root .. '/lua/' .. native.installed_name()
  local tmp = ('%s.%d.tmp'):format(dest, vim.uv.os_getpid())
  local ok, err = vim.uv.fs_copyfile(src, tmp)
  if not ok then return false, ('leash: could not copy %s to %s: %s'):format(src, tmp, err) end
  ok, err = vim.uv.fs_rename(tmp, dest)
  if not ok and jit.os == 'Windows' then
    -- A loaded DLL cannot be replaced on Windows, but it can be moved aside.
    local aside = ('%s.%d.old'):format(dest, os.time())
    if vim.uv.fs_rename(dest, aside) then
      ok, err = vim.uv.fs_rename(tmp, dest)
    end
  end
  if not ok then
    vim.uv.fs_unlink(tmp)
    return false, ('leash: could not install %s: %s'):format(dest, err)
  end
  local loaded = package.loaded['leash_native'] ~= nil
  return true,
    ('leash: built and installed %s%s'):format(dest, loaded and ' (restart Neovim to load the new library)' or '')
end

-- Helper functionality =======================================================

function H.native() return require('leash.native') end

return M
