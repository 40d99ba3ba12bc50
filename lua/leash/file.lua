--- Reading a whole file: the one way leash's modules do it (sources reading Neovim's
--- runtime files, the guard reading its program and log, the catalog its cache).
local M = {}

--- The bytes of the file at `path`, or nil when it cannot be opened or read.
---@param path string
---@return string?
function M.read(path)
  local f = io.open(path, 'rb')
  if not f then return nil end
  local text = f:read('*a')
  f:close()
  return text
end

return M
