--- The plan window: the moment the user decides.
---
--- A native floating window lists every step of a validated plan in plain words, says on
--- its first line how many steps there are and how many run a shell command, run code or
--- write files, marks those steps and shows them in full, and lists the steps the
--- validator dropped. Nothing runs until the run key is pressed in that window; `q`,
--- `<Esc>` and closing or leaving the window cancel.
---
--- The run key is a deliberate decision about what was seen. For a plan with any marked
--- step (`[write]`, `[code]`, `[plugin]`, `[shell]`, an unknown reach or a terminal step)
--- it is `y` only: `<CR>` is the key most often typed for something else. It does nothing
--- * until every line of the window has been drawn while the window was wholly visible
---   (inside what the terminal shows, under no other float): a plan taller than the
---   window must be scrolled through (see |H.seen_provider|),
--- * when the editor is too small to show the window ('lines', 'columns' and 'cmdheight'
---   are safe settings an earlier plan may have changed),
--- * for keys typed before the window was drawn: typeahead is discarded once the window
---   is on screen, and run keys are ignored for `arm_ms` after that (a monotonic clock),
--- * when raw control output may have changed the terminal and it cannot be reset
---   (|leash.ui.terminal|).
--- A plan that arrives while the user is typing does not open here at all: it waits
--- for `:Leash show` (|leash.ui.arrival|). The window is drawn above notifications
--- ('zindex' 250), so a notifier's message cannot cover it.
---
--- The text is laid out here, one buffer line per screen row, in a window with 'wrap'
--- off and every window-local option that changes how text is drawn set to a known
--- value: what a person sees does not depend on options an earlier plan may have set.
---
--- Everything the model wrote (reply, why, arguments, values, commands) is put into the
--- buffer with |nvim_buf_set_lines()| as plain text, control and invisible characters made
--- visible. It never reaches a title, footer, 'statusline' or 'winbar' (which expand `%`),
--- and highlights are placed by position, never derived from the text. The window is not
--- routed through |vim.ui.select()| or |vim.ui.input()|: users replace those with pickers
--- that may accept on their own.
local M = {}
local H = {}
local policy = require('leash.policy')
local content = require('leash.ui.confirm.content')
local hardening = require('leash.ui.confirm.hardening')
local highlights = require('leash.ui.confirm.highlights')
local shared = require('leash.ui.confirm.state')
local text_rows = require('leash.ui.rows')

-- Module definition ==========================================================

---@class leash.ConfirmOpts
---@field on_run? fun() called once, after the window closed, when the run key was pressed
---@field on_cancel? fun() called once when the window was closed any other way
---@field current_values? table<integer, any> current value per setting step `index` (default: read from the editor)
---@field arm_ms? integer run keys are ignored for this long after the window was first drawn; default 150
---@field plan_only? boolean show the plan without a run key (`:Do!`): no key runs it
---@field nothing? boolean the plan has nothing to run (every step refused or unchanged): shown, no run key
---@field on_refine? fun() `e` closes the window (nothing runs) and calls this, once, to edit the request

---@class leash.ConfirmHandle
---@field buf integer
---@field win integer
---@field lines string[] the text shown (one entry per screen row)
---@field run fun() what the run key does
---@field cancel fun() what `q` does
---@field refine fun() what `e` does (with |leash.ConfirmOpts| `on_refine`)
---@field status fun(): 'ready'|'unread'|'arming'|'too_small'|'terminal'|'closed' what the run key would do now
---@field marked boolean the plan has a marked step, so only `y` runs it

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
    if type(step) ~= 'table' or policy.marked(step.reach) then return true end
    if policy.is_terminal(step) then return true end
  end
  return false
end

