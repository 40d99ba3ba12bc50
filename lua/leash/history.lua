--- The requests of `:Do`, kept across restarts: `stdpath('state')/leash/history`, one
--- JSON string a line, newest first, at most |M.max| of them, written with mode 0600.
--- `:Do <Tab>` and the `:Do` prompt complete from it. The last plan is kept beside it
--- (|M.keep_plan()|), for `:Leash last` after a restart. A request that holds something
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

--- The last plan, kept for `:Leash last` across restarts (mode 0600, beside the requests).
---@return string
function M.plan_path() return vim.fs.joinpath(vim.fn.stdpath('state'), 'leash', 'last-plan.json') end

--- Keep `last` (`{ request, plan, entries, range, opts }`, see |leash.recheck|) as the
--- last plan: its request, the validated plan as it was shown, the catalog entries its
--- items name (what |leash.recheck| compares with the catalog of then), its lines with
--- the file they are in, and whether it was plan only. A plan whose request or steps look
--- like they hold a key is not kept, and no older plan stays in its place.
---@param last table
---@return boolean kept
function M.keep_plan(last)
  local ok, text = pcall(H.plan_json, last)
  if not ok or not text or H.holds_key(text) then
    os.remove(M.plan_path())
    return false
  end
  return H.write_file(M.plan_path(), text .. '\n')
end

--- The plan |M.keep_plan()| kept, or nil: its lines name the file they were in
--- (`range.file`); the caller finds the buffer.
---@return table? last `{ request, plan, entries, range?, opts }`
function M.kept_plan()
  local f = io.open(M.plan_path(), 'r')
  if not f then return nil end
  local ok, t = pcall(vim.json.decode, f:read('*a'))
  f:close()
  if not (ok and type(t) == 'table' and type(t.request) == 'string' and type(t.plan) == 'table') then return nil end
  if type(t.plan.steps) ~= 'table' or type(t.entries) ~= 'table' then return nil end
  local r = t.range
  local range = nil
  local lines = type(r) == 'table' and type(r.lines) == 'table' and r.lines or {}
  if tonumber(lines[1]) and tonumber(lines[2]) and type(r.file) == 'string' then
    range = { tonumber(lines[1]), tonumber(lines[2]), file = r.file }
  end
  return {
    request = t.request,
    plan = t.plan,
    entries = t.entries,
    range = range,
    opts = { plan_only = t.plan_only == true },
  }
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

--- Write `items` whole (see |H.write_file()|).
function H.write(items)
  local lines = vim.tbl_map(function(r) return vim.json.encode(r) end, items)
  if H.write_file(M.path(), table.concat(lines, '\n') .. '\n') then H.mtime = H.stamp(M.path()) end
end

--- Write `text` to a file beside `path` (mode 0600), then rename it over `path`.
---@return boolean written
function H.write_file(path, text)
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  local tmp = ('%s.%d.tmp'):format(path, vim.uv.os_getpid())
  local fd = vim.uv.fs_open(tmp, 'w', tonumber('600', 8))
  if not fd then return false end
  vim.uv.fs_write(fd, text)
  vim.uv.fs_close(fd)
  if not vim.uv.fs_rename(tmp, path) then
    os.remove(tmp)
    return false
  end
  return true
end

--- The JSON of a kept plan (see |M.keep_plan()|); raises on what JSON cannot hold.
function H.plan_json(last)
  local recheck = require('leash.recheck')
  local named = {}
  for _, s in ipairs(last.plan.steps) do
    if type(s) == 'table' and type(s.id) == 'string' then named[s.id] = true end
  end
  local entries = {}
  for _, e in ipairs(last.entries or {}) do
    if type(e) == 'table' and named[e.id] then entries[#entries + 1] = recheck.plain(e) end
  end
  local range = nil
  if last.range then
    local buf = last.range.buf
    local file = buf and vim.api.nvim_buf_is_valid(buf) and vim.api.nvim_buf_get_name(buf) or ''
    -- Lines of a buffer without a file cannot be found again after a restart.
    if file == '' then return nil end
    range = { lines = { last.range[1], last.range[2] }, file = file }
  end
  return vim.json.encode({
    request = last.request,
    plan = recheck.plain(last.plan),
    entries = entries,
    range = range,
    plan_only = last.opts and last.opts.plan_only == true,
  })
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
