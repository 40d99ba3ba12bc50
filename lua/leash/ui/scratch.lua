--- leash's read-only scratch buffers (`:Leash log`, `:Leash rank`): each has a name
--- (`leash://log`), a filetype (`leash-log`, `leash-rank`) and `q` to close it, and they
--- all open the same way: in the window that already shows one of them, else in a split
--- below. The text leash shows there is not the user's, so no modeline in it may set an
--- option ('modeline' is off before any text goes in).
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.ScratchOpts
---@field filetype? string default: `leash-` and the name after `leash://`
---@field keys? table<string, fun()> more buffer-local Normal-mode keys

--- Show `lines` in the scratch buffer `name` (created once, then reused) and focus it.
---@param name string buffer name, e.g. "leash://log"
---@param lines string[]
---@param opts? leash.ScratchOpts
---@return integer buf
function M.show(name, lines, opts)
  opts = opts or {}
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
  vim.bo[buf].modified = false
  H.view_options(H.focus(buf))
  local filetype = opts.filetype or ('leash-' .. (name:match('^leash://([%w-]+)') or 'scratch'))
  if vim.bo[buf].filetype ~= filetype then vim.bo[buf].filetype = filetype end
  H.map(buf, 'q', M.close, 'leash: close')
  for lhs, fn in pairs(opts.keys or {}) do
    H.map(buf, lhs, fn)
  end
  return buf
end

--- Close the current scratch window; where it is the last window, show the buffer
--- before it instead (quitting Neovim is never what `q` means here).
function M.close()
  local buf = vim.api.nvim_get_current_buf()
  if
    #vim.tbl_filter(function(w) return vim.api.nvim_win_get_config(w).relative == '' end, vim.api.nvim_list_wins())
    > 1
  then
    return vim.cmd.close()
  end
  local alt = vim.fn.bufnr('#')
  if alt > 0 and alt ~= buf and vim.api.nvim_buf_is_valid(alt) and not H.is_scratch(alt) then
    vim.api.nvim_set_current_buf(alt)
  else
    vim.cmd.enew()
  end
end

-- Helper functionality =======================================================

--- Whether `buf` is one of leash's scratch buffers.
function H.is_scratch(buf) return vim.startswith(vim.api.nvim_buf_get_name(buf), 'leash://') end

--- The window that shows `buf`, or one that shows another scratch buffer of leash's
--- (it is reused), or a new split below the current window.
function H.focus(buf)
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      if vim.api.nvim_win_get_config(w).relative == '' and H.is_scratch(vim.api.nvim_win_get_buf(w)) then
        win = w
        break
      end
    end
  end
  if win == -1 then
    local height = math.max(5, math.floor(vim.o.lines * 0.5))
    win = vim.api.nvim_open_win(buf, true, { split = 'below', win = 0, height = height })
  else
    vim.api.nvim_set_current_win(win)
    vim.api.nvim_win_set_buf(win, buf)
  end
  return win
end

--- A view, not a file: no line numbers, signs or fold column taken over from the window
--- it split from (as |help-buffer-options| for a help window), in this window only.
function H.view_options(win)
  local wo = vim.wo[win][0]
  wo.number, wo.relativenumber, wo.signcolumn, wo.foldcolumn = false, false, 'no', '0'
  wo.list, wo.spell = false, false
end

function H.map(buf, lhs, fn, desc) vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, desc = desc }) end

return M