--- Whether `plan` has a marked step: any step that is not `safe` or `edit`, a terminal
--- step, or one of unknown reach. Such a plan runs only on `y`.
---@param plan table validated plan
---@return boolean
function M.marked(plan)
  for _, step in ipairs(type(plan) == 'table' and type(plan.steps) == 'table' and plan.steps or {}) do
    if type(step) ~= 'table' or policy.marked(step.reach) or policy.is_terminal(step) then return true end
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
  if shared.current then shared.current.cancel() end
  highlights.create_defaults()
  local now, globals = opts.current_values, nil
  if not now then
    now, globals = content.current_values(plan)
  end
  local rows = M.render(plan, now, globals)
  local border = H.border()
  local marked = M.marked(plan)
  local restore_terminal, trusted = require('leash.ui.terminal').prepare()

  local buf = vim.api.nvim_create_buf(false, true)
  hardening.set_buffer_options(buf)

  local prev_win = vim.api.nvim_get_current_win()
  local config =
    { relative = 'editor', width = 1, height = 1, row = 0, col = 0, style = 'minimal', zindex = hardening.zindex }
  if border.border then config.border = border.border end
  if border.has_border then
    config.title = ' leash plan ' -- static text only: model text never goes here
    config.title_pos = 'center'
  end
  local win = vim.api.nvim_open_win(buf, true, config)
  -- The run keys are Normal-mode mappings; a plan that arrives while typing must not
  -- leave the window in Insert mode.
  if vim.fn.mode():find('^[iR]') then vim.cmd('stopinsert') end

  local state = {
    plan_rows = rows,
    border = border,
    seen = {},
    nseen = 0,
    lines = {},
    done = false,
    marked = marked,
    plan_only = opts.plan_only or opts.nothing or false,
    nothing = opts.nothing or false,
    refine = opts.on_refine ~= nil,
    untrusted = not trusted,
    arm_ns = (opts.arm_ms or 150) * 1e6,
  }
  local group = vim.api.nvim_create_augroup('LeashConfirm' .. win, { clear = true })

  local function finish(run)
    if state.done then return end
    state.done = true
    shared.watched[win] = nil
    if shared.current and shared.current.win == win then shared.current = nil end
    pcall(vim.api.nvim_del_augroup_by_id, group)
    if vim.api.nvim_win_is_valid(win) then pcall(vim.api.nvim_win_close, win, true) end
    if vim.api.nvim_win_is_valid(prev_win) then pcall(vim.api.nvim_set_current_win, prev_win) end
    pcall(restore_terminal)
    local cb = (run == 'refine' and opts.on_refine) or (run == true and opts.on_run) or opts.on_cancel
    if cb then cb() end
  end

  local handle = {
    buf = buf,
    win = win,
    lines = state.lines,
    marked = marked,
    status = function() return H.status(state) end,
    run = function()
      if H.status(state) == 'ready' and not state.plan_only then finish(true) end
    end,
    cancel = function() finish(false) end,
    refine = function()
      -- Like the run key, it waits until the window was on screen long enough: a key
      -- typed before it was drawn was meant for something else.
      if opts.on_refine and hardening.armed(state) and not state.done then finish('refine') end
    end,
  }
  state.update = function()
    if state.done or not vim.api.nvim_win_is_valid(win) then return end
    H.show(win, buf, state)
    handle.lines = state.lines
  end

  shared.current = handle
  shared.watched[win] = state

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
  vim.api.nvim_create_autocmd('VimResized', { group = group, callback = state.update })
  vim.api.nvim_create_autocmd('OptionSet', {
    group = group,
    pattern = { 'cmdheight', 'ambiwidth', 'emoji', 'columns', 'lines' },
    callback = function() vim.schedule(state.update) end,
  })
  -- Keep the start of every row on screen: the rows fit the window, so a horizontal
  -- scroll (zl, a wide 'sidescrolloff') could only hide text.
  vim.api.nvim_create_autocmd('WinScrolled', {
    group = group,
    pattern = tostring(win),
    callback = function()
      vim.api.nvim_win_call(win, function()
        if vim.fn.winsaveview().leftcol ~= 0 then vim.fn.winrestview({ leftcol = 0 }) end
      end)
    end,
  })

  -- FileType handlers run in this window (a handler that leaves it cancels); the
  -- window's options and keys are set after them.
  pcall(vim.api.nvim_set_option_value, 'filetype', 'leash-plan', { buf = buf })
  if state.done or vim.api.nvim_get_current_win() ~= win then
    handle.cancel()
    return handle
  end
  hardening.set_window_options(win, buf)
  local function map(lhs, fn, desc) vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, desc = desc }) end
  if state.plan_only then
    -- Shown to be read (`:Do!`): no key runs it, and the run keys do nothing.
    for _, lhs in ipairs(H.run_keys) do
      map(lhs, '<Nop>', 'leash: plan only, nothing runs')
    end
  else
    for _, lhs in ipairs(marked and H.marked_run_keys or H.run_keys) do
      map(lhs, handle.run, 'leash: run this plan')
    end
    -- <CR> does nothing in a marked plan's window (rather than move the cursor: the
    -- footer says which key runs it).
    if marked then map('<CR>', '<Nop>', 'leash: y runs this plan') end
  end
  if opts.on_refine then map(H.refine_key, handle.refine, 'leash: edit the request and plan again') end
  for _, lhs in ipairs(H.cancel_keys) do
    map(lhs, handle.cancel, 'leash: cancel')
  end
  -- Every row fits the window: scrolling sideways could only hide the start of rows.
  for _, lhs in ipairs(H.sideways_keys) do
    map(lhs, '<Nop>', 'leash: rows fit the window')
  end
  state.update()
  if state.untrusted then hardening.warn_untrusted() end
  -- The window is on screen now; what was typed before it was drawn was meant for
  -- something else and must not accept it.
  vim.cmd.redraw()
  hardening.arm(state)
  H.set_footer(win, state)
  return handle
