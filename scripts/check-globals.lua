-- Lists every global a Lua file of leash reads or writes that Lua, LuaJIT or Neovim do
-- not provide: a misspelt or missing `local` reads nil at run time, in whatever code
-- path a test did not take. Run by `scripts/test checks`:
--   nvim --headless --clean -l scripts/check-globals.lua FILE...
-- Exit 1 when one is found, naming the file, the line and the name.
local allowed = {}
for name in pairs(_G) do
  allowed[name] = true
end
for _, name in ipairs({ 'vim', 'jit', 'bit', 'unpack' }) do
  allowed[name] = true
end

local bc = require('jit.bc')
local found = 0
for _, file in ipairs(_G.arg) do
  local chunk, err = loadfile(file)
  if not chunk then
    io.stderr:write(err .. '\n')
    found = found + 1
  else
    local out = {}
    bc.dump(chunk, { write = function(_, s) out[#out + 1] = s end, flush = function() end }, true)
    -- Each function's listing starts `-- BYTECODE -- file.lua:12-30` (its lines); then
    -- `0007    GGET     3   1      ; "name"`.
    local lines = '?'
    for line in table.concat(out):gmatch('[^\n]+') do
      lines = line:match('^%-%- BYTECODE %-%- .-:(%d+%-%d+)$') or lines
      local op, name = line:match('^%d+%s+(G[GS]ET)%s.-; "([^"]+)"')
      if op and not allowed[name] then
        local what = op == 'GGET' and 'reads' or 'writes'
        io.stderr:write(('%s: the function at lines %s %s the global "%s"\n'):format(file, lines, what, name))
        found = found + 1
      end
    end
  end
end
os.exit(found == 0 and 0 or 1)
