--- Running a program in a terminal window: the one path every `shell` item of the
--- scripts, Git, user-entry and terminal sources takes.
---
--- Programs are started from an argv list (`jobstart(argv, { term = true })`), never
--- from a command line: an argument from the model stays one argument, and no shell
--- sees it. The only item that hands a line to a shell is `term:run` (and a terminal
--- step), whose whole purpose that is; its reach is always `shell`
--- (|leash.sources.terminal|).
local M = {}

-- Module definition ==========================================================

---@class leash.TermOpts
---@field cwd? string working directory (must exist)
---@field position? 'below'|'tab' where the terminal opens (default 'below')
---@field on_exit? fun(code: integer, job: integer) called on the main loop when the program ends
---@field env? table<string, string> extra environment variables

---@class leash.TermJob
---@field job integer job id
---@field buf integer terminal buffer
---@field win integer window showing it

--- Start `argv` in a new terminal window.
---@param argv string[] program and arguments, each one argv element
---@param opts? leash.TermOpts
---@return leash.TermJob? job
---@return string? err
function M.open(argv, opts)
  opts = opts or {}
  local err = M.check_argv(argv)
  if err then return nil, err end
  if vim.fn.executable(argv[1]) ~= 1 then
    return nil, ('leash: %s is not installed (not found on PATH)'):format(argv[1])
  end
  if opts.cwd then
    local st = vim.uv.fs_stat(opts.cwd)
    if not (st and st.type == 'directory') then return nil, 'leash: no such directory: ' .. opts.cwd end
  end

  local buf = vim.api.nvim_create_buf(false, true)
  local win
  if opts.position == 'tab' then
    vim.api.nvim_cmd({ cmd = 'tabnew' }, {})
    local empty = vim.api.nvim_get_current_buf()
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
    if vim.api.nvim_buf_is_valid(empty) and empty ~= buf then pcall(vim.api.nvim_buf_delete, empty, {}) end
  else
    local height = math.max(8, math.floor(vim.o.lines * 0.3))
    win = vim.api.nvim_open_win(buf, true, { split = 'below', win = -1, height = height })
  end

  local job_opts = {
    cwd = opts.cwd,
    env = opts.env,
    on_exit = function(job, code)
      if opts.on_exit then opts.on_exit(code, job) end
    end,
  }
  local ok, job = pcall(function()
    return vim.api.nvim_buf_call(buf, function()
      if vim.fn.has('nvim-0.11') == 1 then
        job_opts.term = true
        return vim.fn.jobstart(argv, job_opts)
      end
      return vim.fn.termopen(argv, job_opts)
    end)
  end)
  if not ok or type(job) ~= 'number' or job <= 0 then
    pcall(vim.api.nvim_win_close, win, true)
    return nil, ('leash: could not start %s: %s'):format(argv[1], ok and tostring(job) or job)
  end
  vim.b[buf].leash_argv = argv
  return { job = job, buf = buf, win = win }
end

--- Why `argv` cannot be run, or nil.
---@param argv any
---@return string? err
function M.check_argv(argv)
  if type(argv) ~= 'table' or not vim.islist(argv) or #argv == 0 then
    return 'leash: a program needs a non-empty argv list'
  end
  for _, a in ipairs(argv) do
    if type(a) ~= 'string' then return 'leash: every argv element must be a string' end
    if a:find('%z') then return 'leash: an argument contains a NUL byte' end
  end
  if argv[1] == '' then return 'leash: empty program name' end
end

--- The user's shell as an argv list ('shell' may carry flags, e.g. "bash -l").
---@return string[]
function M.shell_argv()
  local sh = vim.o.shell
  if vim.fn.executable(sh) == 1 then return { sh } end
  return vim.split(vim.trim(sh), '%s+')
end

return M
