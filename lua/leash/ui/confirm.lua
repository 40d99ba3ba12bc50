--- The plan window: the moment the user decides.
---
--- A native floating window lists every step of a validated plan in plain words, marks
--- every step that writes files, runs code or runs a program, shows those in full, and
--- lists the steps the validator dropped. Nothing runs until the run key is pressed in
--- that window; `q`, `<Esc>` and closing or leaving the window cancel.
---
--- Everything the model wrote (reply, why, arguments, values, commands) is put into the
--- buffer with |nvim_buf_set_lines()| as plain text, control and invisible characters made
--- visible. It never reaches a title, footer, 'statusline' or 'winbar' (which expand `%`),
--- and highlights are placed by position, never derived from the text. The window is not
--- routed through |vim.ui.select()| or |vim.ui.input()|: users replace those with pickers
--- that may accept on their own.
local M = {}
local H = {}

-- Module definition ==========================================================

---@class leash.ConfirmOpts
---@field on_run? fun() called once, after the window closed, when the run key was pressed
---@field on_cancel? fun() called once when the window was closed any other way
---@field current_values? table<integer, any> current value per setting step `index` (default: read from the editor)
---@field arm_ms? integer run keys are ignored for this long after opening (keys typed ahead); default 150

---@class leash.ConfirmHandle
---@field buf integer
---@field win integer
---@field lines string[] the text shown
---@field run fun() what the run key does
---@field cancel fun() what `q` does

--- Whether `plan` must be shown before it runs. Decided only from the validated plan's
--- `confirm` and `reach` fields (never from its text), checking both: a plan runs without
--- the window only when the user set `confirm_before_run = false`, the core said
--- `confirm = 'default'`, and every step is `safe` or `edit` and not a terminal step.
---@param plan table validated plan
---@param config? leash.Config default: the active configuration
---@return boolean
function M.needs_window(plan, config)
  config = config or require('leash.config').get()
  if config.confirm_before_run ~= false then return true end
  if type(plan) ~= 'table' or plan.confirm ~= 'default' or type(plan.steps) ~= 'table' then return true end
  for _, step in ipairs(plan.steps) do
    if type(step) ~= 'table' or not H.unconfirmed_reach[step.reach] then return true end
    if step.type == 'terminal' or (step.type == 'item' and H.is_terminal_id(step.id)) then return true end
  end
  return false
end

