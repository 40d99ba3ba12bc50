-- After a headless `Lazy! sync` whose build failed: lazy's build task ended with an error
-- that carries cargo's own error lines; `:Do` then says what is missing in one message.
local failures = {}
local function check(cond, what)
  print((cond and 'ok   ' or 'FAIL ') .. what)
  if not cond then failures[#failures + 1] = what end
end

local plugin = require('lazy.core.config').plugins['leash.nvim']
local build
for _, task in ipairs(plugin._.tasks or {}) do
  if task.name == 'build' then build = task end
end
check(build ~= nil, "lazy.nvim kept leash's build task")
if build then
  check(not build:running(), 'the build task finished')
  check(build:has_errors(), 'the build task failed')
  local out = build:output(vim.log.levels.ERROR)
  check(out:find('cargo build failed', 1, true) ~= nil, 'lazy shows: cargo build failed')
  check(out:find('error[E0308]: mismatched types', 1, true) ~= nil, "lazy shows cargo's error: " .. out)
  check(out:find('leash_e2e_broken', 1, true) ~= nil, 'lazy shows where: leash_e2e_broken')
end
check(vim.uv.fs_stat(plugin.dir .. '/lua/leash_native.so') == nil, 'no library was installed')

-- The first :Do: one message, no traceback (lazy's stand-in :Do runs it through vim.cmd).
-- (A CARGO_TARGET_DIR naming a directory that holds a built library would let it load.)
vim.env.CARGO_TARGET_DIR = nil
local msgs = {}
vim.notify = function(msg) msgs[#msgs + 1] = msg end
local ok, err = pcall(vim.cmd, 'Do set tabstop to 4')
vim.wait(1000, function() return #msgs > 0 end, 10)
check(ok, ':Do raised no error through lazy: ' .. tostring(err))
check(#msgs == 1, ('one message (%d): %s'):format(#msgs, table.concat(msgs, ' | ')))
check((msgs[1] or ''):find('native library not found', 1, true) ~= nil, 'it says the library is missing')
check(not table.concat(msgs, '\n'):find('traceback'), 'no traceback')

print(#failures == 0 and 'ALL OK' or ('%d FAILED'):format(#failures))
vim.cmd(#failures == 0 and 'qall!' or 'cquit 1')
