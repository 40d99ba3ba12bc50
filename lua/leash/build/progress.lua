--- cargo's progress, for the build's one status line: read from cargo's stderr, where
--- `CARGO_TERM_PROGRESS_WHEN=always` makes cargo draw its progress bar even into a pipe
--- (`    Building [=====>    ] 143/212: serde, tokio`, each drawing ended by `\r`),
--- and said as `Compiling 143/212 (serde, tokio) · 2 min 10 s`.
local M = {}
local H = {}

-- Module definition ==========================================================

--- The environment that makes cargo draw its bar into a pipe (with room for the names
--- of the crates being compiled).
M.env = { CARGO_TERM_PROGRESS_WHEN = 'always', CARGO_TERM_PROGRESS_WIDTH = '100' }

---@class leash.CargoEvent
---@field bar? { done: integer, total: integer, names: string } a drawing of the progress bar
---@field line? string a line of output (trailing spaces removed)

--- A reader of cargo's stderr: call it with each chunk as it arrives (and with nil at
--- the end); it returns the events completed by that chunk, in order.
---@return fun(data?: string): leash.CargoEvent[]
function M.reader()
  local partial = ''
  return function(data)
    local chunk = partial .. (data or '')
    partial = data and chunk:match('[^\r\n]*$') or ''
    local body = chunk:sub(1, #chunk - #partial)
    local events = {}
    for piece in body:gmatch('([^\r\n]*)[\r\n]') do
      events[#events + 1] = M.event(piece)
    end
    if data == nil and chunk ~= '' and not chunk:find('[\r\n]$') then
      events[#events + 1] = M.event(chunk:match('[^\r\n]*$'))
    end
    return vim.tbl_filter(function(e) return e.bar or e.line ~= '' end, events)
  end
end

--- One piece of output between `\r`/`\n`.
---@param piece string
---@return leash.CargoEvent
function M.event(piece)
  local done, total, names = piece:match('^%s*Building %[[^%]]*%]%s+(%d+)/(%d+):?%s*(.-)%s*$')
  if done then return { bar = { done = tonumber(done), total = tonumber(total), names = names } } end
  return { line = (piece:gsub('%s+$', '')) }
end

--- `Compiling 143/212 (serde, tokio) · 2 min 10 s (last build: 3 min 42 s)`
---@param bar { done: integer, total: integer, names: string }
---@param seconds number since cargo started
---@param usual? string what a build takes (|M.usual()|)
---@return string
function M.status(bar, seconds, usual)
  local names = bar.names ~= '' and (' (%s)'):format(bar.names) or ''
  local took = usual and (' (%s)'):format(usual) or ''
  return ('Compiling %d/%d%s · %s%s'):format(bar.done, bar.total, names, M.duration(seconds), took)
end

--- `45 s`, `2 min 10 s`, `1 h 3 min`.
---@param seconds number
---@return string
function M.duration(seconds)
  local s = math.floor(seconds + 0.5)
  if s < 60 then return s .. ' s' end
  if s < 3600 then return ('%d min %d s'):format(math.floor(s / 60), s % 60) end
  return ('%d h %d min'):format(math.floor(s / 3600), math.floor(s % 3600 / 60))
end

--- The line a build log ends with after cargo succeeded (|M.last_duration()| reads it).
---@param seconds number
---@return string
function M.finished_line(seconds) return ('cargo finished in %d s'):format(math.floor(seconds + 0.5)) end

--- How long the last successful cargo build took, from the build log it left.
---@param log_path string
---@return integer? seconds
function M.last_duration(log_path)
  local file = io.open(log_path, 'r')
  if not file then return nil end
  local seconds
  for line in file:lines() do
    seconds = tonumber(line:match('^cargo finished in (%d+) s$')) or seconds
  end
  file:close()
  return seconds
end

--- What a cargo build here usually takes: the last build's time when this checkout
--- built before, else the measured CPU time of a cold build spread over this machine's
--- cores (an estimate: a busy machine takes longer).
---@param last? integer seconds the last successful build took
---@param cores? integer default: vim.uv.available_parallelism()
---@return string
function M.expected(last, cores)
  if last then return ('the last build here took %s'):format(M.duration(last)) end
  local minutes
  minutes, cores = H.estimate(cores)
  return ('a first build usually takes %d min or more on %d core%s (about %d s of CPU time)'):format(
    minutes,
    cores,
    cores == 1 and '' or 's',
    M.cold_cpu_seconds
  )
end

--- |M.expected()| in a few words, for the status line: `last build: 3 min 42 s`,
--- `a first build: 4 min or more`.
---@param last? integer
---@param cores? integer
---@return string
function M.usual(last, cores)
  if last then return 'last build: ' .. M.duration(last) end
  return ('a first build: %d min or more'):format((H.estimate(cores)))
end

--- CPU time of a cold `cargo build --release` (crates already downloaded), measured
--- with scripts/bench-install (see the README).
M.cold_cpu_seconds = 460

-- Helper functionality =======================================================

--- Minutes of a cold build on `cores` cores (default: this machine's), and the cores.
---@return integer minutes
---@return integer cores
function H.estimate(cores)
  cores = cores or (vim.uv.available_parallelism and vim.uv.available_parallelism()) or 1
  return math.max(1, math.floor(M.cold_cpu_seconds / cores / 60 + 0.5)), cores
end

return M
