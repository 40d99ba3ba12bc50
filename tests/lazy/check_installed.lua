-- After a headless `Lazy! sync`: the library is in place, `:help leash` works before the
-- plugin is loaded, and `:Do` (through lazy's stand-in command) plans offline and runs.
local failures = {}
local function check(cond, what)
  print((cond and 'ok   ' or 'FAIL ') .. what)
  if not cond then failures[#failures + 1] = what end
end

local plugin = require('lazy.core.config').plugins['leash.nvim']
check(plugin ~= nil, 'lazy.nvim knows leash.nvim')
local lib = plugin.dir .. '/lua/leash_native.so'
check(vim.uv.fs_stat(lib) ~= nil, 'the library is in place: ' .. lib)
check(not plugin._.loaded, 'leash is not loaded yet (cmd = { "Do", "Leash" })')

local ok, err = pcall(vim.cmd.help, 'leash-install')
local name = vim.api.nvim_buf_get_name(0)
check(
  ok and name:match('/doc/leash%.txt$') ~= nil,
  (':help leash-install before loading: %s'):format(ok and name or err)
)
if ok then vim.cmd.close() end
check(not plugin._.loaded, ':help did not load leash')

local msgs = {}
local notify = vim.notify
vim.notify = function(msg, level, opts)
  msgs[#msgs + 1] = msg
  return notify(msg, level, opts)
end
local before = vim.o.tabstop
ok, err = pcall(vim.cmd, 'Do set tabstop to 4')
check(ok, ':Do runs through lazy.nvim: ' .. tostring(err))
check(plugin._.loaded ~= nil, ':Do loaded leash')
vim.wait(10000, function() return vim.fn.win_gettype() == 'popup' end, 10)
check(vim.fn.win_gettype() == 'popup', 'the plan window opened')
check(vim.o.tabstop == before, 'nothing ran before the plan was confirmed')
vim.wait(300) -- the plan window ignores keys for its first 150 ms
vim.api.nvim_feedkeys('y', 'x', false)
vim.wait(3000, function() return vim.o.tabstop == 4 end, 10)
check(vim.o.tabstop == 4, ('tabstop %d -> %d'):format(before, vim.o.tabstop))
check(table.concat(msgs, '\n'):find('ran 1 step', 1, true) ~= nil, 'leash said it ran the step')

print(#failures == 0 and 'ALL OK' or ('%d FAILED'):format(#failures))
vim.cmd(#failures == 0 and 'qall!' or 'cquit 1')