--- Open the plan window for `plan` and give it focus.
---@param plan table validated plan
---@param opts? leash.ConfirmOpts
---@return leash.ConfirmHandle
function M.open(plan, opts)
  opts = opts or {}
  -- One plan window at a time: a new plan cancels the one still waiting.
  if H.current then H.current.cancel() end
  H.create_default_hl()
  local current = opts.current_values or H.current_values(plan)
  local rows = M.render(plan, current)

  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.bo[buf].undolevels = -1

  local border = H.border()
  local keys_in_footer = border.has_border
  if not keys_in_footer then rows[#rows + 1] = { { H.keys_text, 'LeashConfirmKeys' } } end

  local lines = H.write(buf, rows)
  vim.bo[buf].modifiable = false
  vim.bo[buf].readonly = true
  vim.bo[buf].filetype = 'leash-plan'

  local width = H.width(lines, border.has_border)
  local prev_win = vim.api.nvim_get_current_win()
  local config = {
    relative = 'editor',
    width = width,
    height = 1,
    row = 0,
    col = 0,
    style = 'minimal',
    zindex = 60,
  }
  if border.border then config.border = border.border end
  if border.has_border then
    config.title = ' leash plan ' -- static text only: model text never goes here
    config.title_pos = 'center'
    if vim.fn.has('nvim-0.10') == 1 then
      config.footer = ' ' .. H.keys_text .. ' '
      config.footer_pos = 'center'
    end
  end
  local win = vim.api.nvim_open_win(buf, true, config)
  -- The run keys are Normal-mode mappings; a plan that arrives while typing must not
  -- leave the window in Insert mode.
  if vim.fn.mode():find('^[iR]') then vim.cmd('stopinsert') end
  local wo = vim.wo[win]
  wo.wrap, wo.linebreak, wo.breakindent = true, true, true
  wo.breakindentopt = 'shift:2'
  wo.list, wo.spell, wo.conceallevel = false, false, 0
  wo.cursorline, wo.foldenable = false, false
  wo.scrolloff = 0
  -- A plan that ran earlier may have set these globally (they are safe settings): a
  -- transparent or re-highlighted window would hide what <CR> is about to run.
  wo.winblend, wo.winhighlight = 0, ''
  -- Its colours come from a private namespace filled before any plan could run (see
  -- H.snapshot_hl): a `:highlight NormalFloat guifg=bg` from an earlier plan cannot make
  -- this window unreadable.
  vim.api.nvim_win_set_hl_ns(win, H.ns)
  if vim.fn.exists('+winfixbuf') == 1 then wo.winfixbuf = true end
  H.place(win, lines, border.has_border)

  local state = { done = false, opened = vim.uv.now(), arm_ms = opts.arm_ms or 150 }
  local group = vim.api.nvim_create_augroup('LeashConfirm' .. win, { clear = true })

  local function finish(run)
    if state.done then return end
    state.done = true
    if H.current and H.current.win == win then H.current = nil end
    pcall(vim.api.nvim_del_augroup_by_id, group)
    if vim.api.nvim_win_is_valid(win) then pcall(vim.api.nvim_win_close, win, true) end
    if vim.api.nvim_win_is_valid(prev_win) then pcall(vim.api.nvim_set_current_win, prev_win) end
    local cb = run and opts.on_run or opts.on_cancel
    if cb then cb() end
  end

  local handle = {
    buf = buf,
    win = win,
    lines = lines,
    run = function()
      -- Keys typed ahead while the plan was being made must not accept it.
      if vim.uv.now() - state.opened < state.arm_ms then return end
      finish(true)
    end,
    cancel = function() finish(false) end,
  }

  local function map(lhs, fn, desc) vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, desc = desc }) end
  for _, lhs in ipairs(H.run_keys) do
    map(lhs, handle.run, 'leash: run this plan')
  end
  for _, lhs in ipairs(H.cancel_keys) do
    map(lhs, handle.cancel, 'leash: cancel')
  end

  H.current = handle

  vim.api.nvim_create_autocmd('WinClosed', {
    group = group,
    pattern = tostring(win),
    callback = function() vim.schedule(handle.cancel) end,
  })
  vim.api.nvim_create_autocmd({ 'BufLeave', 'WinLeave' }, {
    group = group,
    buffer = buf,
    callback = function() vim.schedule(handle.cancel) end,
  })
  vim.api.nvim_create_autocmd('VimResized', {
    group = group,
    callback = function()
      if vim.api.nvim_win_is_valid(win) then H.place(win, lines, border.has_border) end
    end,
  })
  return handle
end

