-- lazy.nvim runs this file on install and update (it `loadfile`s a top-level build.lua
-- inside a coroutine, with Neovim's cwd, before the plugin is necessarily on
-- 'runtimepath'). It builds the native module and installs it as lua/leash_native.so.
local root = vim.fs.dirname(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p'))
package.loaded['leash.native'] = package.loaded['leash.native'] or dofile(root .. '/lua/leash/native.lua')
local build = dofile(root .. '/lua/leash/build.lua')
local ok, msg = build.run({ root = root })
if not ok then error(msg, 0) end
if coroutine.running() and coroutine.isyieldable and coroutine.isyieldable() then
  coroutine.yield(msg)
else
  print(msg)
end
