--- What leash reads of lazy.nvim's state when lazy.nvim is in use: its plugin records
--- and its key and command handlers. Read, never required: leash does not load
--- lazy.nvim. The build (whether a checkout follows releases) and the sources (a
--- plugin's name, help and stand-ins) both read it here.
local M = {}

-- Module definition ==========================================================

--- lazy.nvim's plugin records by name (`dir`, `_.loaded`…), or an empty table.
---@return table<string, table>
function M.plugins()
  local config = package.loaded['lazy.core.config']
  return type(config) == 'table' and type(config.plugins) == 'table' and config.plugins or {}
end

--- One of lazy.nvim's handlers (`keys`, `cmd`…): what it set up for plugins not yet
--- loaded, or nil.
---@param kind string
---@return table?
function M.handler(kind)
  local h = package.loaded['lazy.core.handler']
  return type(h) == 'table' and type(h.handlers) == 'table' and h.handlers[kind] or nil
end

return M
