-- What the plan window's dry run costs: the preview of a plan on a buffer of N lines
-- (default 10,000) against running the same steps for real through the executor,
-- interleaved in one process, 21 rounds each; prints the medians, the fastest rounds and
-- their ratio.
--
--   nvim --headless --clean -l scripts/bench-preview.lua [N]
--
-- The plan is `:%Do sort the lines, make every apple APPLE and set tabstop to 4`:
-- `:sort` and `:substitute /apple/APPLE/g` on all N lines, then a setting. The preview
-- copies the buffer, runs both commands on the copy and diffs each step's result; the
-- real run is the executor's (the process guard around each step, the undo record). The
-- preview's own work is its time less the time in the commands on the copy. Last, the
-- preview of a :substitute and a :delete on the cursor's line of the same buffer.
local root = vim.fn.getcwd()
vim.opt.rtp:prepend(root)
local n = tonumber(_G.arg[1]) or 10000
local rounds = 21

local native = require('leash.native').load()
assert(native, 'build the native module first: nvim --headless --clean -l build.lua')
local state = assert(require('leash.catalog').get())

local words = { 'apple', 'pear', 'fig', 'plum', 'kiwi', 'lime' }
local text = {}
local seed = 7
for i = 1, n do
  seed = (seed * 1103515245 + 12345) % 2147483648
  text[i] = ('%05d %s %s tree %d'):format(seed % 100000, words[seed % 6 + 1], words[math.floor(seed / 7) % 6 + 1], i)
end

local buf = vim.api.nvim_get_current_buf()
vim.api.nvim_buf_set_lines(buf, 0, -1, false, text)
local range = { 1, n, buf = buf }
local plan = native.validate(
  state.handle,
  vim.json.encode({
    reply = '',
    steps = {
      { type = 'item', id = 'cmd:sort', args = {} },
      { type = 'item', id = 'cmd:substitute', args = { '/apple/APPLE/g' } },
      { type = 'setting', key = 'tabstop', value = 4 },
    },
  }),
  { profile = 'neovim', context = { range = { 1, n } } }
)
assert(#plan.steps == 3, vim.inspect(plan.dropped))

local preview = require('leash.preview')
local execute = require('leash.execute')
local opts = { range = range, entries = state.entries }

-- The time the preview spends in the commands themselves (nvim_cmd on the copy), to
-- tell its own work (the copy, the diffs, putting the editor back) apart.
local in_commands = 0
local nvim_cmd = vim.api.nvim_cmd
local function timed_cmd(...)
  local t0 = vim.uv.hrtime()
  local res = { pcall(nvim_cmd, ...) }
  in_commands = in_commands + (vim.uv.hrtime() - t0)
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, table.maxn(res))
end

local own = {}
local function time_preview()
  in_commands = 0
  vim.api.nvim_cmd = timed_cmd
  local t0 = vim.uv.hrtime()
  local pv = preview.compute(plan, opts)
  local dt = (vim.uv.hrtime() - t0) / 1e6
  vim.api.nvim_cmd = nvim_cmd
  assert(pv.ran and pv.effects[1].kind == 'diff' and pv.effects[2].kind == 'diff', vim.inspect(pv.effects))
  own[#own + 1] = dt - in_commands / 1e6
  return dt
end

local function time_run()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, text)
  vim.bo.tabstop = 8
  local t0 = vim.uv.hrtime()
  local ok, err = execute.run(plan, opts)
  local dt = (vim.uv.hrtime() - t0) / 1e6
  assert(ok, err)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, text)
  return dt
end

-- Warm both paths.
time_preview()
time_run()
own = {}

local previews, runs = {}, {}
for r = 1, rounds do
  if r % 2 == 0 then
    previews[#previews + 1] = time_preview()
    runs[#runs + 1] = time_run()
  else
    runs[#runs + 1] = time_run()
    previews[#previews + 1] = time_preview()
  end
end

local function median(t)
  table.sort(t)
  return t[math.ceil(#t / 2)]
end
local mp, mr = median(previews), median(runs)
local fp, fr = previews[1], runs[1]
print(('preview of a plan on %d lines (:sort, :substitute on all of them, a setting), %d rounds'):format(n, rounds))
print(('  median:  preview %.1f ms, run %.1f ms, ratio %.2f'):format(mp, mr, mp / mr))
print(('  fastest: preview %.1f ms, run %.1f ms, ratio %.2f'):format(fp, fr, fp / fr))
local mo = median(own)
print(("  the preview's own work (copy, diffs, editor state put back), median: %.1f ms"):format(mo))

-- A step on one line of the same buffer: only the changed line is read back from the
-- copy, so the preview costs about the copy of the buffer.
local one = native.validate(
  state.handle,
  vim.json.encode({
    reply = '',
    steps = {
      { type = 'item', id = 'cmd:substitute', args = { '/tree/TREE/' } },
      { type = 'item', id = 'cmd:delete', args = {} },
    },
  }),
  { profile = 'neovim' }
)
assert(#one.steps == 2, vim.inspect(one.dropped))
vim.api.nvim_win_set_cursor(0, { math.ceil(n / 2), 0 })
local local_times = {}
for _ = 1, rounds do
  local t0 = vim.uv.hrtime()
  local pv = preview.compute(one, { entries = state.entries })
  local_times[#local_times + 1] = (vim.uv.hrtime() - t0) / 1e6
  assert(pv.effects[1].kind == 'diff' and pv.effects[2].kind == 'diff', vim.inspect(pv.effects))
end
print(("  :substitute and :delete on the cursor's line instead, preview median: %.1f ms"):format(median(local_times)))
