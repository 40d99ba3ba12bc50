-- The test's eyes inside the real config (not part of the user's config): records every
-- notification (snacks' notifier shows them in floats, not in :messages), and answers
-- tests/e2e/realconfig.sh over RPC (`nvim --server SOCK --remote-expr`):
--   v:lua.Realcfg.ready(NAMES)  "ok" once the current buffer has the language servers
--                               NAMES (comma-separated) attached, else what is missing
--   v:lua.Realcfg.setup(CASE)   puts the cursor where the case needs it
--   v:lua.Realcfg.check(CASE, FINAL)  "ok"; "wait: WHY" while the case's own check
--                               fails and nothing went wrong yet (FINAL 0); else what
--                               is wrong: the case's check, the errors any plugin
--                               showed and the plugins that died
--   v:lua.Realcfg.rank(REQ, N)  the top N ids of leash's shortlist for REQ, as JSON
--   v:lua.Realcfg.report()      the state, for a failure's printout
-- Environment: REALCFG_PROJECT (the project), REALCFG_EXPECT (the formatted app.py).
local R = {}
_G.Realcfg = R

R.notes = {}

local function wrap_notify()
  local inner = vim.notify
  if inner == R.notify then return end
  R.inner = inner
  R.notify = function(msg, level, opts)
    R.notes[#R.notes + 1] = tostring(msg)
    return R.inner(msg, level, opts)
  end
  vim.notify = R.notify
end
wrap_notify()
-- A notifier may install itself later (snacks on VimEnter, or when first used).
vim.api.nvim_create_autocmd({ 'VimEnter', 'UIEnter', 'User' }, {
  callback = function() vim.schedule(wrap_notify) end,
})
vim.api.nvim_create_autocmd('VimEnter', { callback = function() vim.defer_fn(wrap_notify, 500) end })

local project = os.getenv('REALCFG_PROJECT') or vim.fn.getcwd()

-- What a plugin or leash shows when something went wrong.
local bad_patterns = {
  'Failed to source',
  'Error executing',
  'Error detected while processing',
  'stack traceback',
  'E5108',
  'E5113',
  'Formatter failed',
  'clipboard: No provider',
  'tried to start a program',
  'refused',
  'leash: step',
  'Failed to run',
  'failed to start',
  'spawn',
}

local function messages() return vim.api.nvim_exec2('messages', { output = true }).output end

local function path_of(buf) return vim.fs.normalize(vim.api.nvim_buf_get_name(buf)) end

local function buf_named(rel)
  local want = vim.fs.normalize(project .. '/' .. rel)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if path_of(b) == want then return b end
  end
end

local function lines(buf) return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') end

local function read(path)
  local f = io.open(path, 'r')
  if not f then return nil end
  local s = f:read('*a')
  f:close()
  return s
end

local function client_names(buf)
  local out = {}
  for _, c in ipairs(vim.lsp.get_clients({ bufnr = buf })) do
    out[#out + 1] = c.name
  end
  table.sort(out)
  return out
end

local function gitsigns_marks(buf)
  local n = 0
  for name, ns in pairs(vim.api.nvim_get_namespaces()) do
    if name:find('gitsigns') then n = n + #vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, {}) end
  end
  return n
end

--- The plugins lazy.nvim loaded, and any it marked failed or that stopped answering.
local function dead_plugins()
  local out = {}
  local ok, cfg = pcall(require, 'lazy.core.config')
  if not ok then return { 'lazy.nvim: ' .. tostring(cfg) } end
  for name, p in pairs(cfg.plugins) do
    if p._ and p._.has_errors then out[#out + 1] = name .. ' has errors (lazy.nvim)' end
  end
  -- lualine draws the statusline; a dead lualine leaves Neovim's own.
  if not (vim.o.statusline:find('lualine') or vim.o.laststatus == 3) then
    out[#out + 1] = "lualine no longer draws the statusline ('statusline' = " .. vim.o.statusline .. ')'
  end
  if not package.loaded['gitsigns'] then out[#out + 1] = 'gitsigns is not loaded' end
  return out
end

--- Problems shown anywhere: :messages, v:errmsg, notifications.
local function shown_errors()
  local out = {}
  local function scan(where, text)
    for _, pat in ipairs(bad_patterns) do
      if text:find(pat, 1, true) then
        out[#out + 1] = ('%s shows %q: %s'):format(where, pat, text:sub(1, 600))
        return
      end
    end
  end
  scan(':messages', messages())
  scan('v:errmsg', vim.v.errmsg)
  for _, n in ipairs(R.notes) do
    scan('a notification', n)
  end
  return out
end

local function cursor() return vim.api.nvim_win_get_cursor(0) end

local function find_line(buf, pat)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local col = l:find(pat)
    if col then return i, col - 1 end
  end
end

local function on_word(pat)
  local l, c = find_line(0, pat)
  assert(l, 'the fixture has no ' .. pat)
  vim.api.nvim_win_set_cursor(0, { l, c })
end

--- Each case: `setup` (before the request), `check` (nil when done, else what is not).
local cases = {}

cases.open = {
  check = function()
    local b = buf_named('app.py')
    if not b or vim.api.nvim_get_current_buf() ~= b then return 'the current buffer is ' .. path_of(0) end
    local names = table.concat(client_names(b), ',')
    if not (names:find('pyright') and names:find('ruff')) then return 'LSP clients of app.py: ' .. names end
    if not vim.b[b].gitsigns_status_dict then return 'gitsigns did not attach to app.py' end
    if gitsigns_marks(b) == 0 then return 'no gitsigns sign in app.py (it has a change)' end
  end,
}

cases.bnext = {
  check = function()
    if path_of(0) ~= vim.fs.normalize(project .. '/util.py') then return 'the current buffer is ' .. path_of(0) end
    local names = table.concat(client_names(0), ',')
    if not names:find('pyright') then return 'LSP clients of util.py: ' .. names end
  end,
}

cases.bprevious = {
  check = function()
    if path_of(0) ~= vim.fs.normalize(project .. '/app.py') then return 'the current buffer is ' .. path_of(0) end
    local u = buf_named('util.py')
    if not (u and vim.api.nvim_buf_is_loaded(u)) then return 'util.py was never shown (the first step did not run)' end
    if vim.fn.bufname('#') == '' then return 'no alternate buffer' end
  end,
}

cases.vsplit = {
  check = function()
    local wins = vim.api.nvim_tabpage_list_wins(0)
    if #wins ~= 2 then return ('%d window(s), expected 2'):format(#wins) end
    if path_of(0) ~= vim.fs.normalize(project .. '/util.py') then return 'the current window shows ' .. path_of(0) end
    local other = wins[1] == vim.api.nvim_get_current_win() and wins[2] or wins[1]
    if path_of(vim.api.nvim_win_get_buf(other)) ~= vim.fs.normalize(project .. '/app.py') then
      return 'the other window shows ' .. path_of(vim.api.nvim_win_get_buf(other))
    end
    local names = table.concat(client_names(0), ',')
    if not names:find('pyright') then return 'LSP clients of util.py: ' .. names end
    if not vim.b.gitsigns_status_dict then return 'gitsigns did not attach to util.py' end
  end,
}

cases.write = {
  check = function()
    local want = read(assert(os.getenv('REALCFG_EXPECT')))
    local got = read(project .. '/app.py')
    if vim.bo.modified then return 'app.py is still modified (not written)' end
    if got ~= want then return 'app.py on disk is not formatted by ruff format:\n' .. tostring(got) end
    if gitsigns_marks(0) == 0 then return 'no gitsigns sign in app.py after the write' end
  end,
}

cases.definition = {
  setup = function() on_word('helper%(') end,
  check = function()
    if path_of(0) ~= vim.fs.normalize(project .. '/util.py') then return 'the current buffer is ' .. path_of(0) end
    local l = find_line(0, '^def helper')
    if cursor()[1] ~= l then
      return ('the cursor is on line %d, the definition on %s'):format(cursor()[1], tostring(l))
    end
  end,
}

cases.rename = {
  setup = function() on_word('helper%(') end,
  check = function()
    local app = buf_named('app.py')
    if not lines(app):find('double%(') then return 'app.py does not call double():\n' .. lines(app) end
    local util = buf_named('util.py')
    local text = util and lines(util) or read(project .. '/util.py') or ''
    if not text:find('def double') then return 'util.py does not define double():\n' .. text end
  end,
}

cases.format = {
  check = function()
    local b = buf_named('web/index.ts')
    if not b then return 'web/index.ts is not open' end
    local names = table.concat(client_names(b), ',')
    if not names:find('ts_ls') then return 'LSP clients of index.ts: ' .. names end
    local text = lines(b)
    if not text:find('add%(a: number, b: number%)') then return 'index.ts is not formatted:\n' .. text end
  end,
}

cases.hunk = {
  setup = function() vim.api.nvim_win_set_cursor(0, { 1, 0 }) end,
  check = function()
    local l = find_line(0, 'work in progress')
    if cursor()[1] ~= l then return ('the cursor is on line %d, the change on %s'):format(cursor()[1], tostring(l)) end
    if not vim.b.gitsigns_status_dict then return 'gitsigns is detached from app.py' end
    if gitsigns_marks(0) == 0 then return 'no gitsigns sign in app.py' end
  end,
}

cases.telescope = {
  check = function()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.bo[vim.api.nvim_win_get_buf(w)].filetype == 'TelescopePrompt' then return end
    end
    return 'no Telescope prompt is open'
  end,
}

cases.oil = {
  check = function()
    if vim.bo.filetype ~= 'oil' then return "the current buffer's filetype is " .. vim.bo.filetype end
    local name = vim.api.nvim_buf_get_name(0)
    if not name:find('^oil://') then return 'the current buffer is ' .. name end
    if not lines(0):find('util%.py') then return 'the oil buffer does not list util.py:\n' .. lines(0) end
  end,
}

function R.ready(names)
  local have = client_names(0)
  for name in names:gmatch('[^,]+') do
    if not vim.tbl_contains(have, name) then return 'attached: ' .. table.concat(have, ',') end
  end
  return 'ok'
end

function R.setup(name)
  local c = cases[name]
  if c and c.setup then c.setup() end
  return 'ok'
end

--- "ok", or what is wrong; `final` also reports the errors shown and the dead plugins
--- (only once the case's own check passes or the time is up, so a slow step is no error).
function R.check(name, final)
  local c = assert(cases[name], 'no such case ' .. name)
  local ok, why = pcall(c.check)
  if not ok then why = 'the check raised: ' .. tostring(why) end
  local problems = {}
  if why then problems[1] = why end
  local errors = shown_errors()
  -- An error shown ends the wait: the step will not do better.
  if why == nil or final == 1 or #errors > 0 then
    vim.list_extend(problems, errors)
    vim.list_extend(problems, dead_plugins())
    final = 1
  end
  if #problems == 0 then return 'ok' end
  return (final == 1 and '' or 'wait: ') .. table.concat(problems, '\n')
end

function R.rank(request, n)
  local hits, err = require('leash').rank(request)
  if not hits then return vim.json.encode({ error = tostring(err) }) end
  local out = {}
  for i = 1, math.min(n, #hits) do
    local h = hits[i]
    out[#out + 1] = type(h) == 'table' and (h.id or h.key or h.name) or tostring(h)
  end
  return vim.json.encode(out)
end

function R.report()
  local wins = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    local b = vim.api.nvim_win_get_buf(w)
    wins[#wins + 1] = ('%s [%s]'):format(path_of(b), vim.bo[b].filetype)
  end
  return table.concat({
    'buffer: ' .. path_of(0) .. ' line ' .. cursor()[1],
    'windows: ' .. table.concat(wins, ' | '),
    'LSP: ' .. table.concat(client_names(0), ','),
    'v:errmsg: ' .. vim.v.errmsg,
    'notifications:\n  ' .. table.concat(R.notes, '\n  '),
    ':messages:\n' .. messages(),
  }, '\n')
end
