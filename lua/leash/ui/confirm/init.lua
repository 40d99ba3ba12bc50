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
---   window must be scrolled through (|leash.ui.confirm.visibility|),
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
--- The text is laid out by the window itself, one buffer line per screen row, in a window
--- with 'wrap' off and every window-local option that changes how text is drawn set to a
--- known value: what a person sees does not depend on options an earlier plan may have set.
---
--- Everything the model wrote (reply, why, arguments, values, commands) is put into the
--- buffer with |nvim_buf_set_lines()| as plain text, control and invisible characters made
--- visible. It never reaches a title, footer, 'statusline' or 'winbar' (which expand `%`),
--- and highlights are placed by position, never derived from the text. The window is not
--- routed through |vim.ui.select()| or |vim.ui.input()|: users replace those with pickers
--- that may accept on their own.
---
--- This module is the public API and the window's life: open, the autocommands that
--- cancel it or lay it out again, close, the callbacks. Each other concern has one file
--- beside it, so a rule is read and changed in one place:
--- * `content.lua`     what the window says (rows, first line, unchanged settings)
--- * `decision.lua`    whether a window is needed, its keys, what the run key does now
--- * `layout.lua`      the window's size and place, its text laid out in them
--- * `visibility.lua`  which rows were seen (drawn while the window was wholly visible)
--- * `hardening.lua`   options set to known values, typeahead, arm time, terminal warning
--- * `highlights.lua`  the window's own colours, copied before a plan could change them
--- * `state.lua`       the one copy of the state they share (current window, namespaces)
local M = {}
local H = {}
local content = require('leash.ui.confirm.content')
local decision = require('leash.ui.confirm.decision')
local hardening = require('leash.ui.confirm.hardening')
local highlights = require('leash.ui.confirm.highlights')
local layout = require('leash.ui.confirm.layout')
local shared = require('leash.ui.confirm.state')
local visibility = require('leash.ui.confirm.visibility')

-- Module definition ==========================================================

