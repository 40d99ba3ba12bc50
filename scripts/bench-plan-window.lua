-- Time to open the plan window (render, lay out, draw, discard typeahead), side by side
-- for a typical plan and for plans at the checker's size cap.
--   nvim --headless --clean -l scripts/bench-plan-window.lua [runs]
-- Run from the repository root. Needs no native library.
--   typical     3 steps (two settings, one terminal step) with short reasons
--   cap ascii   10 terminal steps, each a 4 KB command, with 1 KB reasons and reply
--   cap cjk     the same size in three-byte characters two cells wide
local root = vim.fn.getcwd()
vim.opt.rtp:prepend(root)
local runs = tonumber(_G.arg[1]) or 21
local confirm = require('leash.ui.confirm')

local function median(xs)
  table.sort(xs)
  return xs[math.floor(#xs / 2) + 1]
end

local function cap(unit)
  local command = unit:rep(math.floor(4096 / #unit))
  local steps = {}
  for i = 0, 9 do
    steps[#steps + 1] = { index = i, type = 'terminal', command = command, why = command:sub(1, 1024), reach = 'shell' }
  end
  return { reply = command:sub(1, 1024), confirm = 'required', steps = steps, dropped = {} }
end

local cases = {
  {
    'typical',
    {
      reply = 'Turning on word wrap and line numbers, then running the tests.',
      confirm = 'required',
      steps = {
        { index = 0, type = 'setting', key = 'wrap', value = true, why = 'wrap long lines', reach = 'safe' },
        { index = 1, type = 'setting', key = 'number', value = true, why = 'line numbers', reach = 'safe' },
        { index = 2, type = 'terminal', command = 'cargo test --release', why = 'run the tests', reach = 'shell' },
      },
      dropped = {},
    },
  },
  { 'cap ascii', cap('abcd efgh ') },
  { 'cap cjk', cap('日本語 ') },
}

local base
for _, case in ipairs(cases) do
  local xs, rows = {}, 0
  for _ = 1, runs do
    local t = vim.uv.hrtime()
    local h = confirm.open(case[2], { arm_ms = 0 })
    xs[#xs + 1] = (vim.uv.hrtime() - t) / 1e6
    rows = #h.lines
    h.cancel()
  end
  local m = median(xs)
  base = base or m
  io.stdout:write(('%-10s median %7.2f ms  (%5.1f× typical)  %d rows\n'):format(case[1], m, m / base, rows))
end
