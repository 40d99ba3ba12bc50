-- `:checkhealth leash` before lazy.nvim has loaded leash.
--
-- `:checkhealth` finds a check on 'runtimepath' only, and lazy.nvim puts a lazy-loaded
-- plugin there when it loads it. leash's `lazy.lua` appends this directory (nothing
-- but this file) at startup, so the check is found; running it loads leash through
-- lazy.nvim first (the user's `opts` reach setup(), so the check sees their config and
-- its errors) and then runs the real check of this checkout. Once leash is loaded its
-- own `lua/` comes first on 'runtimepath' and this file is not used.
local this = vim.fs.normalize(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p'))
local root = vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(this))))
local ok, lazy_config = pcall(require, 'lazy.core.config')
if ok and type(lazy_config.plugins) == 'table' then
  for name, plugin in pairs(lazy_config.plugins) do
    if plugin.dir and vim.fs.normalize(plugin.dir) == root and not (plugin._ and plugin._.loaded) then
      require('lazy').load({ plugins = { name } })
    end
  end
end
return dofile(root .. '/lua/leash/health.lua')