---@class leash.ConfirmOpts
---@field on_run? fun() called once, after the window closed, when the run key was pressed
---@field on_cancel? fun() called once when the window was closed any other way
---@field current_values? table<integer, any> current value per setting step `index` (default: read from the editor)
---@field arm_ms? integer run keys are ignored for this long after the window was first drawn; default 150
---@field plan_only? boolean show the plan without a run key (`:Do!`): no key runs it
---@field nothing? boolean the plan has nothing to run (every step refused or unchanged): shown, no run key
---@field on_refine? fun() `e` closes the window (nothing runs) and calls this, once, to edit the request
---@field preview? leash.Preview what the dry run found each step does (|leash.preview|), shown under it; `=` unfolds long diffs
---@field from? string who sent the plan when the person did not ask for it (an agent's name): the title says `plan from NAME`, in letters, digits and `.-_@/+` only

---@class leash.ConfirmHandle
---@field buf integer
---@field win integer
---@field lines string[] the text shown (one entry per screen row)
---@field run fun() what the run key does
---@field cancel fun() what `q` does
---@field refine fun() what `e` does (with |leash.ConfirmOpts| `on_refine`)
---@field status fun(): 'ready'|'unread'|'arming'|'too_small'|'terminal'|'closed' what the run key would do now
---@field marked boolean the plan has a marked step, so only `y` runs it

--- Whether `plan` must be shown before it runs (|leash.confirm.needs_window()|).
M.needs_window = decision.needs_window

--- Whether `plan` has a marked step, so only `y` runs it.
M.marked = decision.marked

--- Open the plan window for `plan` and give it focus.
---@param plan table validated plan
---@param opts? leash.ConfirmOpts
---@return leash.ConfirmHandle
function M.open(plan, opts)
  -- A window that failed part way is taken down whole: no empty float, no stray
  -- autocommands, the terminal and the previous window as they were.
  local made = {}
  local ok, handle = pcall(H.open, plan, opts or {}, made)
  if ok then return handle end
  H.take_down(made)
  error(handle, 0)
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

-- Helper functionality =======================================================

--- |M.open()|, noting in `made` what it created, for the cleanup when it fails.
function H.open(plan, opts, made)
  -- One plan window at a time: a new plan cancels the one still waiting.
  if shared.current then shared.current.cancel() end
  -- What the message area says of this plan (its progress ending) is said before the
  -- window is drawn: echoed over it, it could scroll a terminal smaller than the editor.
  require('leash.ui.notify').flush()
  highlights.create_defaults()
  local now, globals = opts.current_values, nil
  if not now then
    now, globals = content.current_values(plan)
  end
  local preview = require('leash.preview')
  local rows = M.render(plan, now, globals, preview.effects(opts.preview))
  local border = layout.border()
  local from = opts.from and H.sender(opts.from)
  -- Without a border there is no title: the sender goes first in the text.
  if from and not border.has_border then table.insert(rows, 1, { { 'plan from ' .. from, 'LeashConfirmHeading' } }) end
  local marked = decision.marked(plan)
  local trusted
  made.restore_terminal, trusted = require('leash.ui.terminal').prepare()

  local buf = vim.api.nvim_create_buf(false, true)
  made.buf = buf
  hardening.set_buffer_options(buf)

  made.prev_win = vim.api.nvim_get_current_win()
  local config =
    { relative = 'editor', width = 1, height = 1, row = 0, col = 0, style = 'minimal', zindex = hardening.zindex }
  if border.border then config.border = border.border end
  if border.has_border then
    -- Static text, or the sender's name in plain characters: model text never goes here.
    config.title = from and (' plan from ' .. from .. ' ') or ' leash plan '
    config.title_pos = 'center'
  end
  local win = vim.api.nvim_open_win(buf, true, config)
  made.win = win
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
  made.group = group

  local function finish(run)
    if state.done then return end
    state.done = true
    H.take_down(made)
    local cb = (run == 'refine' and opts.on_refine) or (run == true and opts.on_run) or opts.on_cancel
    if cb then cb() end
  end

  local handle = {
    buf = buf,
    win = win,
    lines = state.lines,
    marked = marked,
    status = function() return decision.status(state) end,
    run = function()
      local status = decision.status(state)
      if status == 'ready' and not state.plan_only then return finish(true) end
      decision.explain(state, status)
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
    layout.show(win, buf, state)
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
  decision.set_keys(buf, state, handle, opts.on_refine)
  if preview.foldable(opts.preview) then
    -- `=` unfolds every long diff: more rows, all of which must be seen again.
    vim.keymap.set('n', '=', function()
      if state.done then return end
      state.plan_rows = M.render(plan, now, globals, preview.effects(opts.preview, true))
      state.update()
    end, { buffer = buf, nowait = true, desc = 'leash: show the whole diff of each step' })
  end
  state.update()
  if state.untrusted then hardening.warn_untrusted() end
  -- The window is on screen now; what was typed before it was drawn was meant for
  -- something else and must not accept it.
  vim.cmd.redraw()
  hardening.arm(state)
  decision.set_footer(win, state)
  return handle
end

--- A sender's name as a title may show it: letters, digits, spaces and `.-_@/+` (ASCII),
--- at most 40 characters; anything else is dropped (a name with nothing left is `an agent`).
---@param name string
---@return string
function H.sender(name)
  local plain = tostring(name):gsub('[^A-Za-z0-9%.%-_@/+ ]', ''):gsub('%s+', ' ')
  plain = vim.trim(plain):sub(1, 40)
  return plain ~= '' and plain or 'an agent'
end

--- Take down what |M.open()| made, as far as it got: the window's state, autocommands,
--- window and buffer; then the previous window and the terminal as they were.
---@param made { win?: integer, buf?: integer, group?: integer, prev_win?: integer, restore_terminal?: fun() }
function H.take_down(made)
  if made.win then
    shared.watched[made.win] = nil
    if shared.current and shared.current.win == made.win then shared.current = nil end
  end
  if made.group then pcall(vim.api.nvim_del_augroup_by_id, made.group) end
  if made.win and vim.api.nvim_win_is_valid(made.win) then pcall(vim.api.nvim_win_close, made.win, true) end
  -- Closing the window wipes the buffer ('bufhidden'); one never shown is deleted here.
  if made.buf and vim.api.nvim_buf_is_valid(made.buf) then
    pcall(vim.api.nvim_buf_delete, made.buf, { force = true })
  end
  if made.prev_win and vim.api.nvim_win_is_valid(made.prev_win) then
    pcall(vim.api.nvim_set_current_win, made.prev_win)
  end
  if made.restore_terminal then pcall(made.restore_terminal) end
end

-- Once per Neovim process the colours; the provider that records what was drawn.
highlights.setup()
visibility.start()

return M
