-- The local part of :Do, in one fresh Neovim (design budgets: loading the native module
-- < 5 ms; everything local between Enter and the request leaving < 20 ms).
--   for i in $(seq 9); do nvim --headless --clean -l scripts/bench-local-path.lua; done
-- Prints one line: load ms, then :Do's local work (catalog from the disk cache, context,
-- plan_start returning) in ms, first in the session and again.
local root = vim.fn.getcwd()
vim.opt.rtp:prepend(root)
local t = vim.uv.hrtime()
assert(require('leash.native').load())
local load_ms = (vim.uv.hrtime() - t) / 1e6

local function local_path()
  local t0 = vim.uv.hrtime()
  local started, err = require('leash.planner').start('make the font bigger and turn on word wrap', function() end)
  assert(started, err)
  local ms = (vim.uv.hrtime() - t0) / 1e6
  vim.wait(2000, function() return not require('leash.planner').busy() end, 1)
  return ms
end

local first = local_path()
local again = local_path()
io.stdout:write(('load %.2f ms  :Do local work: first %.2f ms, again %.2f ms\n'):format(load_ms, first, again))
