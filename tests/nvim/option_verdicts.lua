-- Neovim's verdict on option values, for the sweep in tests/nvim/values_spec.lua. Run in a
-- throwaway Neovim (its working directory a temporary one: some options name files):
--   nvim --headless --clean -l tests/nvim/option_verdicts.lua IN.json OUT.json
-- IN is a list of {key, value}; OUT a list of the same length of {ok, err, changed}:
-- whether :set-like nvim_set_option_value took the value, Neovim's message if not, and
-- whether it took it but stores something else. Every value is tried on the same clean state: the
-- option's global and local values are put back after each try.
local input, output = _G.arg[1], _G.arg[2]
local f = assert(io.open(input, 'r'))
local tries = vim.json.decode(f:read('*a'))
f:close()

local out = {}
for i, t in ipairs(tries) do
  local key, value = t[1], t[2]
  local info = vim.api.nvim_get_option_info2(key, {})
  local old_global = vim.api.nvim_get_option_value(key, { scope = 'global' })
  local old_local = info.scope ~= 'global' and vim.api.nvim_get_option_value(key, { scope = 'local' }) or nil
  local ok, err = pcall(vim.api.nvim_set_option_value, key, value, {})
  local changed = false
  if ok then changed = vim.api.nvim_get_option_value(key, {}) ~= value end
  pcall(vim.api.nvim_set_option_value, key, old_global, { scope = 'global' })
  if old_local ~= nil then pcall(vim.api.nvim_set_option_value, key, old_local, { scope = 'local' }) end
  out[i] = { ok = ok, err = not ok and tostring(err) or vim.NIL, changed = changed }
end

f = assert(io.open(output, 'w'))
f:write(vim.json.encode(out))
f:close()
