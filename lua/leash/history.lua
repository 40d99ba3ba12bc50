--- The requests of `:Do`, kept across restarts: `stdpath('state')/leash/history`, one
--- JSON string a line, newest first, at most |M.max| of them, written with mode 0600.
--- `:Do <Tab>` and the `:Do` prompt complete from it. A request that holds something
--- that looks like a key (the configured provider's key, or a long token such as
--- `sk-…`) is not kept.
---
--- Read when first needed (a completion, a `:Do`), never at startup; re-read when
--- another Neovim wrote it, and merged on each write, so two sessions keep both.
local M = {}
local H = {}

-- Module definition ==========================================================

--- How many requests are kept.
M.max = 100

--- The history file.
---@return string
function M.path() return vim.fs.joinpath(vim.fn.stdpath('state'), 'leash', 'history') end

--- The requests, newest first, each once.
---@return string[]
function M.list()
  H.load()
  return H.items
end

--- Keep `request` as the newest. Nothing is kept when it looks like it holds a key.
---@param request string
---@return boolean kept
function M.add(request)
  request = vim.trim(request or '')
  if request == '' or request:find('[%z\1-\31]') or H.holds_key(request) then return false end
  H.load()
  local items = { request }
  for _, r in ipairs(H.items) do
    if r ~= request and #items < M.max then items[#items + 1] = r end
  end
  H.items = items
  H.write(items)
  return true
end

--- Completion of a request from the history: the ones that start with what was typed,
--- newest first, each completing the word being typed to the end of the request.
---@param typed string the request so far
---@param arglead string the word being typed (the end of `typed`)
---@return string[]
function M.complete(typed, arglead)
  local before = typed:sub(1, #typed - #arglead)
  local out = {}
  for _, r in ipairs(M.list()) do
    if vim.startswith(r, typed) and r ~= typed then out[#out + 1] = r:sub(#before + 1) end
  end
  return out
end

-- Helper data ================================================================

---@type string[]
H.items = {}

-- The file's modification time when it was last read or written (nil: not yet read).
H.mtime = nil

-- Helper functionality =======================================================

function H.stamp(path)
  local st = vim.uv.fs_stat(path)
  return st and (st.mtime.sec * 1e9 + st.mtime.nsec) or 0
end

--- Read the file when it changed since this session last saw it.
function H.load()
  local path = M.path()
  local stamp = H.stamp(path)
  if H.mtime == stamp then return end
  H.mtime = stamp
  local items = {}
  local ok, lines = pcall(vim.fn.readfile, path)
  for _, line in ipairs(ok and lines or {}) do
    local okd, r = pcall(vim.json.decode, line)
    if okd and type(r) == 'string' and r ~= '' and #items < M.max and not vim.tbl_contains(items, r) then
      items[#items + 1] = r
    end
  end
  H.items = items
end

--- Write `items` whole: to a file beside it (mode 0600), then renamed over it.
function H.write(items)
  local path = M.path()
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  local lines = vim.tbl_map(function(r) return vim.json.encode(r) end, items)
  local tmp = ('%s.%d.tmp'):format(path, vim.uv.os_getpid())
  local fd = vim.uv.fs_open(tmp, 'w', tonumber('600', 8))
  if not fd then return end
  vim.uv.fs_write(fd, table.concat(lines, '\n') .. '\n')
  vim.uv.fs_close(fd)
  if not vim.uv.fs_rename(tmp, path) then return os.remove(tmp) end
  H.mtime = H.stamp(path)
end

--- Whether `request` holds what looks like a key: the value of the configured provider's
--- key variable (or of the usual ones), or a long token of letters and digits.
function H.holds_key(request)
  for _, name in ipairs(H.key_vars()) do
    local value = vim.env[name]
    if type(value) == 'string' and #value >= 8 and request:find(value, 1, true) then return true end
  end
  for word in request:gmatch('[%w%-_%.]+') do
    if word:find('^sk%-') or word:find('^gh[pousr]_') or word:find('^xox[abpr]%-') then return true end
    -- Long, with letters and digits mixed: a token, not a word or a number.
    if #word >= 32 and word:find('%a') and word:find('%d') then return true end
  end
  return false
end

function H.key_vars()
  -- The dialects' default key variables, as the core names them.
  local lists = require('leash.policy').lists()
  local names = vim.list_extend({}, lists and lists.default_key_envs or {})
  local ok, cfg = pcall(function() return require('leash.config').options end)
  if ok and type(cfg) == 'table' and type(cfg.providers) == 'table' then
    for _, p in pairs(cfg.providers) do
      if type(p) == 'table' and type(p.api_key_env) == 'string' then names[#names + 1] = p.api_key_env end
    end
  end
  return names
end

return M
