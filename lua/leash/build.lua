--- Puts the native library in place: downloads the prebuilt library of this release for
--- this machine when there is one, otherwise builds it with `cargo build --release`;
--- installs it as `lua/leash_native.so` and loads it at once when this session has none.
---
--- Used by the top-level `build.lua` (lazy.nvim, `nvim -l build.lua`) and by
--- `:Leash build`. Nothing here blocks the main loop: curl and cargo run as child
--- processes, the checksum is computed on a worker thread, and every step reports
--- through callbacks on the main loop.
---
--- The library is installed atomically and never overwritten in place: the new file is
--- written next to it (`lua/leash_native.so.<pid>.tmp`) and renamed over the old name.
--- A rename replaces the directory entry only, so a Neovim that has the old library
--- mapped keeps running on the old inode (overwriting it in place crashes macOS).
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.BuildOpts
---@field root? string plugin root (default: this checkout)
---@field from_source? boolean skip the prebuilt download (default: |M.from_source()|)
---@field on_progress? fun(msg: string, level: integer) on the main loop; TRACE = a status line (redrawn often), DEBUG = a step, INFO = worth keeping
---@field checkpoints? boolean also say cargo's progress as INFO at its start and every 30 s (for output nobody redraws: headless)
---@field on_done? fun(ok: boolean, msg: string) on the main loop when finished; `msg` is one message for the user

---@class leash.BuildJob
---@field cancel fun() stop the download or cargo; `on_done` then reports the cancel

--- Path of the build log (overwritten by each build).
---@param root? string
---@return string
function M.log_path(root) return (root or H.native().root()) .. '/build.log' end

--- Whether the prebuilt download is skipped, and why: `opts.from_source`, else
--- `$LEASH_BUILD_FROM_SOURCE` (any value but empty or `0`), else `g:leash_build_from_source`.
---@param opts? { from_source?: boolean }
---@return boolean
---@return string? why
function M.from_source(opts)
  if opts and opts.from_source ~= nil then return opts.from_source, 'asked for' end
  local env = vim.env.LEASH_BUILD_FROM_SOURCE
  if env and env ~= '' and env ~= '0' then return true, '$LEASH_BUILD_FROM_SOURCE is set' end
  if vim.g.leash_build_from_source then return true, 'g:leash_build_from_source is set' end
  return false
end

--- Start putting the library in place. Returns at once; `on_done` says how it ended.
---@param opts? leash.BuildOpts
---@return leash.BuildJob? job nil when a build is already running (on_done was called)
function M.start(opts)
  opts = opts or {}
  local done = opts.on_done or function() end
  if H.running then
    done(false, 'leash: a build is already running; its output goes to ' .. H.running.log_path)
    return nil
  end
  local root = opts.root or H.native().root()
  local log_path = M.log_path(root)
  local ctx = {
    root = root,
    log_path = log_path,
    last_duration = require('leash.build.progress').last_duration(log_path), -- before the log is overwritten
    checkpoints = opts.checkpoints,
    log = H.open_log(log_path),
    progress = opts.on_progress or function() end,
  }
  local job = {}
  function ctx.finish(ok, msg)
    if ctx.finished then return end -- a cancel already reported the end
    ctx.finished = true
    ctx.log.write('\n' .. msg .. '\n')
    ctx.log.close()
    H.running = nil
    done(ok, msg)
  end
  function job.cancel()
    if ctx.finished then return end
    ctx.cancelled = true
    if ctx.proc then H.kill_tree(ctx.proc) end
    if ctx.download then ctx.download.cancel() end
    ctx.finish(false, 'leash: build cancelled')
  end
  H.running = ctx
  ctx.log.write(('leash build %s\nroot: %s\n\n'):format(os.date('%Y-%m-%d %H:%M:%S'), root))

  local forced, why = M.from_source(opts)
  if forced then
    ctx.log.write(('building from source: %s\n'):format(why))
    H.cargo(ctx)
  else
    H.prebuilt(ctx)
  end
  return job
end

