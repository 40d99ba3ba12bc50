--- Runs builtin Ex command items (`cmd:<fullname>`) through |nvim_cmd()| with the
--- catalog's exact name, the arguments as a list and `magic = { file = false, bar = false }`.
--- Bang, mods, range, count and register never come from the model (a command that takes a
--- range gets the user's, `:'<,'>Do`, and only as the plan window showed it), and model
--- text never reaches `vim.cmd`, `nvim_command`, `nvim_exec2`, `:execute` or `nvim_parse_cmd`.
---
--- Before it runs, the core's argument filter is applied again (|leash.policy|), and a step below
--- `shell` may neither name nor write a file that an autocommand reads or writes in
--- Neovim's place (|leash.name_handlers|). While a safe, edit or write step runs, the
--- handlers that replace reading a file (`term://`, netrw's URLs, zip) are ignored.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Handler for the `cmd` prefix.
---@param entry table catalog entry
---@param step table validated step (`args` a list, `reach`)
---@param ctx? leash.ExecContext
---@return boolean? ok
---@return string? err
function M.handler(entry, step, ctx)
  local name = entry.id:sub(5)
  if name == '' then return nil, 'not a command name' end
  local policy = require('leash.policy')
  local lists, lerr = policy.lists()
  if not lists then return nil, lerr end
  if lists.withheld[name] then return nil, ':' .. name .. ' is withheld from the catalog' end
  if vim.fn.exists(':' .. name) ~= 2 then return nil, ':' .. name .. ' does not exist' end
  local below_shell = H.rank[step.reach] == nil or H.rank[step.reach] < H.rank.shell
  local handlers = below_shell and require('leash.name_handlers').list() or nil
  local why = policy.check_command_args(name, step.reach, step.args, handlers)
  if why then return nil, why end
  if handlers then
    why = H.writes_handled_buffer(name, handlers)
    if why then return nil, why end
  end
  local range, rerr = require('leash.actions.range').for_step(step, entry, ctx)
  if rerr then return nil, rerr end
  local function run()
    vim.api.nvim_cmd(
      { cmd = name, args = step.args, range = range, magic = { file = false, bar = false } },
      { output = false }
    )
  end
  if below_shell and (H.rank[step.reach] or 0) <= H.rank.write then return H.without_read_handlers(run) end
  run()
  return true
end

-- Helper data ================================================================

H.rank = require('leash.policy').rank

-- Autocommand events whose handlers replace reading a file (term://, netrw, zip, tar).
H.read_handler_events = { 'BufReadCmd', 'FileReadCmd', 'SourceCmd' }

-- Commands that write the current buffer without a file argument, and those that write
-- every changed buffer.
H.writes_current = {
  write = true,
  update = true,
  xit = true,
  exit = true,
  wq = true,
  wnext = true,
  wNext = true,
  wprevious = true,
}
H.writes_all = { wall = true, wqall = true, xall = true }

-- Helper functionality =======================================================

--- Why writing the buffers `:name` writes would run a handler, or nil. A write to a
--- name given as an argument is checked by the filter; this covers the buffer's own name
--- (`:write` in a `notes.gz` buffer runs gzip, and gzip.vim renames the file first).
function H.writes_handled_buffer(name, handlers)
  local bufs = {}
  if H.writes_current[name] then
    bufs = { vim.api.nvim_get_current_buf() }
  elseif H.writes_all[name] then
    bufs = vim.tbl_filter(function(b) return vim.bo[b].modified end, vim.api.nvim_list_bufs())
  end
  local nh = require('leash.name_handlers')
  handlers = vim.tbl_filter(nh.on_write, handlers)
  for _, b in ipairs(bufs) do
    local file = vim.api.nvim_buf_get_name(b)
    local h = file ~= '' and nh.match(file, handlers)
    if h then
      return ('it would write “%s”, which %s writes (that can run a program); the plan did not show this step as [shell]'):format(
        require('leash.text').visible(vim.fn.fnamemodify(file, ':~:.')),
        nh.describe(h)
      )
    end
  end
end

--- Run `fn` (a step of reach safe, edit or write) so that no buffer it loads can reach
--- further than its label: the argument filter sees only the step's own arguments, but
--- the names a step opens may also come from text (a quickfix list made by :cbuffer or
--- :cfile, a tags file, the file name under the cursor for :wincmd f, a list of files).
--- A name like `term://cmd` is opened by a BufReadCmd handler that starts `cmd`; netrw
--- and the zip/tar plugins claim `scp://`, `https://`, `zipfile:`… the same way. While
--- the step runs those handlers are ignored, and a buffer with such a name that the
--- step created is wiped (so no later jump loads it) and the step fails. (The process
--- guard refuses any program they would start anyway; this gives the precise reason.)
---@param fn fun()
---@return boolean? ok
---@return string? err
function H.without_read_handlers(fn)
  local before = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    before[b] = true
  end
  local saved = vim.o.eventignore
  local ignore = table.concat(H.read_handler_events, ',')
  vim.o.eventignore = saved == '' and ignore or (saved .. ',' .. ignore)
  local ok, err = pcall(fn)
  vim.o.eventignore = saved
  local opened
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local name = not before[b] and vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_name(b) or ''
    if H.url_name(name) then
      opened = opened or name
      pcall(vim.api.nvim_buf_delete, b, { force = true })
    end
  end
  if opened then
    return nil,
      ('it opened “%s”, a name a handler would run or fetch; leash does not load it'):format(
        require('leash.text').visible(opened)
      )
  end
  if not ok then return nil, err end
  return true
end

--- Whether a buffer name is URL-like (`term://…`, `scp://…`, `zipfile:…`); a one-letter
--- scheme is a Windows drive.
function H.url_name(name) return name:find('^%a[%w+.-]+:') ~= nil end

return M
