--- A read-only scratch buffer in a split, reused by name: the text leash shows (`:Leash
--- log`, `:Leash rank`) is not the user's, so no modeline in it may set an option.
local M = {}

--- Show `lines` in the scratch buffer `name` (created once, then reused) and focus it.
---@param name string buffer name, e.g. "leash://log"
---@param lines string[]
---@return integer buf
function M.show(name, lines)
  local buf = vim.fn.bufnr(name)
  if buf == -1 or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].bufhidden = 'hide'
    vim.bo[buf].swapfile = false
  end
  vim.bo[buf].modeline = false -- before the text goes in, and again on reuse
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.api.nvim_open_win(buf, true, { split = 'below', win = 0 })
  else
    vim.api.nvim_set_current_win(win)
  end
  return buf
end

return M
