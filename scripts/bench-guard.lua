-- What the process guard costs a plan: N safe steps run through the executor with the
-- guard (every step) and with it bypassed, interleaved in one process, 201 rounds each;
-- prints the medians, the fastest rounds and their ratios.
--
--   nvim --headless --clean -l scripts/bench-guard.lua [N]     (default N = 10)
--
-- The steps are the cheapest kind (setting 'wrap' back and forth), so the guard's share
-- is as large as it can be; a real step (opening a file, running a command) costs more
-- and the ratio only gets closer to 1.
local root = vim.fn.getcwd()
vim.opt.rtp:prepend(root)
local n = tonumber(_G.arg[1]) or 10
local rounds = 201

local native = require('leash.native').load()
assert(native, 'build the native module first: nvim --headless --clean -l build.lua')

local steps = {}
for i = 1, n do
  steps[i] = { index = i - 1, type = 'setting', key = 'wrap', value = i % 2 == 0, reach = 'safe', label = 'Set wrap' }
end
local plan = { reply = '', confirm = 'default', steps = steps, dropped = {} }

local execute = require('leash.execute')
local guard = require('leash.guard')
local guarded_run = guard.run
local function bypass(fn)
  local ok, res, msg = pcall(fn)
  if not ok then return false, res end
  if res == false or (res == nil and msg) then return false, msg end
  return true
end

-- Warm both paths (the refusal program is written on first use).
assert(execute.run(plan))
guard.run = bypass
assert(execute.run(plan))
guard.run = guarded_run

local with, without = {}, {}
for r = 1, rounds do
  -- Alternate which goes first, so neither always runs on a warmer cache.
  local order = r % 2 == 0 and { true, false } or { false, true }
  for _, guarded in ipairs(order) do
    guard.run = guarded and guarded_run or bypass
    local t0 = vim.uv.hrtime()
    local ok, err = execute.run(plan)
    local dt = (vim.uv.hrtime() - t0) / 1e6
    assert(ok, err)
    table.insert(guarded and with or without, dt)
  end
end
guard.run = guarded_run

local function median(t)
  table.sort(t)
  return t[math.ceil(#t / 2)]
end
local mw, mo = median(with), median(without)
-- The fastest round of each: on a loaded machine a plan is sometimes preempted, which
-- moves a median more than anything the guard does.
local fw, fo = with[1], without[1]
io.stdout:write(('plan of %d safe steps, %d rounds each, interleaved\n'):format(n, rounds))
io.stdout:write(('  without the guard: %.3f ms (median)\n'):format(mo))
io.stdout:write(('  with the guard:    %.3f ms (median), %.3f ms per step more\n'):format(mw, (mw - mo) / n))
io.stdout:write(('  ratio with/without: %.2f\n'):format(mw / mo))
io.stdout:write(('  fastest rounds: %.3f ms without, %.3f ms with (ratio %.2f)\n'):format(fo, fw, fw / fo))
vim.cmd('qa!')
