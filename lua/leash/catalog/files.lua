--- Catalog source: the Neovim-only file item `file:reveal`. The other file items (new,
--- rename, copy_path, delete, open_folder) come from the core with the scripts and Git
--- items (lua/leash/catalog/core_sources.lua, src/sources/files.rs).
---
--- Reach: `file:reveal` drives the file explorer plugin the user installed and is `safe`.
local M = {}

-- Module definition ==========================================================

--- `file:reveal`, only when a known file explorer is installed.
---@return table[]
function M.entries()
  local explorer = M.explorer()
  if not explorer then return {} end
  return {
    {
      id = 'file:reveal',
      kind = 'file',
      title = ('reveal the current file in the file explorer (%s)'):format(explorer),
      aliases = { 'show file in tree', 'locate file in explorer', 'find file in sidebar' },
      args = 'none',
      reach = 'safe',
      description = 'Opens the file explorer with the current file selected.',
    },
  }
end

--- The installed file explorer, preferring the one the user most likely chose.
---@return 'oil'|'nvim-tree'|'neo-tree'|'netrw'|nil
function M.explorer()
  if package.loaded['oil'] or vim.fn.exists(':Oil') == 2 then return 'oil' end
  if package.loaded['nvim-tree'] or vim.fn.exists(':NvimTreeFindFile') == 2 then return 'nvim-tree' end
  if package.loaded['neo-tree'] or vim.fn.exists(':Neotree') == 2 then return 'neo-tree' end
  if vim.fn.exists(':Explore') == 2 then return 'netrw' end
  return nil
end

return M
