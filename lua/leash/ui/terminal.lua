--- The terminal state the plan window depends on.
---
--- With control bytes in 'isprint', Neovim draws a file's ESC sequences raw: they can
--- set the terminal's scroll region or origin mode so that a window is drawn where
--- nobody sees it, while Neovim believes it is on screen. Leash keeps that from happening
--- while a plan runs (a step that lets control bytes through is undone, see
--- |leash.execute|) and while the plan window is shown ('isprint' is made sane for as
--- long as it is open). Where raw output may already have happened, the window resets
--- the terminal through |nvim_ui_send()| (Neovim 0.12+) and redraws; where that function
--- is missing nothing can tell what the terminal shows, so the window does not arm.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Neovim's default 'isprint'.
M.default_isprint = '@,161-255'

--- Whether 'isprint' now lets control bytes (0x01–0x1f, 0x7f, 0x80–0x9f) be drawn raw.
---@return boolean
function M.raw_controls()
  for _, b in ipairs(H.control_bytes) do
    local c = string.char(b)
    if vim.fn.strtrans(c) == c then return true end
  end
  return false
end

--- Make the terminal safe for the plan window. Returns a function that puts the user's
--- 'isprint' back (unless something else changed it meanwhile), and whether the window
--- can trust what the terminal shows.
---@return fun() restore
---@return boolean trusted
function M.prepare()
  if not M.raw_controls() then
    return function() end, true
  end
  local user = vim.o.isprint
  vim.o.isprint = M.default_isprint
  local sane = vim.o.isprint
  local function restore()
    if vim.o.isprint == sane then vim.o.isprint = user end
  end
  -- Scroll region, origin mode and autowrap back to their defaults, then every cell
  -- drawn again.
  local reset = vim.api.nvim_ui_send and pcall(vim.api.nvim_ui_send, '\27[r\27[?6l\27[?7h')
  pcall(vim.cmd, 'redraw!')
  return restore, reset == true
end

-- Helper data ================================================================

H.control_bytes = {}
for b = 1, 31 do
  H.control_bytes[#H.control_bytes + 1] = b
end
for b = 127, 159 do
  H.control_bytes[#H.control_bytes + 1] = b
end

return M
