-- leash's own part of its lazy.nvim spec: lazy.nvim merges this file (a "package
-- spec") with the user's spec for the plugin named leash.nvim; what the user sets wins.
-- `optional`: when the user's plugin has another name (a local `dir`, a renamed fork),
-- this spec names no plugin of theirs and is dropped, instead of lazy.nvim trying to
-- install a second plugin called leash.nvim.
return {
  'leash.nvim',
  optional = true,
  init = function(plugin)
    -- `:help leash` before the plugin is loaded (lua/leash/build/help.lua says how).
    local dir = plugin.dir .. '/.help'
    if vim.uv.fs_stat(dir .. '/doc/tags') then vim.opt.rtp:append(dir) end
    -- `:checkhealth leash` before the plugin is loaded (before-load/lua/leash/health.lua).
    vim.opt.rtp:append(plugin.dir .. '/before-load')
  end,
  -- setup() never raises for a bad config: it says it in one notification (lazy.nvim's
  -- handler of an error would append a stack trace of leash's own frames).
  config = function(_, opts) require('leash').setup(opts) end,
}