--- Put the library in place and wait for it: the entry point of `build.lua`.
--- Under lazy.nvim (its build runs in a coroutine of its scheduler) this yields
--- `{ msg, level }` progress to lazy, which shows the latest line, and yields between
--- checks instead of waiting. `vim.wait` inside that coroutine would run lazy's
--- scheduler re-entrantly: it finds no runnable task (this one is running, so it is
--- off the queue), stops its executor, and nothing starts it again. Elsewhere
--- (`nvim -l build.lua`, a coroutine that is not lazy's) it waits with `vim.wait` and
--- prints the progress.
---@param opts? { root?: string, from_source?: boolean }
---@return boolean ok
---@return string msg
function M.run(opts)
  opts = opts or {}
  local lazy = M.under_lazy()
  local queue, result = {}, nil
  M.start({
    root = opts.root,
    from_source = opts.from_source,
    checkpoints = #vim.api.nvim_list_uis() == 0,
    on_progress = function(msg, level) queue[#queue + 1] = { msg = msg, level = level } end,
    on_done = function(ok, msg) result = { ok, msg } end,
  })
  while true do
    local item = table.remove(queue, 1)
    if item then
      if lazy then
        coroutine.yield(item)
      elseif item.level ~= vim.log.levels.TRACE then
        print(item.msg)
      end
    elseif result then
      return result[1], result[2]
    elseif lazy then
      coroutine.yield() -- lazy resumes us on a later tick of its scheduler
    else
      vim.wait(100, function() return result ~= nil or #queue > 0 end)
    end
  end
end

--- Whether this code runs in a build coroutine of lazy.nvim, which expects yields.
---@return boolean
function M.under_lazy()
  if not coroutine.running() or (coroutine.isyieldable and not coroutine.isyieldable()) then return false end
  local async = package.loaded['lazy.async']
  if type(async) == 'table' and type(async.running) == 'function' then return async.running() ~= nil end
  -- A lazy.nvim whose scheduler looks different: its documented contract is to yield.
  return package.loaded['lazy'] ~= nil
end

--- Copy the library cargo built (or `src`) into `lua/` atomically.
---@param root? string
---@param src? string default: the cargo artifact
---@return boolean ok
---@return string msg the installed path, or what went wrong
function M.install(root, src)
  local native = H.native()
  root = root or native.root()
  src = src or native.artifact(root)
  if not vim.uv.fs_stat(src) then return false, ('leash: cargo finished but %s does not exist'):format(src) end
  local tmp = H.tmp_path(root)
  local ok, err = vim.uv.fs_copyfile(src, tmp)
  if not ok then return false, ('leash: could not copy %s to %s: %s'):format(src, tmp, err) end
  return H.place(root, tmp)
end

-- Helper functionality =======================================================

function H.native() return require('leash.native') end

---@type table? the build in progress (one per session)
H.running = nil

function H.installed_path(root) return root .. '/lua/' .. H.native().installed_name() end

function H.tmp_path(root) return ('%s.%d.tmp'):format(H.installed_path(root), vim.uv.os_getpid()) end

--- Rename `tmp` over the installed library.
---@return boolean ok
---@return string msg the installed path, or what went wrong
function H.place(root, tmp)
  local dest = H.installed_path(root)
  local ok, err = vim.uv.fs_rename(tmp, dest)
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
  return true, dest
end

--- The log, written as it comes (line-buffered) so `build.log` shows cargo's progress
--- while it runs.
function H.open_log(path)
  local file = io.open(path, 'w')
  if file then file:setvbuf('line') end
  return {
    write = function(s)
      if file then file:write(s) end
    end,
    close = function()
      if file then file:close() end
      file = nil
    end,
  }
end

--- Try the prebuilt library of this release; fall back to cargo with the reason.
function H.prebuilt(ctx)
  local prebuilt = require('leash.build.prebuilt')
  local native = H.native()
  local debug = vim.log.levels.DEBUG
  ctx.progress('looking for a prebuilt library', debug)
  prebuilt.release(ctx.root, native.version, function(release, why)
    if ctx.cancelled then return ctx.finish(false, 'leash: build cancelled') end
    if not release then return H.fallback(ctx, why) end
    ctx.log.write(('downloading %s\n'):format(release.url))
    ctx.progress('downloading ' .. prebuilt.asset(release.target), debug)
    local tmp = H.tmp_path(ctx.root)
    ctx.download = prebuilt.download(release, tmp, function(ok, derr)
      ctx.download = nil
      if ctx.cancelled then return ctx.finish(false, 'leash: build cancelled') end
      if not ok then return H.fallback(ctx, derr) end
      local placed, dest = H.place(ctx.root, tmp)
      if not placed then return H.fallback(ctx, dest) end
      local what = ('the prebuilt library %s for %s (SHA-256 verified)'):format(release.tag, release.target.triple)
      local status, msg = native.activate()
      if status == 'error' then return H.fallback(ctx, ('%s does not load here: %s'):format(what, msg)) end
      ctx.finish(true, ('leash: installed %s as %s; %s'):format(what, dest, msg))
    end)
  end)
end

function H.fallback(ctx, why)
  -- Said once (not again in the final message); `why` may already start with the words.
  local line = why:find('^no prebuilt library') and why or ('no prebuilt library: %s'):format(why)
  ctx.log.write(line .. '\n')
  ctx.progress(line, vim.log.levels.INFO)
  H.cargo(ctx)
end

--- `cargo build --release`, its output streamed to the log; then install and load.
--- cargo draws its progress bar into the pipe (leash.build.progress), which becomes the
--- status line (TRACE) `Compiling 143/212 (…) · 2 min 10 s (last build: 3 min 42 s)`,
--- redrawn at least every 5 s; with `ctx.checkpoints` (headless) an INFO line when
--- the bar is first drawn and every 30 s.
function H.cargo(ctx)
  local levels = vim.log.levels
  local progress = require('leash.build.progress')
  local function fail(msg) ctx.finish(false, msg) end
  if vim.fn.executable('cargo') ~= 1 then
    return fail('leash: cargo is not on PATH; install Rust from https://rustup.rs, then run :Leash build')
  end
  -- Only the library Neovim loads (crates/leash-nvim), not the `leash` program.
  local cmd = { 'cargo', 'build', '--release', '--package', 'leash-nvim', '--color', 'never' }
  ctx.log.write(('command: %s\n\n'):format(table.concat(cmd, ' ')))
  ctx.progress(
    ('building from source with cargo build --release: %s'):format(progress.expected(ctx.last_duration)),
    levels.INFO
  )
  -- Said in the status line too: lazy.nvim's line shows the latest message only.
  ctx.usual = progress.usual(ctx.last_duration)

  local started = vim.uv.hrtime()
  local function elapsed() return (vim.uv.hrtime() - started) / 1e9 end
  local lines, bar, said, checkpoint = {}, nil, 0, nil
  local function status(force)
    if not bar or ctx.finished then return end
    local now = elapsed()
    if not force and now - said < 1 then return end
    said = now
    local line = progress.status(bar, now, ctx.usual)
    ctx.progress(line, levels.TRACE)
    -- Headless output keeps every line: the first drawing, then one line every 30 s.
    if ctx.checkpoints and (not checkpoint or now - checkpoint >= 30) then
      checkpoint = now
      ctx.progress(line, levels.INFO)
    end
  end
  local read = progress.reader()
  local function on_events(events)
    for _, e in ipairs(events) do
      if e.bar then
        local changed = not bar or e.bar.done ~= bar.done
        bar = e.bar
        status(changed)
      else
        ctx.log.write(e.line .. '\n')
        if #lines < 5000 then lines[#lines + 1] = e.line end
        -- Without a bar (another cargo), its status lines: "   Compiling leash v0.1.0 (…)".
        local line = not bar and e.line:match('^%s+(%u%l+ .*)$')
        if line then ctx.progress(line, levels.TRACE) end
      end
    end
  end
  -- The bar is redrawn only when a crate starts or ends; the link of leash alone takes
  -- minutes, so the elapsed time is said on a timer too.
  local timer = vim.uv.new_timer()
  timer:start(5000, 5000, vim.schedule_wrap(function() status(true) end))
  local function stop_timer()
    if not timer:is_closing() then
      timer:stop()
      timer:close()
    end
  end

  local ok, proc = pcall(vim.system, cmd, {
    cwd = ctx.root,
    text = true,
    env = progress.env,
    detach = true, -- its own process group, so a cancel stops the rustc processes too
    stdout = function(_, data)
      if data then ctx.log.write(data) end
    end,
    stderr = function(_, data)
      if data then vim.schedule(function() on_events(read(data)) end) end
    end,
  }, function(res)
    vim.schedule(function()
      stop_timer()
      ctx.proc = nil
      on_events(read(nil))
      if ctx.cancelled then return ctx.finish(false, 'leash: build cancelled') end
      if res.code ~= 0 then
        return fail(
          ('leash: cargo build failed (exit %d) after %s; the whole output is in %s\n%s'):format(
            res.code,
            progress.duration(elapsed()),
            ctx.log_path,
            H.cargo_errors(lines)
          )
        )
      end
      ctx.log.write(progress.finished_line(elapsed()) .. '\n')
      local installed, dest = M.install(ctx.root)
      if not installed then return fail(dest) end
      local loaded, msg = H.native().activate()
      if loaded == 'error' then return fail(('leash: built and installed %s, but %s'):format(dest, msg)) end
      ctx.finish(
        true,
        ('leash: built from source in %s and installed %s; %s'):format(progress.duration(elapsed()), dest, msg)
      )
    end)
  end)
  if not ok then
    stop_timer()
    return fail('leash: could not start cargo: ' .. tostring(proc))
  end
  ctx.proc = proc
end

--- Stop a process and, on Unix, its process group (cargo's rustc children keep its
--- output pipes open, and would keep compiling, if only cargo were stopped).
---@param proc vim.SystemObj
function H.kill_tree(proc)
  if jit.os ~= 'Windows' and proc.pid then pcall(vim.uv.kill, -proc.pid, 'sigterm') end
  pcall(proc.kill, proc, 'sigterm')
end

--- The error blocks of cargo's output (each from an `error…` line to the blank line
--- after it), or its last lines when there are none.
---@param lines string[]
---@return string
function H.cargo_errors(lines)
  local out, inside = {}, false
  for _, line in ipairs(lines) do
    if line:match('^error') then inside = true end
    if inside then
      if vim.trim(line) == '' then
        inside = false
      else
        out[#out + 1] = line
      end
    end
    if #out >= 40 then break end
  end
  if #out == 0 then out = vim.list_slice(lines, math.max(1, #lines - 9)) end
  return table.concat(out, '\n')
end

return M