--- The window's rows: each row a list of `{ text, hl_group? }` chunks. Pure (no editor
--- state beyond `current`), so specs can read exactly what would be shown.
---@param plan table validated plan
---@param current? table<integer, any> current value per setting step `index`
---@return { [1]: string, [2]: string? }[][]
function M.render(plan, current)
  current = current or {}
  local rows = {}
  local function row(...)
    local chunks = {}
    for i = 1, select('#', ...) do
      local c = select(i, ...)
      if c then chunks[#chunks + 1] = c end
    end
    rows[#rows + 1] = chunks
  end

  local reply = H.visible(plan.reply)
  if reply ~= '' then
    row({ reply, 'LeashConfirmReply' })
    row()
  end

  local steps = type(plan.steps) == 'table' and plan.steps or {}
  if #steps == 0 then row({ 'Nothing to run.', 'LeashConfirmDropped' }) end
  for pos, step in ipairs(steps) do
    local n = (tonumber(step.index) or (pos - 1)) + 1
    local num = ('%d. '):format(n)
    local indent = (' '):rep(#num)
    local mark = H.marked[step.reach] and ('[' .. step.reach .. '] ') or nil
    local mark_hl = mark and ('LeashConfirm' .. step.reach:sub(1, 1):upper() .. step.reach:sub(2)) or nil
    if not H.known_reach[step.reach] then
      mark, mark_hl = '[unknown reach] ', 'LeashConfirmShell'
    end

    if step.type == 'setting' then
      local scope = step.scope == 'local' and ' (this window/buffer only)' or ''
      local now = current[step.index]
      local change = now == nil and H.value(step.value) or (H.value(now) .. ' → ' .. H.value(step.value))
      row({ num }, mark and { mark, mark_hl } or nil, { ('Set %s%s: %s'):format(H.visible(step.key), scope, change) })
    elseif step.type == 'terminal' or (step.type == 'item' and step.id == 'term:run') then
      -- Only term:run's argument is a command line; term:below/term:tab open a shell.
      local command = step.type == 'terminal' and step.command or table.concat(step.args or {}, ' ')
      row({ num }, { mark or '[shell] ', mark_hl or 'LeashConfirmShell' }, { 'Run in a terminal:' })
      row({ indent }, { H.visible(command), 'LeashConfirmCommand' })
    else
      row({ num }, mark and { mark, mark_hl } or nil, { H.item_text(step) })
    end
    local why = H.visible(step.why)
    if why ~= '' then row({ indent }, { '(' .. why .. ')', 'LeashConfirmWhy' }) end
  end

  local dropped = type(plan.dropped) == 'table' and plan.dropped or {}
  if #dropped > 0 then
    row()
    row({ 'Not run (refused by the checker):', 'LeashConfirmHeading' })
    for _, d in ipairs(dropped) do
      local n = (tonumber(d.index) or 0) + 1
      row({ ('%d. '):format(n), 'LeashConfirmDropped' }, { H.visible(d.reason), 'LeashConfirmDropped' })
    end
  end
  return rows
end

--- Text with every control and invisible formatting character made visible: `^[` for
--- ESC, `^J` for a newline, `<U+202E>` for a bidi override. What remains can be shown as
--- is and reads the same as what runs.
---@param s any
---@return string
function M.visible(s) return H.visible(s) end

-- Helper data ================================================================

---@type leash.ConfirmHandle? the window waiting for a decision
H.current = nil

H.run_keys = { '<CR>', 'y' }
H.cancel_keys = { 'q', '<Esc>', 'n', '<C-c>' }
H.keys_text = '<CR>/y run · q/<Esc> cancel · <C-d>/<C-u> scroll'

H.known_reach = { safe = true, edit = true, write = true, code = true, shell = true }
H.unconfirmed_reach = { safe = true, edit = true }
H.marked = { write = true, code = true, shell = true }

-- Zero-width and bidirectional formatting characters (as the core's validator lists).
H.invisible = {
  { 0x200B, 0x200F },
  { 0x202A, 0x202E },
  { 0x2060, 0x2064 },
  { 0x2066, 0x2069 },
  { 0xFEFF, 0xFEFF },
}

-- Helper functionality =======================================================

--- The groups the plan window draws with, copied into its own namespace.
H.window_groups = {
  'Normal',
  'NormalFloat',
  'FloatBorder',
  'FloatTitle',
  'FloatFooter',
  'EndOfBuffer',
  'NonText',
  'LeashConfirmReply',
  'LeashConfirmHeading',
  'LeashConfirmWhy',
  'LeashConfirmDropped',
  'LeashConfirmCommand',
  'LeashConfirmWrite',
  'LeashConfirmCode',
  'LeashConfirmShell',
  'LeashConfirmKeys',
}

H.ns = vim.api.nvim_create_namespace('leash.plan_window')

--- Copy the window's groups, links resolved, into its namespace. Runs when this module
--- is first loaded in a session (before the first plan is run: deciding whether a
--- window is needed loads it) and again on |ColorScheme| (the user's choice; a plan that changes the
--- colour scheme is code and always confirmed).
function H.snapshot_hl()
  H.create_default_hl()
  for _, name in ipairs(H.window_groups) do
    local ok, def = pcall(vim.api.nvim_get_hl, 0, { name = name, link = false })
    if ok and type(def) == 'table' then vim.api.nvim_set_hl(H.ns, name, def) end
  end
end

function H.create_default_hl()
  local links = {
    LeashConfirmReply = 'Normal',
    LeashConfirmHeading = 'Title',
    LeashConfirmWhy = 'Comment',
    LeashConfirmDropped = 'Comment',
    LeashConfirmCommand = 'Normal',
    LeashConfirmWrite = 'DiagnosticWarn',
    LeashConfirmCode = 'DiagnosticWarn',
    LeashConfirmShell = 'DiagnosticError',
    LeashConfirmKeys = 'Special',
  }
  for name, link in pairs(links) do
    vim.api.nvim_set_hl(0, name, { link = link, default = true })
  end
end

function H.is_terminal_id(id) return type(id) == 'string' and vim.startswith(id, 'term:') end

--- Border settings: pass a border only when the user has not set 'winborder'.
---@return { border?: string, has_border: boolean }
function H.border()
  local ok, wb = pcall(function() return vim.o.winborder end)
  if ok and type(wb) == 'string' and wb ~= '' then return { border = nil, has_border = wb ~= 'none' } end
  return { border = 'rounded', has_border = true }
end

--- Current values of the plan's settings, read from the current window and buffer with
--- the scope each step will use.
function H.current_values(plan)
  local out = {}
  for _, step in ipairs(type(plan.steps) == 'table' and plan.steps or {}) do
    if step.type == 'setting' and type(step.key) == 'string' then
      local ok, v = pcall(vim.api.nvim_get_option_value, step.key, { scope = step.scope == 'local' and 'local' or nil })
      if ok then out[step.index] = v end
    end
  end
  return out
end

function H.item_text(step)
  local id = type(step.id) == 'string' and step.id or ''
  local args = {}
  for _, a in ipairs(type(step.args) == 'table' and step.args or {}) do
    args[#args + 1] = H.visible(a)
  end
  local tail = #args > 0 and (' ' .. table.concat(args, ' ')) or ''
  local cmd = id:match('^cmd:(.+)$') or id:match('^user:(.+)$')
  if cmd then return 'Run :' .. H.visible(cmd) .. tail end
  local label = H.visible(step.label)
  return label ~= '' and label or (H.visible(id) .. tail)
end

function H.value(v)
  if type(v) == 'string' then return '"' .. H.visible(v) .. '"' end
  if v == nil or v == vim.NIL then return '(none)' end
  return H.visible(tostring(v))
end

function H.visible(s)
  if s == nil or s == vim.NIL then return '' end
  s = tostring(s)
  -- C0 controls and DEL as ^X.
  s = s:gsub('[%z\1-\31\127]', function(c)
    local b = c:byte()
    return b == 127 and '^?' or ('^' .. string.char(b + 64))
  end)
  -- C1 controls (U+0080..U+009F) and invisible formatting characters as <U+XXXX>.
  s = s:gsub('\194([\128-\159])', function(c) return ('<U+%04X>'):format(c:byte()) end)
  s = s:gsub('[\226\239][\128-\191][\128-\191]', function(c)
    local ok, cp = pcall(vim.fn.char2nr, c)
    if not ok then return c end
    for _, r in ipairs(H.invisible) do
      if cp >= r[1] and cp <= r[2] then return ('<U+%04X>'):format(cp) end
    end
    return c
  end)
  -- Invalid UTF-8 bytes need nothing: Neovim draws them as <xx>.
  return s
end

--- Write `rows` into `buf` and highlight each chunk by position.
---@return string[] lines
function H.write(buf, rows)
  local lines, marks = {}, {}
  for i, chunks in ipairs(rows) do
    local parts, col = {}, 0
    for _, c in ipairs(chunks) do
      if c[1] then
        parts[#parts + 1] = c[1]
        if c[2] then marks[#marks + 1] = { i - 1, col, col + #c[1], c[2] } end
        col = col + #c[1]
      end
    end
    lines[i] = ' ' .. table.concat(parts)
  end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  local ns = vim.api.nvim_create_namespace('LeashConfirm')
  for _, m in ipairs(marks) do
    vim.api.nvim_buf_set_extmark(buf, ns, m[1], m[2] + 1, { end_col = m[3] + 1, hl_group = m[4] })
  end
  return lines
end

function H.width(lines, has_border)
  local want = vim.fn.strdisplaywidth(H.keys_text) + 4
  for _, l in ipairs(lines) do
    want = math.max(want, vim.fn.strdisplaywidth(l) + 1)
  end
  local max = math.max(20, vim.o.columns - (has_border and 6 or 4))
  return math.min(math.max(want, 40), max)
end

--- Size the window to its wrapped text (capped to the editor) and centre it.
function H.place(win, lines, has_border)
  local width = H.width(lines, has_border)
  local cfg = vim.api.nvim_win_get_config(win)
  cfg.width = width
  vim.api.nvim_win_set_config(win, cfg)
  local height
  if vim.api.nvim_win_text_height then
    height = vim.api.nvim_win_text_height(win, {}).all
  else
    height = 0
    for _, l in ipairs(lines) do
      height = height + math.max(1, math.ceil(vim.fn.strdisplaywidth(l) / width))
    end
  end
  local avail = vim.o.lines - vim.o.cmdheight - (has_border and 4 or 2)
  height = math.max(1, math.min(height, avail))
  local extra = has_border and 2 or 0
  cfg.height = height
  cfg.row = math.max(0, math.floor((vim.o.lines - vim.o.cmdheight - height - extra) / 2))
  cfg.col = math.max(0, math.floor((vim.o.columns - width - extra) / 2))
  vim.api.nvim_win_set_config(win, cfg)
end

-- Once per Neovim process: reloading this module (plugin managers, tests) after a plan
-- ran must not copy colours that plan may have changed.
if not debug.getregistry()['leash.plan_window.colours'] then
  H.snapshot_hl()
  debug.getregistry()['leash.plan_window.colours'] = true
end
vim.api.nvim_create_autocmd('ColorScheme', {
  group = vim.api.nvim_create_augroup('LeashConfirmColors', { clear = true }),
  callback = function() H.snapshot_hl() end,
  desc = 'leash: refresh the plan window colours',
})

return M
