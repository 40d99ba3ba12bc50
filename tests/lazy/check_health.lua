-- After a headless `Lazy! sync`: `:checkhealth leash` works before leash is loaded (the
-- README's spec loads it on a command), loads it through lazy.nvim so the user's `opts`
-- reach setup(), and reports the config. With LEASH_TEST_OPTS=bad (an invalid config),
-- setup()'s error is one notification without lazy's stack trace, and health lists it.
local failures = {}
local function check(cond, what)
  print((cond and 'ok   ' or 'FAIL ') .. what)
  if not cond then failures[#failures + 1] = what end
end
local bad = os.getenv('LEASH_TEST_OPTS') == 'bad'

local plugin = require('lazy.core.config').plugins['leash.nvim']
-- (Checked after :checkhealth, whose buffer would swallow a line printed before it.)
local loaded_before = plugin == nil or plugin._.loaded ~= nil

local msgs = {}
vim.notify = function(msg, level) msgs[#msgs + 1] = { msg = msg, level = level } end
vim.cmd('silent checkhealth leash')
vim.wait(500) -- lazy.nvim reports errors on a later tick
local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
check(not loaded_before, 'leash was not loaded before :checkhealth (cmd = { "Do", "Leash" })')
local found = not text:find('No healthcheck found', 1, true) and text:find('Native library', 1, true) ~= nil
check(found, ':checkhealth leash found and ran the check' .. (found and '' or (':\n' .. text)))
check(plugin._.loaded ~= nil, ':checkhealth loaded leash through lazy.nvim')

local said = table.concat(vim.tbl_map(function(m) return m.msg end, msgs), '\n---\n')
if bad then
  check(#msgs == 1, ('one notification (%d): %s'):format(#msgs, said))
  local want = 'leash: config: providers.mine.kind: should be one of '
    .. "'anthropic', 'openai', 'ollama', 'offline', not \"gpt\"; timeout_ms: should be an integer from 1000 to 600000, not 5"
  check(msgs[1] and msgs[1].msg == want, 'the message is the config error alone: ' .. said)
  check(msgs[1] and msgs[1].level == vim.log.levels.ERROR, 'as an error')
  check(not said:find('stacktrace', 1, true), 'no stack trace')
  check(text:find('ERROR providers.mine.kind: should be one of', 1, true) ~= nil, 'health lists the first error')
  check(text:find('ERROR timeout_ms: should be an integer', 1, true) ~= nil, 'health lists the second error')
else
  check(#msgs == 0, 'no notification: ' .. said)
  check(text:find('OK setup() accepted the config', 1, true) ~= nil, "health saw the user's opts applied")
end

print(#failures == 0 and 'ALL OK' or ('%d FAILED'):format(#failures))
vim.cmd(#failures == 0 and 'qall!' or 'cquit 1')
