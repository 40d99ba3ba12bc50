--- The log of requests and plans: `stdpath('log')/leash.log`, one JSON line per record,
--- mode 0600, never a key. The core writes a line per request (the exchange with the
--- model); the planner, the executor and the process guard append what became of it.
--- Its own module so that what runs a plan does not depend on what makes one.
local M = {}

-- Module definition ==========================================================

--- The log file.
---@return string
function M.path() return vim.fs.joinpath(vim.fn.stdpath('log'), 'leash.log') end

--- Append one line (mode 0600; the key is never in it). Nothing when `log = false`.
---@param line string one JSON object
function M.append(line)
  if not require('leash.config').get().log then return end
  local path = M.path()
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  local fd = vim.uv.fs_open(path, 'a', tonumber('600', 8))
  if not fd then return end
  vim.uv.fs_write(fd, line .. '\n')
  vim.uv.fs_close(fd)
end

--- Append what became of a request: `{"outcome": {"request", "status", "steps",
--- "error"?, "time_ms"}}`. `status`: `ran` (`steps` ran), `failed` (`steps` ran before
--- the one that failed, or planning failed), `cancelled`, `nothing to run`, `shown`
--- (`:Do!`), `edited` (the window's `e`), `cancelled while planning` or `changed`
--- (`:Leash last` found that something the plan names changed; `error` says what) or
--- `undone` (`:Leash undo` took it back; `error` says what it restored).
---@param request? string
---@param status string
---@param steps integer
---@param err? string
function M.outcome(request, status, steps, err)
  local sec, usec = vim.uv.gettimeofday()
  M.append(vim.json.encode({
    outcome = {
      request = request,
      status = status,
      steps = steps,
      error = err and require('leash.text').visible(err) or nil,
      -- Milliseconds since the Unix epoch, as the core's lines have.
      time_ms = sec * 1000 + math.floor(usec / 1000),
    },
  }))
end

--- `:Leash log`: the log as a person reads it, one entry per request (|leash.ui.log_view|).
--- The log holds model answers, so it is shown in a scratch buffer with 'modeline' off,
--- set before the text goes in: a modeline inside an answer must never set an option
--- (editing the file itself would apply it on read).
function M.open() require('leash.ui.log_view').open(M.path()) end

return M
