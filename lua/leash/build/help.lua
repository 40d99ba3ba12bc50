--- `:help leash` before lazy.nvim has loaded the plugin.
---
--- lazy.nvim puts a lazy-loaded plugin on 'runtimepath' only when it loads it, so its
--- `doc/tags` is not searched before the first `:Do`. Putting the plugin root on
--- 'runtimepath' early would expose `lua/` too, and a `require('leash')` would then skip
--- lazy.nvim's loading (and the user's `opts`). Instead the build writes a directory
--- that holds nothing but a tags file pointing into `doc/`, and leash's `lazy.lua`
--- appends that directory to 'runtimepath' at startup.
local M = {}

--- Directory (a 'runtimepath' entry) holding `doc/tags` for the plugin at `root`.
---@param root string
---@return string
function M.dir(root) return root .. '/.help' end

--- Write `<root>/.help/doc/tags` from the help files in `<root>/doc`.
---@param root string
---@return boolean ok
---@return string? err
function M.write(root)
  local doc = root .. '/doc'
  local ok, err = pcall(vim.cmd.helptags, { args = { doc }, mods = { silent = true } })
  if not ok then return false, 'leash: helptags failed: ' .. tostring(err) end
  local lines = {}
  for line in io.lines(doc .. '/tags') do
    -- tag <Tab> file <Tab> command: the file is relative to the tags file's directory.
    local tag, file, rest = line:match('^([^\t]+)\t([^\t]+)\t(.*)$')
    if tag then lines[#lines + 1] = ('%s\t../../doc/%s\t%s'):format(tag, file, rest) end
  end
  local dir = M.dir(root) .. '/doc'
  vim.fn.mkdir(dir, 'p')
  if vim.fn.writefile(lines, dir .. '/tags') ~= 0 then return false, 'leash: cannot write ' .. dir .. '/tags' end
  return true
end

return M
