--- Source: the terminal, id `term:<name>`: its catalog entries and how a step of one
--- runs, and how a terminal step runs. `term:run` hands one shell command line to a
--- terminal (the core makes it `shell` whatever is declared); `term:below` and
--- `term:tab` open the user's shell. All three start a shell, so all three are `shell`:
--- a plan with any of them is always shown first. Programs of the other sources start
--- through |leash.sources.shared.term|.
local M = {}
local H = {}

-- Module definition ==========================================================

-- Its name and the id prefix of its items (|leash.Source|).
M.name, M.prefix = 'terminal', 'term'

--- The terminal items (always offered), made once: the same list every time. `term:run`
--- is the core's item, the same one Helix offers; without the native library it is left
--- out (no catalog is built then) and the list is made again on the next call.
---@return table[]
function M.entries()
  if H.items then return H.items end
  local entries = {}
  local native = require('leash.native').load()
  if native and native.terminal_entry then entries[1] = native.terminal_entry() end
  vim.list_extend(entries, {
    {
      id = 'term:below',
      kind = 'terminal',
      title = 'open a terminal below',
      aliases = { 'terminal split', 'open shell', 'new terminal' },
      args = 'none',
      reach = 'shell',
      description = 'Opens an interactive shell in a horizontal split below the current window.',
    },
    {
      id = 'term:tab',
      kind = 'terminal',
      title = 'open a terminal in a new tab',
      aliases = { 'terminal tab', 'shell in new tab' },
      args = 'none',
      reach = 'shell',
      description = 'Opens an interactive shell in a new tab page.',
    },
  })
  if entries[1].id == 'term:run' then H.items = entries end
  return entries
end

--- Run a step of a `term:` item: `term:run` (the arguments are the command line) and
--- `term:below`/`term:tab` (the user's shell).
---@param entry table catalog entry
---@param step? table validated step
---@return boolean ok
---@return string? err
function M.run(entry, step)
  if entry.id == 'term:run' then
    local args = step and type(step.args) == 'table' and step.args or {}
    return M.run_line(table.concat(args, ' '))
  end
  local position = H.positions[entry.id]
  if not position then return false, ('leash: unknown terminal item %s'):format(entry.id) end
  local term = require('leash.sources.shared.term')
  local job, err = term.open(term.shell_argv(), { position = position, cwd = vim.uv.cwd() })
  if not job then return false, err end
  return true
end

--- Open a terminal split below and run `command` through 'shell' exactly as shown (a
--- terminal step, or `term:run`); focus returns to the window the plan was made in.
---@param command string
---@return boolean ok
---@return string? err
function M.run_line(command)
  if type(command) ~= 'string' or command == '' then return false, 'no command' end
  local prev = vim.api.nvim_get_current_win()
  local buf = vim.api.nvim_create_buf(true, false)
  vim.bo[buf].modeline = false -- the program's output must not set options
  local win = vim.api.nvim_open_win(buf, true, { split = 'below', win = -1 })
  local ok, job
  if vim.fn.has('nvim-0.11') == 1 then
    ok, job = pcall(vim.fn.jobstart, command, { term = true })
  else
    ok, job = pcall(vim.fn.termopen, command)
  end
  if not ok or type(job) ~= 'number' or job <= 0 then
    pcall(vim.api.nvim_win_close, win, true)
    return false, 'could not start the terminal: ' .. (ok and ('job id ' .. tostring(job)) or tostring(job))
  end
  if vim.api.nvim_win_is_valid(prev) then vim.api.nvim_set_current_win(prev) end
  return true
end

-- Helper data ================================================================

H.positions = { ['term:below'] = 'below', ['term:tab'] = 'tab' }

return M
