-- :Do's local work in one Neovim: what scripts/bench-do runs in `--clean` and in the
-- real config of the end-to-end suite (tests/e2e/realconfig/init.lua), side by side.
--   nvim --headless --clean -l scripts/bench-do.lua [FILE]
--   nvim --headless -u tests/e2e/realconfig/init.lua -l scripts/bench-do.lua [FILE]
-- FILE (default: none) is opened first; in the real config the script waits for gitsigns
-- and for the language servers that start on it (LEASH_BENCH_SERVERS, comma-separated).
-- LEASH_BENCH_ROOT: the leash checkout to load in --clean (default: the cwd); under
-- lazy.nvim the config's own `leash.nvim` spec is loaded.
-- Prints one line: `load MS first MS again MS cached MS first_cpu MS again_cpu MS
-- cached_cpu MS first_done MS again_done MS first_left MS again_left MS entries N
-- servers NAMES`:
--   load    loading leash (lazy.nvim's load and setup, the native module)
--   first   planner.start's local work, first in the session (catalog from the disk caches)
--   again   the same, median of 9 later requests
--   cached  catalog.get() with nothing changed, median of 31
--   *_cpu   the same in the main thread's CPU time
--   *_left  from :Do until the request left: the prompt went to the provider (the real
--           config's model server refuses the connection), or the offline plan was made
--           (--clean); the shortlist ranked first (the ranker's index built first, for a
--           new catalog). The planner's own record of the moment.
--   *_done  from :Do until the planner's callback ran with the result
-- LEASH_BENCH_PROFILE=first|again: instead, LuaJIT's profiler (jit.profile) around N
-- (LEASH_BENCH_N, default 200) planner.start calls, and the time of each catalog source;
-- `first` drops the catalog and every in-memory cache before each call, as a new session.
local request = 'make the font bigger and turn on word wrap'

local function ms_since(t) return (vim.uv.hrtime() - t) / 1e6 end

-- The main thread's CPU time (Linux: CLOCK_THREAD_CPUTIME_ID), beside the wall clock: on a
-- shared machine the wall clock also counts the time other processes held the CPU.
local ffi = require('ffi')
-- Its own name for the symbol: a plugin may have declared clock_gettime with its own types.
pcall(
  ffi.cdef,
  [[typedef struct { long tv_sec; long tv_nsec; } leash_bench_ts;
    int leash_bench_clock_gettime(int, leash_bench_ts *) __asm__("clock_gettime");]]
)
local ts = ffi.new('leash_bench_ts')
local function cpu_ms()
  if jit.os ~= 'Linux' or ffi.C.leash_bench_clock_gettime(3, ts) ~= 0 then return 0 end
  return tonumber(ts.tv_sec) * 1e3 + tonumber(ts.tv_nsec) / 1e6
end
local function median(xs)
  table.sort(xs)
  return xs[math.floor(#xs / 2) + 1]
end

--- The CPU time (ms) used so far by Neovim's child processes and theirs (Linux: /proc;
--- elsewhere 0, and nothing is waited for).
local function children_cpu()
  if jit.os ~= 'Linux' then return 0 end
  local tick = 100 -- USER_HZ
  local parent, total = {}, 0
  local stats = {}
  for pid in vim.fs.dir('/proc') do
    if pid:match('^%d+$') then
      local f = io.open('/proc/' .. pid .. '/stat')
      local line = f and f:read('*l')
      if f then f:close() end
      -- pid (comm) state ppid … utime stime (fields 14, 15): read after the last ')'.
      local rest = line and line:match('%) (.*)$')
      if rest then
        local fields = vim.split(rest, ' ', { plain = true })
        parent[pid] = fields[2]
        stats[pid] = (tonumber(fields[12]) or 0) + (tonumber(fields[13]) or 0)
      end
    end
  end
  local function under(pid)
    local seen = 0
    while pid and seen < 64 do
      if pid == tostring(vim.uv.os_getpid()) then return true end
      pid, seen = parent[pid], seen + 1
    end
    return false
  end
  for pid, ticks in pairs(stats) do
    if pid ~= tostring(vim.uv.os_getpid()) and under(pid) then total = total + ticks end
  end
  return total * 1000 / tick
end

-- The file, and what attaches to it (gitsigns' maps, language servers), before leash loads.
local file = _G.arg[1]
local servers = {}
if file then
  vim.cmd.edit(vim.fn.fnameescape(file))
  if package.loaded['lazy'] then
    -- gitsigns attaches (and its on_attach maps its keys) after a git call of its own.
    vim.wait(5000, function()
      local cache = package.loaded['gitsigns.cache']
      return cache ~= nil and cache.cache[vim.api.nvim_get_current_buf()] ~= nil
    end, 10)
    for name in (vim.env.LEASH_BENCH_SERVERS or ''):gmatch('[^,]+') do
      if
        vim.fn.executable(vim.lsp.config[name] and vim.lsp.config[name].cmd and vim.lsp.config[name].cmd[1] or '') == 1
      then
        servers[#servers + 1] = name
      end
    end
    vim.wait(20000, function()
      for _, name in ipairs(servers) do
        if #vim.lsp.get_clients({ bufnr = 0, name = name }) == 0 then return false end
      end
      return true
    end, 20)
    -- The targets are for a quiet machine: a language server that just attached reads
    -- the project on another core for seconds. Wait (at most 60 s) until Neovim's child
    -- processes have used under 5 ms of CPU in half a second.
    local last = children_cpu()
    local t_quiet = vim.uv.hrtime()
    vim.wait(60000, function()
      vim.wait(500)
      local now = children_cpu()
      local busy = now - last
      last = now
      return busy < 5
    end, 1)
    io.stderr:write(('bench-do: the language servers were quiet after %.1f s\n'):format(ms_since(t_quiet) / 1000))
  end
end

local t = vim.uv.hrtime()
if package.loaded['lazy'] then
  require('lazy').load({ plugins = { 'leash.nvim' } })
else
  vim.opt.rtp:prepend(vim.env.LEASH_BENCH_ROOT or vim.fn.getcwd())
end
assert(require('leash.native').load())
local load_ms = ms_since(t)

local planner, catalog = require('leash.planner'), require('leash.catalog')

--- planner.start's time (wall, CPU), the time until its callback ran with the result,
--- and until the request left (the result's `left_at`; nil from a checkout that does not
--- record it).
local function local_work()
  local t0, c0 = vim.uv.hrtime(), cpu_ms()
  local done, left
  local started, err = planner.start(request, function(result)
    done = ms_since(t0)
    left = result.left_at and (result.left_at - t0) / 1e6
  end)
  local ms, cpu = ms_since(t0), cpu_ms() - c0
  assert(started, err)
  vim.wait(5000, function() return done ~= nil and not planner.busy() end, 1)
  return ms, cpu, assert(done, 'the request did not end within 5 s'), left
end

--- Drop what a new session would not have (the disk caches stay).
local function new_session()
  catalog.reset()
  require('leash.sources.shared.core_sources').reset()
  require('leash.sources.shared.script_pin').reset()
end

local mode = vim.env.LEASH_BENCH_PROFILE
if not mode then
  local first, first_cpu, first_done, first_left = local_work()
  local again, again_cpu, again_done, again_left = {}, {}, {}, {}
  for i = 1, 9 do
    again[i], again_cpu[i], again_done[i], again_left[i] = local_work()
  end
  local cached, cached_cpu = {}, {}
  for i = 1, 31 do
    local t1, c1 = vim.uv.hrtime(), cpu_ms()
    assert(catalog.get())
    cached[i], cached_cpu[i] = ms_since(t1), cpu_ms() - c1
  end
  io.stdout:write(
    ('\nload %.3f first %.3f again %.3f cached %.3f first_cpu %.3f again_cpu %.3f cached_cpu %.3f first_done %.3f again_done %.3f%s entries %d servers %s\n'):format(
      load_ms,
      first,
      median(again),
      median(cached),
      first_cpu,
      median(again_cpu),
      median(cached_cpu),
      first_done,
      median(again_done),
      first_left and (' first_left %.3f again_left %.3f'):format(first_left, median(again_left)) or '',
      catalog.get().handle:len(),
      #servers > 0 and table.concat(servers, ',') or '-'
    )
  )
  return
end

-- The profile: samples per line (self) and per line on the stack (inclusive).
local profile = require('jit.profile')
local n = tonumber(vim.env.LEASH_BENCH_N) or 200
local_work()
local stacks, total = {}, 0
profile.start('li1', function(thread, samples)
  local stack = profile.dumpstack(thread, 'pl;', -12)
  stacks[stack] = (stacks[stack] or 0) + samples
  total = total + samples
end)
local t0 = vim.uv.hrtime()
for _ = 1, n do
  if mode == 'first' then new_session() end
  local_work()
end
local wall = ms_since(t0)
profile.stop()
local self_, incl = {}, {}
for stack, count in pairs(stacks) do
  local seen = {}
  local frames = vim.split(stack, ';', { trimempty = true })
  for _, f in ipairs(frames) do
    if not seen[f] then
      seen[f], incl[f] = true, (incl[f] or 0) + count
    end
  end
  if frames[#frames] then self_[frames[#frames]] = (self_[frames[#frames]] or 0) + count end
end
local function top(counts, k)
  local rows = {}
  for f, c in pairs(counts) do
    rows[#rows + 1] = { f, c }
  end
  table.sort(rows, function(a, b) return a[2] > b[2] end)
  for i = 1, math.min(k, #rows) do
    io.stdout:write(('  %5.1f%%  %s\n'):format(100 * rows[i][2] / total, rows[i][1]))
  end
end
io.stdout:write(('\n%d × :Do (%s), %.0f ms in all, %d samples; self:\n'):format(n, mode, wall, total))
top(self_, 20)
io.stdout:write('inclusive:\n')
top(incl, 30)

-- Each source on its own, as the catalog calls it (median of 21; `first`: new sessions).
io.stdout:write('sources (median ms, entries):\n')
local sources = require('leash.sources')
for _, name in ipairs(sources.names) do
  local times, count = {}, 0
  for i = 1, 21 do
    if mode == 'first' then new_session() end
    local static = catalog.static()
    local t1 = vim.uv.hrtime()
    local list = sources.get(name).entries({
      config = require('leash.config').get(),
      static = static,
      core = function() return require('leash.sources.shared.core_sources').discover() end,
    })
    times[i], count = ms_since(t1), #list
  end
  io.stdout:write(('  %-14s %7.3f  %d\n'):format(name, median(times), count))
end