end

--- The window's rows before layout (|leash.ui.confirm.content|).
M.render = content.render

--- The first line of the window: how many steps, and what they reach.
M.summary = content.summary

--- The setting steps of a plan that change nothing (|leash.confirm.unchanged()|).
M.unchanged = content.unchanged

--- What to tell the user when every step of a plan changes nothing.
M.nothing_to_change = content.nothing_to_change

--- Text with every control and invisible formatting character made visible (|leash.text|).
M.visible = content.visible

-- Helper data ================================================================

H.ascii_border = { '+', '-', '+', '|', '+', '-', '+', '|' }

H.run_keys = { '<CR>', 'y' }
H.marked_run_keys = { 'y' }

H.cancel_keys = { 'q', '<Esc>', 'n', '<C-c>' }
H.sideways_keys =
  { 'zl', 'zh', 'zL', 'zH', 'zs', 'ze', 'z<Right>', 'z<Left>', '<ScrollWheelRight>', '<ScrollWheelLeft>' }
H.keys_text = '<CR>/y run · q/<Esc> cancel · <C-d>/<C-u> scroll'
H.marked_keys_text = 'y run (not <CR>: marked steps) · q/<Esc> cancel · <C-d>/<C-u> scroll'
H.plan_only_keys_text = 'plan only (:Do!), nothing runs · q/<Esc> close · <C-d>/<C-u> scroll'
H.nothing_keys_text = 'nothing to run · q/<Esc> close · <C-d>/<C-u> scroll'
-- Edits the request and plans again with this plan as context (|leash.ConfirmOpts|).
H.refine_key = 'e'
H.footers = {
  ready = ' <CR>/y run · q/<Esc> cancel ',
  scrolled = ' <CR>/y run · q/<Esc> cancel · <C-d>/<C-u> scroll ',
  marked = {
    ready = ' y run (marked steps: not <CR>) · q/<Esc> cancel ',
    scrolled = ' y run (marked steps: not <CR>) · q cancel · <C-d>/<C-u> scroll ',
  },
  plan_only = {
    ready = ' plan only (:Do!), nothing runs · q/<Esc> close ',
    scrolled = ' plan only (:Do!), nothing runs · q close · <C-d>/<C-u> scroll ',
  },
  nothing = {
    ready = ' nothing to run · q/<Esc> close ',
    scrolled = ' nothing to run · q close · <C-d>/<C-u> scroll ',
  },
  terminal = ' the terminal may hide this plan · q cancel ',
  unread = ' %d more line%s: j/<C-d> scroll · q cancel ',
  too_small = ' too small to show the plan · q cancel ',
  covered = ' another window covers the plan · q cancel ',
}

