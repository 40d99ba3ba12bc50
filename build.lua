-- Puts the native library in place (lua/leash_native.so): the prebuilt library of this
-- release when one fits, otherwise `cargo build --release`. See lua/leash/build.lua.
--
-- lazy.nvim runs this file on install and update: it `loadfile`s it inside a coroutine
-- of its scheduler, with Neovim's cwd, before the plugin is on 'runtimepath'. It also
-- runs as `nvim -l build.lua` (set LEASH_BUILD_FROM_SOURCE=1 to skip the download).
--
-- The modules are loaded from this checkout by path, not with `require`: under lazy.nvim
-- a `require('leash…')` would load the whole plugin (and its config) in the middle of
-- the build. The build modules are taken fresh (after an update they may have changed);
-- leash.native is kept when loaded, since it knows which library this session loaded.
local root = vim.fs.dirname(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p'))
local function load(name) return dofile(('%s/lua/%s.lua'):format(root, name:gsub('%.', '/'))) end
package.loaded['leash.native'] = package.loaded['leash.native'] or load('leash.native')
for _, name in ipairs({
  'leash.build.sha256',
  'leash.build.prebuilt',
  'leash.build.help',
  'leash.build.progress',
  'leash.build',
}) do
  package.loaded[name] = load(name)
end

local build = package.loaded['leash.build']
local function report(msg, level)
  if build.under_lazy() then
    coroutine.yield({ msg = msg, level = level })
  else
    print(msg)
  end
end

-- The tags behind `:help leash` before lazy.nvim loads the plugin (see lazy.lua).
local help_ok, help_err = package.loaded['leash.build.help'].write(root)
if not help_ok then report(help_err, vim.log.levels.WARN) end

local ok, msg = build.run({ root = root })
if not ok then error(msg, 0) end
report(msg, vim.log.levels.INFO)