-- The smallest text area the plan is shown in: columns, and rows when it must scroll.
H.min_rows, H.min_cols = 5, 30

-- Helper functionality =======================================================

--- Border settings: pass a border only when the user has not set 'winborder'.
---@return { border?: string, has_border: boolean }
function H.border()
  local ok, wb = pcall(function() return vim.o.winborder end)
  local user = ok and type(wb) == 'string' and wb ~= ''
  if user and wb == 'none' then return { has_border = false } end
  -- With 'ambiwidth' "double" box-drawing characters take two cells, which Neovim
  -- refuses in a border.
  if vim.fn.strdisplaywidth('─') ~= 1 then return { border = H.ascii_border, has_border = true } end
  if user then return { border = nil, has_border = true } end
  return { border = 'rounded', has_border = true }
end

-- Window ---------------------------------------------------------------------

--- What the run key does now.
function H.status(state)
  if state.done then return 'closed' end
  if state.too_small then return 'too_small' end
  if state.untrusted then return 'terminal' end
  if state.nseen < #state.lines then return 'unread' end
  if not hardening.armed(state) then return 'arming' end
  return 'ready'
end

--- Lay the plan out for the editor's current size and show it: window size and place,
--- buffer text, footer. Rows already drawn stay counted when the text did not change.
function H.show(win, buf, state)
  local layout = H.layout(state.plan_rows, state.border, state)
  local lines, marks = {}, {}
  for i, r in ipairs(layout.rows) do
    lines[i] = r.text
    for _, m in ipairs(r.marks) do
      marks[#marks + 1] = { i - 1, m[1], m[2], m[3] }
    end
  end
  if not vim.deep_equal(lines, state.lines) then
    state.seen, state.nseen = {}, 0
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
    vim.api.nvim_buf_clear_namespace(buf, shared.ns_text, 0, -1)
    for _, m in ipairs(marks) do
      vim.api.nvim_buf_set_extmark(buf, shared.ns_text, m[1], m[2], { end_col = m[3], hl_group = m[4] })
    end
    pcall(vim.api.nvim_win_set_cursor, win, { 1, 0 })
  end
  state.lines, state.too_small, state.layout = lines, layout.too_small, layout
  vim.api.nvim_win_set_config(win, {
    relative = 'editor',
    width = layout.width,
    height = layout.height,
    row = layout.row,
    col = layout.col,
  })
  H.set_footer(win, state)
  if layout.too_small and not state.told_small then
    state.told_small = true
    vim.notify(layout.message, vim.log.levels.WARN, { title = 'leash' })
  end
end

--- Show the footer for the window's state (where there is a border to hold it).
function H.set_footer(win, state)
  if not state.border.has_border or vim.fn.has('nvim-0.10') == 0 then return end
  pcall(vim.api.nvim_win_set_config, win, { footer = H.footer(state), footer_pos = 'center' })
end

--- The footer for the window's state (static text and a number).
function H.footer(state)
  if state.too_small then return H.footers.too_small end
  if state.untrusted then return H.footers.terminal end
  if state.covered then return H.footers.covered end
  local left = #state.lines - state.nseen
  if left > 0 then return H.footers.unread:format(left, left == 1 and '' or 's') end
  local f = H.key_texts(state)
  return state.layout.fits and f.ready or f.scrolled
end

--- The footers (`ready`, `scrolled`) and the borderless key line (`inline`) for the
--- window's kind: a marked plan, a plan only shown (`:Do!`), with or without `e`.
function H.key_texts(state)
  local f, inline = H.footers, H.keys_text
  if state.nothing then
    f, inline = H.footers.nothing, H.nothing_keys_text
  elseif state.plan_only then
    f, inline = H.footers.plan_only, H.plan_only_keys_text
  elseif state.marked then
    f, inline = H.footers.marked, H.marked_keys_text
  end
  local out = { ready = f.ready, scrolled = f.scrolled, inline = inline }
  if state.refine then
    -- `e` goes before cancel: ' <CR>/y run · e edit · q/<Esc> cancel '.
    for k, v in pairs(out) do
      out[k] = v:gsub(' · q', ' · e edit · q', 1)
    end
  end
  return out
end

--- Rows, size and place of the window for the editor's current size. The text area is
--- `width` columns; every row fits in it, so what is drawn never depends on 'wrap',
--- 'linebreak', 'showbreak', 'breakindent' or 'display'. Too small: fewer than
--- `H.min_cols` columns, or a plan that does not fit in fewer than `H.min_rows` rows.
function H.layout(plan_rows, border, state)
  local marked, texts = state.marked, H.key_texts(state)
  local extra = border.has_border and 2 or 0
  local screen = H.screen()
  local free_rows = screen.rows - extra
  local free_cols = screen.cols - extra
  -- Leave a margin around the window where the editor has room for it.
  local max_rows = free_rows >= 12 and free_rows - 2 or free_rows
  local max_cols = free_cols >= 44 and free_cols - 4 or free_cols
  local out = {}
  local cache = {}

  local function lay(rows)
    local width = math.min(40, max_cols)
    for _, text in pairs(H.footers) do
      if type(text) == 'string' then width = math.max(width, vim.fn.strdisplaywidth(text) + 2) end
    end
    for _, text in pairs(texts) do
      width = math.max(width, vim.fn.strdisplaywidth(text) + 2)
    end
    for _, chunks in ipairs(rows) do
      local w = 2
      for _, c in ipairs(chunks) do
        w = w + text_rows.width(c[1])
      end
      width = math.max(width, w)
    end
    width = math.max(2, math.min(width, max_cols))
    local all = {}
    for _, chunks in ipairs(rows) do
      vim.list_extend(all, text_rows.wrap(chunks, width - 1, cache))
    end
    return all, width
  end

  local keys = border.has_border and {} or { {}, { { texts.inline, 'LeashConfirmKeys' } } }
  local rows, width = lay(vim.list_extend(vim.list_slice(plan_rows), keys))
  if #rows > max_rows then
    -- Say so at the top (also where there is no footer to say it).
    local with_note = vim.list_slice(plan_rows)
    table.insert(with_note, 2, {
      {
        state.plan_only and 'It does not fit: scroll to read it all (j, <C-d>).'
          or ('It does not fit: scroll to the end (j, <C-d>) before %s can run it.'):format(marked and 'y' or '<CR>'),
        'LeashConfirmKeys',
      },
    })
    rows, width = lay(vim.list_extend(with_note, keys))
  end
  out.too_small = max_cols < H.min_cols or (#rows > max_rows and max_rows < H.min_rows)
  if out.too_small then
    out.message = (
      'leash: the editor is too small to show the plan (%d×%d free, at least %d×%d needed); '
      .. "make it larger or lower 'cmdheight' (%d). Nothing runs until the plan can be read."
    ):format(math.max(max_rows, 0), math.max(max_cols, 0), H.min_rows, H.min_cols, vim.o.cmdheight)
    rows, width = lay({ { { out.message, 'LeashConfirmShell' } } })
  end
  out.rows, out.width = rows, width
  out.fits = #rows <= max_rows
  out.height = math.max(1, math.min(#rows, max_rows))
  out.row = math.max(0, math.floor((free_rows - out.height) / 2))
  out.col = math.max(0, math.floor((free_cols - width) / 2))
  return out
end

--- The part of the editor a person can see, from the top left: rows above the command
--- line, and columns. 'lines' and 'columns' are safe settings and may be larger than the
--- terminal (the rest of Neovim's screen is then drawn where nobody sees it): each
--- attached UI's own size caps them.
---@return { rows: integer, cols: integer }
function H.screen()
  local rows, cols = vim.o.lines - vim.o.cmdheight, vim.o.columns
  for _, ui in ipairs(vim.api.nvim_list_uis()) do
    if type(ui.height) == 'number' and ui.height > 0 then rows = math.min(rows, ui.height) end
    if type(ui.width) == 'number' and ui.width > 0 then cols = math.min(cols, ui.width) end
  end
  return { rows = rows, cols = cols }
end

--- Whether `win` is wholly on screen with its text area as laid out: no row below the
--- command line or past what the terminal shows, no column past the edge, nothing
--- scrolled sideways, no column added in front of the text, no other float on top.
function H.on_screen(win, state)
  local layout = state.layout
  if not layout or state.too_small then return false end
  local ok, info = pcall(vim.fn.getwininfo, win)
  if not ok or not info[1] then return false end
  info = info[1]
  local extra = state.border.has_border and 1 or 0
  local top = info.winrow - 1 -- 0-based row of the window, border included
  local left = info.wincol - 1
  local screen = H.screen()
  if top + info.height + 2 * extra > screen.rows then return false end
  if left + info.width + 2 * extra > screen.cols then return false end
  if (info.leftcol or 0) ~= 0 or (info.textoff or 0) ~= 0 then return false end
  if info.width < layout.width then return false end
  if H.covered(win, { top, left, top + info.height + 2 * extra, left + info.width + 2 * extra }) then
    return false, 'covered'
  end
  return true
end

--- Whether another float drawn above `win` (same or higher 'zindex') overlaps `rect`
--- (`{ top, left, bottom, right }`, bottom and right exclusive, border included).
--- Rows drawn under it were not seen: its region is redrawn once it has gone.
function H.covered(win, rect)
  local z = vim.api.nvim_win_get_config(win).zindex or 50
  for _, other in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local cfg = other ~= win and vim.api.nvim_win_get_config(other)
    if cfg and cfg.relative ~= '' and not cfg.hide and (cfg.zindex or 50) >= z then
      local pos = vim.api.nvim_win_get_position(other) -- border included
      local b = cfg.border and 2 or 0 -- a border on any side is counted on both
      local top, left = pos[1], pos[2]
      local bottom = top + vim.api.nvim_win_get_height(other) + b
      local right = left + vim.api.nvim_win_get_width(other) + b
      if top < rect[3] and bottom > rect[1] and left < rect[4] and right > rect[2] then return true end
    end
  end
  return false
end

--- While `win` is covered, redraw it now and then: when the cover goes, Neovim only
--- puts the window's old picture back (nothing is drawn, so nothing would count).
function H.redraw_when_uncovered(win, state)
  if state.redraw_timer then return end
  state.redraw_timer = true
  vim.defer_fn(function()
    state.redraw_timer = nil
    if state.done or not vim.api.nvim_win_is_valid(win) then return end
    if vim.api.nvim__redraw then
      pcall(vim.api.nvim__redraw, { win = win, valid = false, flush = true })
    else
      vim.cmd('redraw!')
    end
  end, 200)
end

--- Record which rows of a plan window are drawn. Called by Neovim while it redraws: a
--- row counts as seen only when it was drawn into a window wholly on screen.
function H.seen_provider()
  vim.api.nvim_set_decoration_provider(shared.ns_seen, {
    on_win = function(_, win)
      local state = shared.watched[win]
      if not state or state.done then return false end
      local ok, shown, why = pcall(H.on_screen, win, state)
      local covered = ok and why == 'covered'
      if covered ~= (state.covered or false) then
        state.covered = covered
        H.update_footer(win, state)
      end
      if covered then vim.schedule(function() H.redraw_when_uncovered(win, state) end) end
      return ok and shown
    end,
    on_line = function(_, win, _, row)
      local state = shared.watched[win]
      if not state or state.seen[row] or row >= #state.lines then return end
      state.seen[row] = true
      state.nseen = state.nseen + 1
      H.update_footer(win, state)
    end,
  })
end

--- Update the footer after Neovim has drawn (it cannot change while Neovim draws).
function H.update_footer(win, state)
  if state.footer_pending then return end
  state.footer_pending = true
  vim.schedule(function()
    state.footer_pending = false
    if not state.done and vim.api.nvim_win_is_valid(win) then H.set_footer(win, state) end
  end)
end

highlights.setup()
H.seen_provider()

return M
